#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# nng.sh: nng (nanomsg-next-gen, the scalability protocols over tcp, ipc,
# websocket and inproc) with its kqueue poller, on libkq.  nng chooses its
# poller when it is configured, by what the system's headers have: event
# ports, else kqueue, else epoll.  Its kqueue poller is one thread sleeping
# in kevent() with no timeout over one kqueue; every socket has a READ and
# a WRITE knote added disabled (EV_ADD|EV_DISABLE|EV_CLEAR) and armed from
# any thread, while that thread sleeps, with EV_ENABLE|EV_DISPATCH|EV_CLEAR;
# a pipe wakes it.  A knote enabled on a descriptor that is ready already
# must be reported then: nng waits for nothing else.
#
# Debian's nng source is built twice with its own CMake files: with the
# kqueue poller, against libkq's headers and linked with libkq, and as it
# is (epoll).  nng's own suite (about 80 programs under ctest) runs on the
# kqueue build, under the rule of the other suites: a test that fails is
# run again on kqueue, and one that fails twice must fail on the epoll
# build too.  Then the transport tests of tcp, ipc and websocket
# (nng.sp.transport.{tcp,ipc,ws}.*_test, a few tenths of a second each)
# are run NNG_RUNS times each (100 unless set), two at a time, each run
# stopped after NNG_LIMIT seconds (20 unless set): an event libkq does not
# report shows as a run that never ends, which one run of the suite seldom
# meets.  A run that hangs or fails is named by the test case it hung in
# or failed (the programs run their cases one by one, and say which); for
# each case that hung (or failed) on kqueue, the test is run on the epoll
# build until that case hangs (or fails) there too, up to four times as
# many runs, and the run fails if some case does not.  The state of the
# first two hung runs of each test (every thread's system call and kernel
# stack, every descriptor's fdinfo: those of libkq's epoll instances list
# the entries it registered with their event masks, the sockets' queues,
# and with gdb the threads' stacks) is kept in WORKDIR/loop/hang-*.txt.
#
# usage: sh nng.sh SRCDIR LIBKQ CMAKE WORKDIR [loop [TEST...]]
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CMAKE    the cmake to configure nng with (the system's C compiler
#            builds it)
#   WORKDIR  where nng's source, builds and logs go (cached)
#   loop     only the runs of the transport tests (or of the TESTs named:
#            tcp_test, ipc_test, ws_test, or another of nng's programs
#            under src/), under the same rule, without the suite
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# The builds in WORKDIR are made again only for another LIBKQ path (or
# source); the kqueue build loads LIBKQ where it is, so a libkq rebuilt
# in place is tried without building nng again, e.g.
#   NNG_RUNS=500 sh nng.sh SRCDIR LIBKQ cmake WORKDIR loop tcp_test ws_test
#
# Isolation.  nng's newer tests take their TCP ports from 38000-39999, in
# Linux's range of ephemeral ports: a port one test is about to listen on
# can be the local port of some other connection then (another test's, or
# anything else's on the machine), its listener fails (EADDRINUSE), its
# dial is refused, and the send that follows waits for ever.  This happens
# on epoll as on kqueue and says nothing about either.  As root (with
# unshare and ip), every test program therefore runs in network and mount
# namespaces of its own: the loopback interface up with one more address
# of each family (glibc's AI_ADDRCONFIG, which nng's resolver uses, counts
# no loopback address), ephemeral ports from 40000 up, and host names
# looked up in /etc/hosts only (no DNS: the tests that resolve names that
# do not exist then get the same answer everywhere).  Without that (or
# with NNG_ISOLATE=0), a run whose output says EADDRINUSE is counted
# apart, and neither as a failure nor as a hang.
#
# Debian's package leaves out the tests that need the network of its
# build machines; those of them that only ever use 127.0.0.1 (tcp_test,
# ws_test, websocket_test) are put back, in a copy of the source (those
# that resolve outside names, resolver_test and httpclient, stay out).
# That copy also gives the tests of src/ 60 seconds each instead of 180
# (they take under one), so that a hang in the suite costs less, and
# keeps two stress tests that would take the same ports apart.  Both
# builds leave out TLS (it needs mbedtls) and nng's tools.
#
# LIBKQ may be an AddressSanitizer build of libkq: nng and its tests are
# not instrumented, so the sanitizer's runtime is preloaded into the kqueue
# build's tests, and an error it finds in libkq fails that test.  Leak
# reports are off: they would be the tests'.
#
# Time on 2 cores: about 60 s for the kqueue build, 30 s for the epoll
# build, 45 s for the suite, 20 s for each 100 runs of a transport test,
# and NNG_LIMIT / 2 seconds more for each hung run: about 5 minutes from
# an empty WORKDIR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
who=nng
. "$here/debsrc.sh"
[ $# -ge 4 ] || die "usage: sh nng.sh SRCDIR LIBKQ CMAKE WORKDIR [loop [TEST...]]"
take_args "$1" "$2" "$3" "$4"
cmake=$cc   # the third argument is the cmake to configure with
shift 4
mode=all
if [ "${1:-}" = loop ]; then
	mode=loop
	shift
fi
loop_tests=${*:-tcp_test ipc_test ws_test}

# Cases left out of the runs ("TEST: CASE" lines), with the reason.  They
# still run in the suite.
#   ws wild card port  closes a websocket listener while a connection to
#       it may still be in the HTTP server's hands: ws_listener_close()
#       holds the listener's lock and waits in nni_http_server_stop() for
#       that connection's handler, which waits for the lock (ws_handler).
#       The run hangs, on epoll as on kqueue (in about 1 and 5 runs in
#       100 of ws_test).
loop_excluded="ws_test: ws wild card port"
runs=${NNG_RUNS:-100}
limit=${NNG_LIMIT:-20}
case "$runs$limit" in
*[!0-9]*) die "NNG_RUNS and NNG_LIMIT must be numbers" ;;
esac
[ "$runs" -ge 1 ] && [ "$limit" -ge 1 ] || die "NNG_RUNS and NNG_LIMIT must be at least 1"

# prepare_tree: WORKDIR/tree, the copy of the source both builds are made
# from (see above), made again when the source is another.
prepare_tree() {
	tree=$work/tree
	pt_key="$(cat "$src/.complete")|tests back, timeouts, stress lock"
	[ "$(cat "$tree/.key" 2>/dev/null)" = "$pt_key" ] && return 0
	rm -rf "$tree" && cp -R "$src" "$tree" || exit 1
	sed -i 's/^#nng_test(tcp_test)/nng_test(tcp_test)/' \
		"$tree/src/sp/transport/tcp/CMakeLists.txt"
	sed -i 's/^#nng_test_if(WS_ON ws_test)/nng_test_if(WS_ON ws_test)/' \
		"$tree/src/sp/transport/ws/CMakeLists.txt"
	sed -i 's/^#nng_test(websocket_test)/nng_test(websocket_test)/' \
		"$tree/src/supplemental/websocket/CMakeLists.txt"
	sed -i 's/\(set_tests_properties(.*PROPERTIES TIMEOUT\) 180)/\1 60)/' \
		"$tree/cmake/NNGHelpers.cmake"
	# multistress and reqstress seed rand() with time() and take their
	# ports from it: started in the same second, as ctest -j 2 starts
	# them, they take the same ports and one fails at once (EADDRINUSE)
	cat >>"$tree/tests/CMakeLists.txt" <<-'EOF'
	if (NNG_TESTS)
	    set_tests_properties(nng.multistress nng.reqstress PROPERTIES RESOURCE_LOCK stress_ports)
	endif ()
	EOF
	grep -q '^nng_test(tcp_test)' "$tree/src/sp/transport/tcp/CMakeLists.txt" &&
		grep -q '^nng_test_if(WS_ON ws_test)' "$tree/src/sp/transport/ws/CMakeLists.txt" ||
		die "cannot put tcp_test and ws_test back in nng's tests (another source?)"
	echo "$pt_key" >"$tree/.key"
}

# build WHICH: nng and its tests configured with the WHICH poller (kqueue
# or epoll) in WORKDIR/WHICH, configured again only when something it was
# configured from changed.
build() {
	b_which=$1
	b_dir=$work/$b_which
	b_key="$srcdir|$libkq|$(cat "$tree/.key")|$b_which"
	if [ "$(cat "$b_dir/.key" 2>/dev/null)" != "$b_key" ]; then
		rm -rf "$b_dir"
		set --
		if [ "$b_which" = kqueue ]; then
			# The check for kqueue() in the headers links a program
			# (check_symbol_exists), hence the required library;
			# the flags of every link line come after the objects
			# (a flag before them would be dropped by --as-needed),
			# the C++ ones for nng's one C++ test.
			set -- -DCMAKE_C_FLAGS="-I$srcdir/include" \
				-DCMAKE_REQUIRED_LIBRARIES="$libkq" \
				-DCMAKE_C_STANDARD_LIBRARIES="-L$libdir -Wl,-rpath,$libdir -lkq" \
				-DCMAKE_CXX_STANDARD_LIBRARIES="-L$libdir -Wl,-rpath,$libdir -lkq"
		fi
		b_gen=""
		command -v ninja >/dev/null 2>&1 && b_gen="-GNinja"
		say "configuring nng ($b_which)"
		if ! "$cmake" -S "$tree" -B "$b_dir" $b_gen -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DNNG_TESTS=ON -DNNG_TOOLS=OFF -DNNG_ENABLE_NNGCAT=OFF \
			-DNNG_ENABLE_TLS=OFF -DNNG_ENABLE_DOC=OFF "$@" \
			>"$work/configure-$b_which.log" 2>&1; then
			tail -20 "$work/configure-$b_which.log"
			die "configuring nng ($b_which) failed (see $work/configure-$b_which.log)"
		fi
		# the poller nng chose: event ports first, then kqueue
		if [ "$b_which" = kqueue ]; then
			grep -q '^NNG_HAVE_KQUEUE:INTERNAL=1$' "$b_dir/CMakeCache.txt" ||
				die "nng found no kqueue in libkq's headers (see $work/configure-$b_which.log)"
		else
			grep -q '^NNG_HAVE_KQUEUE:INTERNAL=1$' "$b_dir/CMakeCache.txt" &&
				die "the epoll build of nng found a kqueue"
		fi
		echo "$b_key" >"$b_dir/.key.want"
	fi
	say "building nng ($b_which)"
	if ! "$cmake" --build "$b_dir" -j 2 >"$work/build-$b_which.log" 2>&1; then
		tail -30 "$work/build-$b_which.log"
		die "building nng ($b_which) failed (see $work/build-$b_which.log)"
	fi
	[ -f "$b_dir/.key.want" ] && mv "$b_dir/.key.want" "$b_dir/.key"
	# nng's tests link its library statically: the transport tests are
	# what is checked
	for b_t in tcp_test ipc_test ws_test; do
		b_p=$(find "$b_dir/src" -type f -name "$b_t" | head -1)
		[ -n "$b_p" ] || die "the $b_which build made no $b_t"
		if [ "$b_which" = kqueue ]; then
			ldd "$b_p" | grep -q "$libdir/libkq" ||
				die "the kqueue build's $b_t does not load $libdir's libkq"
			nm -D "$b_p" | grep -q ' U kevent\($\|@\)' ||
				die "the kqueue build's $b_t does not call kevent()"
			nm -D "$b_p" | grep -q ' U epoll_\(p\)\{0,1\}wait' &&
				die "the kqueue build's $b_t still calls epoll_wait()"
		else
			nm -D "$b_p" | grep -q ' U epoll_wait' ||
				die "the epoll build's $b_t does not call epoll_wait()"
		fi
	done
	return 0
}

# built WHICH: build WHICH, once in this run.
built() {
	case " ${done_builds:-} " in
	*" $1 "*) ;;
	*) build "$1"; done_builds="${done_builds:-} $1" ;;
	esac
}

# The namespaces' set-up (see Isolation above), run by sh -c with the
# nsswitch.conf to use as $0 and the command as its arguments.
iso_setup='ip link set lo up &&
ip addr add 198.51.100.1/32 dev lo &&
ip -6 addr add 2001:db8::1/128 dev lo nodad &&
echo "40000 60999" >/proc/sys/net/ipv4/ip_local_port_range &&
mount --bind "$0" /etc/nsswitch.conf &&
exec "$@"'

# isolation_check: iso=1 when the test programs can run isolated (and
# NNG_ISOLATE is not 0).
isolation_check() {
	iso=""
	[ "${NNG_ISOLATE:-1}" = 0 ] && return 0
	is_root || return 0
	command -v unshare >/dev/null 2>&1 && command -v ip >/dev/null 2>&1 || return 0
	printf 'passwd: files\ngroup: files\nhosts: files\n' >"$work/nsswitch.conf"
	if unshare -n -m sh -c "$iso_setup" "$work/nsswitch.conf" \
		grep -q '^40000[[:space:]]' /proc/sys/net/ipv4/ip_local_port_range \
		>"$work/isolation.log" 2>&1; then
		iso=1
	fi
}

# run_exec CMD...: exec CMD (in a subshell), isolated when it can be, in
# a process group of its own (whose id is its process id: setsid forks
# only a group's leader, which a subshell is not).
run_exec() {
	if [ -n "$iso" ]; then
		exec setsid -w unshare -n -m sh -c "$iso_setup" "$work/nsswitch.conf" "$@"
	fi
	exec setsid -w "$@"
}

# run_suite NAME WHICH [TEST...]: nng's ctest suite on the WHICH build, all
# of it or the tests named; the failing ones go to WORKDIR/fail-NAME.
run_suite() {
	rs_name=$1
	rs_which=$2
	built "$rs_which"
	rs_log=$work/suite-$rs_name.log
	shift 2
	if [ $# -gt 0 ]; then
		set -- -R "^($(echo "$@" | tr ' ' '|'))\$"
	fi
	rs_t0=$(date +%s)
	(
		cd "$work/$rs_which" || exit 1
		if [ -n "$asan" ] && [ "$rs_which" = kqueue ]; then
			set -- env LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0 \
				ctest -j 2 --timeout 120 --output-on-failure "$@"
		else
			set -- ctest -j 2 --timeout 120 --output-on-failure "$@"
		fi
		run_exec "$@"
	) >"$rs_log" 2>&1
	rs_rc=$?
	# "	 12 - nng.name (Failed)" after "The following tests FAILED:"
	sed -n '/^The following tests FAILED:/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$rs_log" \
		>"$work/fail-$rs_name"
	note_failures "$rs_name" $rs_rc "$rs_log" "ctest on $rs_which"
	say "$rs_name ($rs_which): $(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\)/\2 run, \1 failed/p' "$rs_log")" \
	    "in $(( $(date +%s) - rs_t0 )) s"
	return 0
}

# test_command WHICH TEST: the ctest name of TEST (a program's name, e.g.
# tcp_test), then its working directory, then its command, each on a line,
# as the WHICH build's ctest has them.
test_command() {
	(cd "$work/$1" && ctest -N -V -R "^nng\\..*\\.$2\$") >"$work/loop/ctest-N.log" 2>&1
	sed -n 's/^ *Test *#[0-9]*: \(nng\..*\)$/\1/p' "$work/loop/ctest-N.log"
	sed -n 's/^[0-9]*: Working Directory: //p' "$work/loop/ctest-N.log"
	sed -n 's/^[0-9]*: Test command: //p' "$work/loop/ctest-N.log"
}

# group PID: PID and its descendants (a hung test program and the child
# it runs each test case in).
group() {
	echo "$1"
	for g_c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		group "$g_c"
	done
}

# capture PID FILE: what a hung run (the process group PID) is doing, into
# FILE.
capture() {
	c_pids=$(group "$1")
	{
		for c_p in $c_pids; do
			echo "# pid $c_p: $(tr '\0' ' ' <"/proc/$c_p/cmdline")"
			for c_task in /proc/"$c_p"/task/*; do
				echo "## thread ${c_task##*/} ($(cat "$c_task/comm")):" \
				     "wchan $(cat "$c_task/wchan" 2>/dev/null)," \
				     "syscall $(cat "$c_task/syscall" 2>/dev/null)"
				cat "$c_task/stack" 2>/dev/null
			done
			echo "## descriptors (fdinfo: an epoll's registered entries are its tfd lines)"
			for c_fd in /proc/"$c_p"/fd/*; do
				echo "fd ${c_fd##*/} -> $(readlink "$c_fd")"
				sed 's/^/    /' "/proc/$c_p/fdinfo/${c_fd##*/}" 2>/dev/null
			done
		done
		if command -v ss >/dev/null 2>&1; then
			echo "# sockets (ss: Recv-Q and Send-Q are the bytes queued)"
			c_re="pid=\\($(echo $c_pids | sed 's/ /\\|/g')\\),"
			if [ -n "$iso" ] && command -v nsenter >/dev/null 2>&1; then
				set -- nsenter -t "$1" -n
			else
				set --
			fi
			"$@" ss -tanpe 2>/dev/null | grep "$c_re"
			"$@" ss -xanpe 2>/dev/null | grep "$c_re"
		fi
		if command -v gdb >/dev/null 2>&1; then
			for c_p in $c_pids; do
				echo "# pid $c_p: threads' stacks (gdb)"
				timeout 60 gdb -p "$c_p" -batch -ex 'thread apply all bt' 2>&1 |
					grep -v '^\[New LWP\|^\[Thread debugging\|^Using host libthread'
			done
		fi
	} >"$2" 2>&1
}

# classify RUN LOG STATUS: the result line(s) of the run named RUN, whose
# output is LOG, ended with STATUS ("hang" when it was stopped): "RUN pass",
# "RUN port" or "RUN port hang" (a listener found its port taken, and the
# run failed or hung), "RUN hang CASE", or "RUN fail CASE" for each case
# that failed.  The programs print "Test CASE:" as each case begins, then
# its checks ("... failed").
classify() {
	if [ "$3" = 0 ]; then
		echo "$1 pass"
	elif grep -q 'Address in use' "$2"; then
		if [ "$3" = hang ]; then echo "$1 port hang"; else echo "$1 port"; fi
	elif [ "$3" = hang ]; then
		echo "$1 hang $(sed -n 's/^Test \(.*\):$/\1/p' "$2" | tail -1)"
	else
		awk -v run="$1" '
			/^Test .*:$/ { c = substr($0, 6, length($0) - 6) }
			/\.\.\. failed$|ERROR: / { if (!(c in seen)) { seen[c]; print run " fail " c; n++ } }
			END { if (n == 0) print run " fail (status " st ")" }' st="$3" "$2"
	fi
}

# all_seen WANT SEEN FILE...: every line of WANT ("hang CASE", "fail
# CASE") is among the results in FILEs (which are written to SEEN).
all_seen() {
	as_want=$1
	as_seen=$2
	shift 2
	cat "$@" 2>/dev/null | cut -d' ' -f2- | sort -u >"$as_seen"
	[ -z "$(comm -23 "$as_want" "$as_seen")" ]
}

# loop_worker WHICH TEST RUNS ID [WANT]: RUNS runs of TEST on the WHICH
# build, one after another, each stopped after $limit s (stopping early
# once every result of the file WANT has been seen); the results, as
# classify has them, in WORKDIR/loop/WHICH-TEST.ID, the output of the first
# failing runs in WORKDIR/loop/fail-WHICH-TEST-ID-N.log.
loop_worker() {
	lw_which=$1 lw_t=$2 lw_n=$3 lw_id=$4 lw_want=${5:-}
	lw_out=$work/loop/$lw_which-$lw_t.$lw_id
	lw_log=$work/loop/run-$lw_which-$lw_t.$lw_id.log
	: >"$lw_out"
	lw_i=0
	while [ "$lw_i" -lt "$lw_n" ]; do
		if [ -n "$lw_want" ] &&
		   all_seen "$lw_want" "$lw_out.seen" "$work/loop/$lw_which-$lw_t".?; then
			break
		fi
		lw_i=$((lw_i + 1))
		(
			cd "$lw_dir" || exit 1
			eval "set -- $lw_cmd"
			# line buffered: a hung run's output names its case
			command -v stdbuf >/dev/null 2>&1 && set -- stdbuf -oL -eL "$@"
			# (stdbuf adds its library after those preloaded)
			if [ -n "$asan" ] && [ "$lw_which" = kqueue ]; then
				set -- env LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0 "$@"
			fi
			run_exec "$@"
		) >"$lw_log" 2>&1 &
		lw_pid=$!
		lw_t1=$(date +%s)
		lw_rc=""
		while kill -0 "$lw_pid" 2>/dev/null; do
			if [ $(( $(date +%s) - lw_t1 )) -ge "$limit" ]; then
				lw_rc=hang
				break
			fi
			sleep 0.05
		done
		if [ "$lw_rc" = hang ]; then
			# the state of the first two hangs of a test on a build
			if [ "$(ls "$work/loop/" | grep -c "^hang-$lw_which-$lw_t-.*\.txt$")" -lt 2 ]; then
				lw_f=$work/loop/hang-$lw_which-$lw_t-$lw_id$lw_i
				capture "$lw_pid" "$lw_f.txt"
				cp "$lw_log" "$lw_f.log"
			fi
			for lw_p in $(group "$lw_pid"); do
				env kill -s KILL -- "-$lw_p" "$lw_p" 2>/dev/null
			done
			wait "$lw_pid" 2>/dev/null
		else
			wait "$lw_pid"
			lw_rc=$?
		fi
		classify "$lw_id$lw_i" "$lw_log" "$lw_rc" >>"$lw_out"
		if [ "$lw_rc" != 0 ] && [ "$lw_rc" != hang ] &&
		   [ "$(ls "$work/loop/" | grep -c "^fail-$lw_which-$lw_t-")" -lt 3 ]; then
			cp "$lw_log" "$work/loop/fail-$lw_which-$lw_t-$lw_id$lw_i.log"
		fi
	done
}

# loop WHICH TEST RUNS [WANT]: RUNS runs of TEST on the WHICH build, two
# at a time (isolated, or taking their ports from a file that they lock,
# in their working directory), stopping early as loop_worker says; the
# results of all in WORKDIR/loop/WHICH-TEST.runs, and its counts, "RUNS
# FAILED HUNG PORT-TAKEN", in WORKDIR/loop/WHICH-TEST.
loop() {
	l_which=$1 l_t=$2 l_n=$3 l_want=${4:-}
	built "$l_which"
	rm -f "$work/loop/$l_which-$l_t".* "$work/loop/hang-$l_which-$l_t-"* \
		"$work/loop/fail-$l_which-$l_t-"*
	test_command "$l_which" "$l_t" >"$work/loop/cmd"
	l_name=$(sed -n 1p "$work/loop/cmd")
	lw_dir=$(sed -n 2p "$work/loop/cmd")
	lw_cmd=$(sed -n 3p "$work/loop/cmd")
	[ -n "$l_name" ] && [ -n "$lw_cmd" ] && [ -d "$lw_dir" ] ||
		die "no ctest test of the $l_which build runs $l_t (see $work/loop/ctest-N.log)"
	# The cases left out (see loop_excluded) by naming all the others,
	# which the program then runs each in a child process of its own, as
	# it does all of them when none is named.  (Not --skip: a program that
	# is given one name, or --skip, or is traced, runs its cases in one
	# process, and nng's kqueue poller does not start again after the
	# nng_fini() that ends each case: its "closed" flag stays set, and the
	# second case hangs on kqueue, not on epoll.)
	l_skip=$(echo "$loop_excluded" | sed -n "s/^$l_t: //p")
	if [ -n "$l_skip" ]; then
		l_pre=""
		[ -n "$asan" ] && [ "$l_which" = kqueue ] && l_pre=$asan
		l_cases=$(eval "set -- $lw_cmd" && cd "$lw_dir" &&
			env ${l_pre:+LD_PRELOAD="$l_pre"} "$1" --list |
			sed -n 's/^  //p' | grep -vxF "$l_skip")
		[ "$(echo "$l_cases" | wc -l)" -ge 2 ] ||
			die "$l_t --list names too few cases (left out: $l_skip)"
		lw_cmd="$lw_cmd $(echo "$l_cases" | sed 's/.*/"&"/' | tr '\n' ' ')"
		say "$l_t: left out of the runs (see nng.sh): $(echo "$l_skip" | tr '\n' ' ')"
	fi
	l_t0=$(date +%s)
	loop_worker "$l_which" "$l_t" $(( (l_n + 1) / 2 )) a "$l_want" &
	l_w=$!
	loop_worker "$l_which" "$l_t" $(( l_n / 2 )) b "$l_want"
	wait "$l_w"
	l_runs=$work/loop/$l_which-$l_t.runs
	cat "$work/loop/$l_which-$l_t".? >"$l_runs"
	# the runs whose result (after the run's name) begins with the words $1
	count() {
		awk -v k="$1" '{ r = $1; sub(/^[^ ]* /, ""); if (index($0 " ", k " ") == 1) print r }' \
			"$l_runs" | sort -u | wc -l
	}
	echo "$(cut -d' ' -f1 "$l_runs" | sort -u | wc -l) $(count fail) $(count hang) $(count port)" \
		>"$work/loop/$l_which-$l_t"
	read -r l_r l_f l_h l_p <"$work/loop/$l_which-$l_t"
	l_port=""
	[ "$l_p" = 0 ] ||
		l_port=", $l_p with a port taken ($(count 'port hang') hung; not counted)"
	say "$l_name ($l_which): $l_r runs, $l_f failed, $l_h hung (limit $limit s)$l_port," \
	    "in $(( $(date +%s) - l_t0 )) s"
	awk '$2 == "hang" || $2 == "fail"' "$l_runs" | cut -d' ' -f2- | sort | uniq -c |
		sed 's/^ */    /'
	[ "$l_f" = 0 ] || say "    first failures' output: $work/loop/fail-$l_which-$l_t-*.log"
	[ "$l_h" = 0 ] || say "    first hangs' state: $work/loop/hang-$l_which-$l_t-*.txt"
	return 0
}

# loops: the runs of every test of loop_tests on kqueue, and on epoll those
# of a test with cases that hung or failed; the cases that count (seen on
# kqueue, not on epoll) in WORKDIR/loop-kqueue-only.
loops() {
	: >"$work/loop-kqueue-only"
	for ls_t in $loop_tests; do
		loop kqueue "$ls_t" "$runs"
	done
	for ls_t in $loop_tests; do
		ls_want=$work/loop/want-$ls_t
		cut -d' ' -f2- "$work/loop/kqueue-$ls_t.runs" | grep '^\(hang\|fail\) ' |
			sort -u >"$ls_want"
		[ -s "$ls_want" ] || continue
		read -r ls_r ls_f ls_h ls_p <"$work/loop/kqueue-$ls_t"
		say "$ls_t on epoll: until each case that hung or failed on kqueue does"
		loop epoll "$ls_t" $((4 * ls_r)) "$ls_want"
		all_seen "$ls_want" "$ls_want.seen" "$work/loop/epoll-$ls_t.runs"
		comm -23 "$ls_want" "$ls_want.seen" | while read -r ls_what; do
			echo "$ls_t: $ls_what ($(cut -d' ' -f2- "$work/loop/kqueue-$ls_t.runs" |
				grep -cxF "$ls_what")" \
			     "of $ls_r runs on kqueue, none of" \
			     "$(cut -d' ' -f1 "$work/loop/epoll-$ls_t.runs" | sort -u | wc -l) on epoll)"
		done >>"$work/loop-kqueue-only"
	done
	return 0
}

fetch_source nng src/platform/posix/posix_pollq_kqueue.c
command -v "$cmake" >/dev/null 2>&1 || skip "no cmake ($cmake) to build nng with"
prepare_tree
mkdir -p "$work/loop" || exit 1

# a sanitized libkq: the runtime programs must load first
asan=$(asan_runtime)
[ -n "$asan" ] && say "libkq is built with AddressSanitizer: preloading $asan"
isolation_check
if [ -n "$iso" ]; then
	say "test programs run in network and mount namespaces of their own"
else
	say "test programs run in this system's network (NNG_ISOLATE=0, not root, or no" \
	    "unshare or ip): a run whose port was taken is not counted"
fi

t_start=$(date +%s)
built kqueue
rm -f "$work"/fail-*
if [ "$mode" = all ]; then
	run_suite kqueue kqueue
fi
loops
if [ "$mode" = all ]; then
	# judge() exits: it runs in a subshell, and the runs' verdict is added
	(judge "nng's suite${asan:+ (libkq under AddressSanitizer)}" "tests")
	suite_rc=$?
else
	suite_rc=0
fi
say "in all $(( $(date +%s) - t_start )) s"
if [ -s "$work/loop-kqueue-only" ]; then
	say "FAIL: cases that hung or failed on kqueue only:"
	sed 's/^/    /' "$work/loop-kqueue-only"
	exit 1
fi
[ "$suite_rc" = 0 ] || exit "$suite_rc"
say "PASS: no case of $loop_tests hung or failed on kqueue only ($runs runs each)"
exit 0
