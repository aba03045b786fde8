#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# redis.sh: a real server with its own event loop on libkq.  Redis's ae
# library has an epoll and a kqueue poller, chosen at build time.  Debian's
# redis source is built twice: as it is (epoll), and with ae on kqueue,
# linked with libkq.  Redis's own test suite (tests/, run by runtest,
# which starts its own servers, replicas and forking saves among them) then
# runs on the kqueue build.  A unit that fails there is run again on
# kqueue (many tests are timed), and one that fails twice is run on the
# epoll build: the run passes iff every such unit also fails on epoll.
#
# usage: sh redis.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler
#   WORKDIR  where redis's source, builds and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# The one change made to redis: ae picks its poller in src/config.h, where
# Linux gets epoll unconditionally.  The kqueue build's copy of that file
# lets -DAE_LIBKQ choose kqueue instead; nothing else differs.  Both builds
# use libc's malloc and no TLS or systemd (no more packages needed).  The
# suite wants tclsh, installed (Debian's tcl) when missing and this runs as
# root.  Time: about 20 s per build and about 6 minutes for the suite on 2
# cores.
set -u
here=$(cd "$(dirname "$0")" && pwd)
who=redis
. "$here/debsrc.sh"
take_args "$@"

# build NAME MAKE-ARGS...: a copy of the source in WORKDIR/NAME, built.
build() {
	name=$1
	shift
	tree=$work/$name
	key="$srcdir|$libkq|$cc|$(cat "$src/.complete")|$*"
	if [ "$(cat "$tree/.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$tree" && cp -R "$src" "$tree" || exit 1
		if [ "$name" = kqueue ]; then
			# ae's poller, chosen by config.h: kqueue when AE_LIBKQ
			# is defined (a Linux build otherwise always gets epoll)
			sed -i 's/^#define HAVE_EPOLL 1$/#ifndef AE_LIBKQ\n&\n#else\n#define HAVE_KQUEUE 1\n#endif/' \
				"$tree/src/config.h" || exit 1
			grep -q AE_LIBKQ "$tree/src/config.h" ||
				die "src/config.h has no \"#define HAVE_EPOLL 1\" to make a choice"
		fi
		echo "$key" >"$tree/.key.want"
	fi
	say "building the $name server"
	# Linked again every run: libkq may have changed.
	rm -f "$tree/src/redis-server"
	if ! (cd "$tree" && make -j2 CC="$cc" MALLOC=libc BUILD_TLS=no USE_SYSTEMD=no "$@") \
		>"$work/build-$name.log" 2>&1; then
		tail -30 "$work/build-$name.log"
		die "building redis ($name) failed (see $work/build-$name.log)"
	fi
	[ -f "$tree/.key.want" ] && mv "$tree/.key.want" "$tree/.key"
}

# The poller a build's server reports (INFO's multiplexing_api).
check_api() {
	tree=$work/$1
	port=$2
	"$tree/src/redis-server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize no >"$work/api-$1.log" 2>&1 &
	pid=$!
	got=""
	i=0
	while [ $i -lt 50 ] && [ -z "$got" ]; do
		got=$("$tree/src/redis-cli" -p "$port" info server 2>/dev/null |
			sed -n 's/^multiplexing_api:\([a-z]*\).*/\1/p')
		[ -n "$got" ] || sleep 0.1
		i=$((i + 1))
	done
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	[ "$got" = "$1" ] || die "the $1 build's server says its poller is \"$got\" (see $work/api-$1.log)"
	say "the $1 build's server polls with $got"
}

# Tests skipped on both builds: each fails on the unchanged epoll build
# because Debian's security updates changed redis without its tests (or
# the tests without the code).  One that ends its unit with an exception
# would also leave the rest of the unit unrun and cost two more runs of it.
#   RESTORE fail with invalid payload size   expects "Bad data format";
#       the patched RESTORE says "ERR DUMP payload version or checksum are
#       wrong" first
#   corrupt payload: stream - duplicated consumer PEL entry   waits for a
#       log line the patched server no longer writes
#   Fullsync should not free scripting engine ...   sets
#       repl-diskless-load to "yes", which this version refuses (an
#       exception: the rest of integration/replication never ran)
SKIPTESTS="RESTORE fail with invalid payload size
corrupt payload: stream - duplicated consumer PEL entry
/^Fullsync should not free scripting engine on a replica"

# run_suite NAME BUILD [UNIT...]: runtest on BUILD, over all units or over
# those named; the failing units go to WORKDIR/fail-NAME, the units it
# finished to WORKDIR/done-NAME.
run_suite() {
	name=$1
	build=$2
	tree=$work/$build
	log=$work/suite-$name.log
	shift 2
	for u in "$@"; do
		set -- "$@" --single "$u"
		shift
	done
	skips=$work/skiptests
	printf '%s\n' "$SKIPTESTS" >"$skips"
	t0=$(date +%s)
	# --dont-clean: the servers' directories (their logs) stay in
	# tests/tmp, about 75 MB for the whole suite; kept only for a failing run
	rm -rf "$tree/tests/tmp"
	(cd "$tree" && exec timeout -k 10 900 ./runtest --clients 4 --timeout 600 --dont-clean --skipfile "$skips" "$@") \
		>"$log" 2>&1
	rc=$?
	# runtest's output without its colours
	sed 's/\x1b\[[0-9;]*m//g' "$log" >"$log.plain"
	# "[err]: TEST in tests/unit/x.tcl"; an "[exception]: ..." line names
	# its unit further down, in the Tcl trace: (file "tests/unit/x.tcl" ...)
	{ sed -n 's/^\[err\]: .* in tests\/\([^ ]*\)\.tcl$/\1/p' "$log.plain"
	  sed -n '/^\[exception\]/,/(file "tests\//s/.*(file "tests\/\([^"]*\)\.tcl".*/\1/p' "$log.plain"
	} >"$work/fail-$name"
	note_failures "$name" $rc "$log" "runtest on $build"
	# "[27/84 done]: integration/replication-2 (8 seconds)"
	sed -n 's/^\[[0-9]*\/[0-9]* [a-z]*\]: \([^ ]*\) (.*/\1/p' "$log.plain" |
		sort -u >"$work/done-$name"
	say "$name ($build): $(grep -c '^\[ok\]' "$log.plain") tests passed in" \
	    "$(( $(date +%s) - t0 )) s, $(wc -l <"$work/fail-$name") failing units"
	rm -rf "$work/servers-$name"
	if [ -s "$work/fail-$name" ]; then
		mv "$tree/tests/tmp" "$work/servers-$name" &&
			say "its servers' directories and logs: $work/servers-$name"
	else
		rm -rf "$tree/tests/tmp"
	fi
}

fetch_source redis src/ae_kqueue.c
if ! command -v tclsh >/dev/null 2>&1; then
	is_root || skip "no tclsh to run redis's suite, and not root to install it"
	apt_install tcl || die "cannot install tcl (see $work/apt-install.log)"
fi
build epoll
build kqueue REDIS_CFLAGS="-DAE_LIBKQ -I$srcdir/include" \
	REDIS_LDFLAGS="-L$libdir -Wl,-rpath,$libdir" FINAL_LIBS="-lm -ldl -pthread -lrt -lkq"
ldd "$work/kqueue/src/redis-server" | grep -q libkq || die "the kqueue build does not load libkq"
check_api epoll 21611
check_api kqueue 21612

# The suite's units, in runtest's own list.
sed -n '/^set ::all_tests {/,/^}/s/^ *\([a-z][^ ]*\) *$/\1/p' "$work/kqueue/tests/test_helper.tcl" |
	sort >"$work/all-units"
[ -s "$work/all-units" ] || die "no unit list in tests/test_helper.tcl"

rm -f "$work"/fail-* "$work"/done-*
run_suite kqueue kqueue
# An exception (a server that died, a client error) ends runtest at once:
# the units it had not finished run now, a few rounds at most.
cat "$work/fail-kqueue" "$work/done-kqueue" | sort -u >"$work/reached"
round=1
while [ $round -le 5 ]; do
	comm -23 "$work/all-units" "$work/reached" >"$work/rest"
	[ -s "$work/rest" ] || break
	say "$(wc -l <"$work/rest") units were not reached; running them"
	# shellcheck disable=SC2046
	run_suite "kqueue-rest$round" kqueue $(cat "$work/rest")
	cat "$work/reached" "$work/fail-kqueue-rest$round" "$work/done-kqueue-rest$round" |
		sort -u >"$work/reached.new" && mv "$work/reached.new" "$work/reached"
	sort -u "$work/fail-kqueue" "$work/fail-kqueue-rest$round" >"$work/fail.new" &&
		mv "$work/fail.new" "$work/fail-kqueue"
	round=$((round + 1))
done
comm -23 "$work/all-units" "$work/reached" >"$work/never"
[ -s "$work/never" ] && die "units never run on kqueue: $(tr '\n' ' ' <"$work/never")"
judge "redis's suite ($(wc -l <"$work/all-units") units)" "units"
