# SPDX-License-Identifier: BSD-2-Clause
# nginx-build.sh: sourced, after debsrc.sh and its take_args, by nginx.sh
# (the integration test) and bench/real-server/run.sh (the benchmark), so
# that the nginx the benchmark times is the one the test checks.
#
# nginx_build WHICH DIR: Debian's nginx source ($src, from fetch_source)
# configured and built in DIR, once (debsrc.sh's fresh_tree and tree_built
# keep it); the binary is DIR/objs/nginx.
#   kqueue  with its kqueue event module on libkq: configured against
#           libkq's headers and linked with LIBKQ.  nginx's configure finds
#           kqueue, but its Linux headers include <sys/epoll.h> and not
#           <sys/event.h>, while its event headers name events after kqueue
#           when both exist: so <sys/event.h> is included first everywhere
#           (with _GNU_SOURCE before it, as nginx's own headers would define
#           it), and NGX_EXCLUSIVE_EVENT, which only nginx's epoll branch
#           defines, gets a value (only the epoll module uses it).
#   epoll   the source as it is, nothing of libkq's: its epoll module.
# Both with the same configure options otherwise: no rewrite or gzip
# module (they need PCRE and zlib), with threads.  About 60 s each on 2
# cores.  Dies (debsrc.sh's die) if a build fails or is not what it says.
nginx_build() {
	nb_which=$1
	tree=$2
	case $nb_which in
	kqueue)
		set -- "--with-cc-opt=-D_GNU_SOURCE -DNGX_EXCLUSIVE_EVENT=0x10000000 -I$srcdir/include -include sys/event.h" \
			"--with-ld-opt=$libkq -Wl,-rpath,$libdir" ;;
	epoll) set -- ;;
	*) die "nginx_build: no build named $nb_which" ;;
	esac
	nb_log=$work/configure-$nb_which.log
	if fresh_tree; then
		say "configuring nginx ($nb_which)"
		if ! (cd "$tree" && ./configure --with-cc="$cc" "$@" \
			--without-http_rewrite_module --without-http_gzip_module \
			--with-threads --prefix="$work/run") >"$nb_log" 2>&1; then
			tail -20 "$nb_log"
			die "configuring nginx failed (see $nb_log)"
		fi
		grep -q "^checking for $nb_which \.\.\. found" "$nb_log" ||
			die "nginx's configure did not find $nb_which (see $nb_log)"
	fi
	say "building nginx ($nb_which)"
	if ! make -C "$tree" -j 2 >"$work/build-$nb_which.log" 2>&1; then
		tail -30 "$work/build-$nb_which.log"
		die "building nginx failed (see $work/build-$nb_which.log)"
	fi
	tree_built
	nb_exe=$tree/objs/nginx
	if [ "$nb_which" = kqueue ]; then
		ldd "$nb_exe" | grep -q libkq || die "nginx ($nb_which) does not load libkq"
		nm -D "$nb_exe" | grep -q ' U kevent' || die "nginx ($nb_which) does not call kevent()"
	else
		ldd "$nb_exe" | grep -q libkq && die "nginx ($nb_which) loads libkq"
		nm -D "$nb_exe" | grep -q ' U epoll_wait' || die "nginx ($nb_which) does not call epoll_wait()"
	fi
}

# nginx_workers PID: the processes whose parent is PID, the master.
nginx_workers() {
	awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null
}

# nginx_kill PID: the master PID and its workers ended at once, the workers
# first: once the master is gone they are init's, out of reach of a search
# by parent, and would keep a caller's output open; a stopped master cannot
# start new ones meanwhile (no pkill: procps may not be installed).
nginx_kill() {
	kill -STOP "$1" 2>/dev/null
	# shellcheck disable=SC2046
	kill -9 $(nginx_workers "$1") 2>/dev/null
	kill -9 "$1" 2>/dev/null
}
