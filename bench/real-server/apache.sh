#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# real-server/apache.sh: Apache httpd's event MPM on APR's kqueue pollset
# on libkq, against the same httpd on APR's epoll pollset, CPU per
# request; run.sh's method and output, for a second server.
#
# Debian's apr source is built twice: once configured against libkq's
# headers and linked with LIBKQ (APR's configure then finds <sys/event.h>
# and kqueue(), and its pollsets default to kqueue), once as it is
# (epoll); Debian's apr-util is built on each.  Debian's apache2 source
# (httpd) is then built against each pair, with the event MPM and no
# modules but unixd and authz_core (static; without the latter httpd
# refuses every request).  The event MPM asks APR for a kqueue pollset
# first and falls back to epoll, so each build runs on what its APR has.
# Both run at once with the same configuration (one child process with 48
# threads, on 127.0.0.1, each on its own port, no access log, the error
# log at `error`, no .htaccess look-ups), and load.c drives them in turn,
# in alternated blocks, with 32 requests in flight, measuring the child's
# CPU time (the scheduler's run time of all its threads: the listener's
# and the workers') per request:
#   keepalive   a 100-byte file, HTTP/1.1 on 32 connections kept open
#   close       the same file, a new connection per request
#               ("Connection: close": httpd shuts its side down, waits
#               for the client's end of file in its pollset, then closes)
# The silent-connection cases of run.sh are left out: the event MPM reads
# a new connection's first request in a worker thread, so thousands of
# silent ones would hold every worker.
#
# Before measuring, each child's waits are traced once (strace -k, when
# strace can unwind): the kqueue build's event loop must reach epoll
# through libkq (kevent), the epoll build's through APR's epoll pollset.
#
# usage: sh bench/real-server/apache.sh LIBKQ WORKDIR [--quick]
#   LIBKQ    libkq's shared library (a build tree's src/libkq.so)
#   WORKDIR  where the sources, the four builds and the logs go (cached:
#            each source is fetched and each build made once)
#   --quick  shorter blocks and fewer of them: a check that it works
# The compiler is $CC, or cc.  Building needs libpcre2-dev, libexpat1-dev,
# uuid-dev, libtool and autoconf; as root they are installed with apt-get
# when missing.
# exit: 0 measured; 1 a build or a run failed; 77 skipped (no source to be
# had, or a libkq built with AddressSanitizer), the reason on the last line.
#
# Output (stdout): run.sh's lines (real-server-block, -pair, real-server,
# -summary, -calls, -profile), the header line with server=apache, and
#   real-server-check  per build: which waits the trace saw and from where
#                      (waits: epoll waits traced; via_libkq: those with
#                      libkq.so in their stack)
# Messages start with "apache:".
#
# Time on 2 cores: about 6 minutes to fetch and build all four the first
# time; then about 1.5 minutes of blocks, 30 s of them counting calls and
# profiling (--quick: 30 s).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
who=apache
. "$top/test/integration/debsrc.sh"
bench_args "${CC:-cc}" "$@"

blocks=4 instances=4 block_ms=700 prof_pairs=5 cases="keepalive close"
[ $quick = 1 ] && blocks=3 instances=2 block_ms=300 prof_pairs=3
conns=32
# more threads than connections: with every worker busy the event MPM
# closes its keep-alive connections (to let them go to another child)
threads=48

[ -n "$(asan_runtime)" ] && skip "$libkq is built with AddressSanitizer: timing it means nothing"

# the build dependencies, by the files the builds need
need=""
command -v pcre2-config >/dev/null 2>&1 || need="$need libpcre2-dev"
[ -f /usr/include/expat.h ] || need="$need libexpat1-dev"
[ -f /usr/include/uuid/uuid.h ] || need="$need uuid-dev"
command -v libtoolize >/dev/null 2>&1 || need="$need libtool"
command -v autoconf >/dev/null 2>&1 || need="$need autoconf"
if [ -n "$need" ]; then
	is_root || skip "missing build dependencies ($need ) and not root to install them"
	# shellcheck disable=SC2086
	apt_install $need || skip "cannot install$need (see $work/apt-install.log)"
fi

src=$work/apr-source
fetch_source apr poll/unix/kqueue.c
apr_src=$src
src=$work/apr-util-source
fetch_source apr-util buckets/apr_buckets.c
apu_src=$src
src=$work/httpd-source
fetch_source apache2 server/mpm/event/event.c
httpd_src=$src

# fresh: debsrc.sh's fresh_tree, the build keyed without LIBKQ: the
# kqueue builds link libkq by name and run with LIBKQ's directory first in
# the library path (start below), so one set of builds times any libkq
# built from the same headers.
fresh() {
	fr_libkq=$libkq
	libkq=by-name
	fresh_tree
	fr_rc=$?
	libkq=$fr_libkq
	return $fr_rc
}

# configure_install WHAT LOG ARG...: ./configure ARG... in $tree, then make
# and make install, the logs in $work/WHAT-configure-LOG.log and
# $work/WHAT-build-LOG.log (WHAT and LOG name the build in messages).
configure_install() {
	ci_what=$1 ci_log=$2
	shift 2
	say "configuring $ci_what ($ci_log)"
	if ! (cd "$tree" && ./configure CC="$cc" "$@") >"$work/$ci_what-configure-$ci_log.log" 2>&1; then
		tail -20 "$work/$ci_what-configure-$ci_log.log"
		die "configuring $ci_what ($ci_log) failed (see $work/$ci_what-configure-$ci_log.log)"
	fi
	say "building $ci_what ($ci_log)"
	if ! { make -C "$tree" -j 2 && make -C "$tree" install; } >"$work/$ci_what-build-$ci_log.log" 2>&1; then
		tail -30 "$work/$ci_what-build-$ci_log.log"
		die "building $ci_what ($ci_log) failed (see $work/$ci_what-build-$ci_log.log)"
	fi
	tree_built
}

# apr_build WHICH: Debian's apr configured and installed in
# $work/apr-WHICH/inst, the options of Debian's own build that matter for
# speed, the same in both; kqueue: against libkq.
apr_build() {
	src=$apr_src tree=$work/apr-$1
	inst=$tree/inst
	case $1 in
	kqueue) set -- "$1" CPPFLAGS="-I$srcdir/include" \
		LDFLAGS="-L$libdir -Wl,-rpath,$libdir" LIBS="-lkq" ;;
	esac
	ab_which=$1
	shift
	fresh && configure_install apr "$ab_which" "$@" --prefix="$inst" \
		--enable-nonportable-atomics --enable-allocator-uses-mmap --disable-static
	# apr-util, in the same prefix: httpd takes both's headers from one
	# directory then (two would give it every APR name twice)
	src=$apu_src tree=$work/apu-$ab_which
	fresh && configure_install apr-util "$ab_which" --prefix="$inst" --with-apr="$inst/bin/apr-1-config" \
		--without-ldap --without-pgsql --without-mysql --without-sqlite2 --without-sqlite3 \
		--without-odbc --without-berkeley-db --without-gdbm --without-crypto
	h=$work/apr-$ab_which/include/arch/unix/apr_private.h
	lib=$inst/lib/libapr-1.so
	if [ "$ab_which" = kqueue ]; then
		grep -q '^#define HAVE_KQUEUE 1' "$h" || die "apr ($ab_which) did not find kqueue (see $h)"
		ldd "$lib" | grep -q libkq || die "apr ($ab_which) does not load libkq"
		nm -D "$lib" | grep -q ' U kevent' || die "apr ($ab_which) does not call kevent()"
	else
		grep -q '^#define HAVE_KQUEUE 1' "$h" && die "apr ($ab_which) found a kqueue"
		grep -q '^#define HAVE_EPOLL 1' "$h" || die "apr ($ab_which) did not find epoll (see $h)"
		ldd "$lib" | grep -q libkq && die "apr ($ab_which) loads libkq"
	fi
}

# httpd_build WHICH: httpd (event MPM, static modules) built against
# apr-WHICH and installed in $work/httpd-WHICH/inst.  Debian's patches
# take the build's date from debian/rules (BUILD_DATETIME).
httpd_build() {
	src=$httpd_src tree=$work/httpd-$1
	inst=$tree/inst
	apr=$work/apr-$1/inst
	# httpd links libkq itself (apr-1-config names it among APR's
	# libraries), ahead of the C library: libkq's close() and the
	# others it replaces are the ones the process binds to
	hb_rpath=-Wl,-rpath,$apr/lib
	[ "$1" = kqueue ] && hb_rpath="$hb_rpath -Wl,-rpath,$libdir"
	fresh && configure_install httpd "$1" LDFLAGS="$hb_rpath" \
		CPPFLAGS='-DBUILD_DATETIME="\"libkq-bench\""' \
		--prefix="$inst" --with-apr="$apr/bin/apr-1-config" \
		--with-apr-util="$apr/bin/apu-1-config" --with-mpm=event \
		--enable-modules=none --enable-mods-static="unixd authz_core"
	exe=$inst/bin/httpd
	[ -x "$exe" ] || die "no httpd ($1) at $exe"
	ldd "$exe" | grep -q "$apr/lib/libapr-1" || die "httpd ($1) does not load its apr ($apr/lib)"
	if [ "$1" = kqueue ]; then
		readelf -d "$exe" | awk '/NEEDED/ && /libkq/ { k = NR } /NEEDED/ && /libc\.so/ { c = NR }
			END { exit !(k && c && k < c) }' || die "httpd ($1) does not load libkq before the C library"
	fi
}

for w in kqueue epoll; do
	apr_build $w
	httpd_build $w
done
"$cc" -O2 -Wall -o "$work/load" "$here/load.c" >"$work/client.log" 2>&1 ||
	die "building the client failed (see $work/client.log)"

run=$work/run
rm -rf "$run" && mkdir -p "$run/www" || exit 1
printf '%099d\n' 0 >"$run/www/small.txt"
chmod -R a+rX "$run"   # the child runs as daemon when started by root
. "$here/measure.sh"
idle=0

# The parent is told to stop (SIGTERM: it ends its child and itself);
# what is left after 5 s is killed, the child first (orphaned, it would be
# out of reach of a search by parent).
pids=""
stop() {
	for p in $pids; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in $pids; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		if kill -0 "$p" 2>/dev/null; then
			kill -STOP "$p" 2>/dev/null
			# shellcheck disable=SC2046
			kill -9 $(rs_children "$p") 2>/dev/null
			kill -9 "$p" 2>/dev/null
		fi
		wait "$p" 2>/dev/null
	done
	pids=""
}
trap stop EXIT
trap 'exit 1' INT TERM

# start WHICH: httpd's WHICH build serving on a port of its own; sets
# port_WHICH and worker_WHICH (its one child: the pid measured).
start() {
	d=$run/$1
	mkdir -p "$d/logs" || exit 1
	p=$("$work/load" port) || die "no free port on 127.0.0.1"
	# One child with $threads threads, never replaced: spare-thread
	# limits it always meets, no request or connection limit; the
	# listener keeps accepting while $conns connections are open
	# (ThreadsPerChild + AsyncRequestWorkerFactor * idle threads).
	cat >"$d/httpd.conf" <<-EOF2
	ServerRoot $d
	ServerName 127.0.0.1
	Listen 127.0.0.1:$p
	PidFile $d/logs/httpd.pid
	ErrorLog $d/logs/error.log
	LogLevel error
	User daemon
	Group daemon
	DocumentRoot $run/www
	<Directory />
	    AllowOverride None
	</Directory>
	StartServers 1
	ServerLimit 1
	ThreadLimit $threads
	ThreadsPerChild $threads
	MaxRequestWorkers $threads
	MinSpareThreads 1
	MaxSpareThreads $((threads * 2))
	AsyncRequestWorkerFactor 16
	MaxConnectionsPerChild 0
	KeepAlive On
	MaxKeepAliveRequests 0
	KeepAliveTimeout 3600
	Timeout 3600
	EnableSendfile On
	EOF2
	if [ "$1" = kqueue ]; then
		LD_LIBRARY_PATH=$libdir "$work/httpd-$1/inst/bin/httpd" -f "$d/httpd.conf" -DFOREGROUND \
			>"$d/logs/stdout.log" 2>&1 &
	else
		"$work/httpd-$1/inst/bin/httpd" -f "$d/httpd.conf" -DFOREGROUND >"$d/logs/stdout.log" 2>&1 &
	fi
	m=$!
	pids="$pids $m"
	rs_started "$1" "$m" "$p" "$d/logs" httpd
}
start kqueue
start epoll
# shellcheck disable=SC2154
grep -q " $(readlink -f "$libkq")\$" "/proc/$worker_kqueue/maps" ||
	die "httpd (kqueue) has not loaded $libkq"

# check WHICH: the child's epoll waits traced with their stacks while a
# few blocks run: the kqueue build's must come through libkq, the epoll
# build's straight from APR.
check() {
	eval "pw=\$worker_$1"
	strace -f -k -qq -e trace=epoll_wait,epoll_pwait,epoll_pwait2 -o "$work/check-$1.txt" -p "$pw" 2>/dev/null &
	sp=$!
	sleep 1
	rs_load close 1 "$work/check-load-$1.txt"
	rc=$?
	kill -INT $sp
	wait $sp
	[ $rc = 0 ] || die "the traced run failed (see $work/check-load-$1.txt)"
	awk -v w="$1" '
	/^[0-9]+ +epoll_(wait|pwait|pwait2)\(/ { n++; cur = n }
	/^ > / && /libkq\.so/ { kq[cur] = 1 }
	/^ > / && /libapr-1\.so/ { apr[cur] = 1 }
	END {
		for (i in kq) k++
		for (i in apr) a++
		printf "real-server-check build=%s waits=%d via_libkq=%d via_apr=%d\n", w, n, k, a
	}' "$work/check-$1.txt"
}
if strace -f -k -qq -e trace=none true 2>/dev/null; then
	for w in kqueue epoll; do
		# (a die inside the command substitution ends only its subshell)
		line=$(check $w) || { echo "$line"; exit 1; }
		echo "$line"
		set -- $line
		case "$w:$3:$4" in
		kqueue:waits=0:*|epoll:waits=0:*) die "strace saw no wait of httpd ($w) (see $work/check-$w.txt)" ;;
		kqueue:*:via_libkq=0) die "httpd (kqueue) waits without libkq (see $work/check-kqueue.txt)" ;;
		epoll:*:via_libkq=0) ;;
		epoll:*) die "httpd (epoll) waits through libkq (see $work/check-epoll.txt)" ;;
		esac
	done
else
	say "strace cannot unwind stacks here: the waits are not traced"
fi

rs_pin
rs_header apache "$(cat "$httpd_src/.complete")+$(cat "$apr_src/.complete")" threads=$threads quick=$quick
calls="epoll_wait epoll_pwait epoll_pwait2 epoll_ctl io_uring_enter ioctl getsockopt
setsockopt fcntl accept4 read recvfrom writev sendfile64 shutdown openat newfstatat close futex"
rs_measure $cases
rs_done apache '\] \[[a-z_]*:(alert|crit|emerg)\]'
exit 0
