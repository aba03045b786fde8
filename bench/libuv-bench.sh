#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libuv-bench.sh: libuv's own benchmarks, its kqueue loop on libkq against
# its epoll loop, in one run.  Debian's libuv1 source is built twice, as
# test/integration/libuv.sh builds it: as it is (epoll), and with its
# kqueue loop on libkq (edit_kqueue_tree(), from libuv-kqueue-tree.sh,
# which that script sources too, so the two builds stay the same).  Each build's benchmark
# runner (uv_run_benchmarks_a, libuv statically linked) runs the
# benchmarks below; the two builds take turns, benchmark by benchmark, in
# rounds, the build going first alternating from round to round, so that
# a machine growing busier or quieter weighs on both alike.  The figure is
# each build's median over the rounds, the ratio the median of the
# rounds' ratios; every run is pinned to one processor (see pin).
#
# usage: sh bench/libuv-bench.sh LIBKQ WORKDIR [--quick]
#   LIBKQ    libkq's shared library (a build tree's src/libkq.so)
#   WORKDIR  where libuv's source, the two builds and the logs go (cached:
#            the source is fetched and each build made once)
#   --quick  fewer rounds (a check that it works; the figures are rough)
# The cmake that configures libuv is $CMAKE, or cmake from PATH.
# exit: 0 measured; 1 a build or a benchmark failed; 77 skipped (no source
# to be had, no cmake, or a libkq built with AddressSanitizer), with the
# reason on the last line.
#
# Output (stdout), one line per result, key=value fields:
#   libuv-bench-method  what was run: libuv's version, rounds, lengths,
#                       how the kqueue runner finds libkq (loading=path:
#                       by its path, as installed; runpath: searched)
#   libuv-bench-run     one benchmark run: name, build, round, value
#   libuv-bench         per benchmark: name, unit (rate: higher is better;
#                       time: lower is better), each build's median, ratio
#                       (> 1 means the kqueue build is faster: the median
#                       of the rounds' ratios, each of two runs made back
#                       to back), ratio_low and ratio_high (the lowest and
#                       highest round's), rounds, the spread of each
#                       build's runs (range over median, %),
#                       cpu="<processor>"
#   libuv-bench-cause   for a ratio under 1.00 (as shown, to 2 places):
#                       system calls per operation of both builds (every
#                       process of the run: the runner, the benchmark and
#                       its helper), counted by perf's syscall tracepoints
#                       in one more run of each; the failed ones (an error
#                       returned); each build's five most made and three
#                       most failed calls per operation; op="<operation>"
#   libuv-bench-profile for the same: where the kqueue build's CPU time
#                       goes (perf record), libkq's share and its top five
# Messages start with "libuv-bench:".
#
# The benchmarks are shortened (both builds alike, edit_bench_tree below):
# at libuv's own lengths (5 s windows, 10 s of tcp4_pound_100, 10 million
# timers, a million async round trips, 1 s pause after each) one round of
# both builds took about 3 minutes on 2 cores; shortened, about 35 s, so
# that several rounds fit in 5 minutes.  The rates are of the same code.
# Time on 2 cores: about 30 s to fetch and build both the first time; then
# about 3 minutes of rounds (--quick: 70 s) and about 15 s for each
# benchmark whose cause is measured: 4 to 5 minutes in all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
who=libuv-bench
# debsrc.sh is the integration scripts' way of getting a Debian source
# (apt-get source, deb-src entries added when missing) and of reporting:
# say, skip (exit 77), die (exit 1); and of taking this script's arguments.
. "$top/test/integration/debsrc.sh"
bench_args "${CMAKE:-cmake}" "$@"
cmake=$cc   # take_args's third argument: here the cmake to configure with

# The kqueue build's edits are the ones libuv.sh's suite runs on
# (edit_kqueue_tree, shared), so the benchmarks measure that same libuv.
kq_tree_sh=$top/test/integration/libuv-kqueue-tree.sh
. "$kq_tree_sh"
kq_edit=$(cat "$kq_tree_sh")

# The lengths the benchmarks are shortened to (see edit_bench_tree).
window_s=2       # ping_pongs, the two pumps, million_async (libuv: 5 s)
pound_s=3        # tcp4_pound_100 (libuv: 10 s)
pings=50000      # async1's round trips between two threads (libuv: 1000000)
timers=1000000   # million_timers's timers (libuv: 10000000, 10 s of timers)
spawns=1000      # spawn's children (libuv's own number, not changed)
pause_ms=200     # the runner's pause after a benchmark (libuv: 1000 ms)

# The benchmarks run, by the runner's names, and the rounds.
benches="ping_pongs pipe_pump1_client tcp_pump1_client tcp4_pound_100 async1 loop_count spawn million_timers million_async"
rounds=5
[ $quick = 1 ] && rounds=2

# change FILE OLD NEW: the one line of FILE that reads exactly OLD becomes
# NEW.  Dies unless there is exactly one: an edit that quietly missed
# would leave a benchmark at another length than the one reported.
change() {
	awk -v old="$2" -v new="$3" '
	$0 == old { print new; n++; next }
	{ print }
	END { exit n != 1 }' "$1" >"$1.new" ||
		die "$1: no line reading \"$2\" (or more than one): a libuv this script does not know"
	mv "$1.new" "$1" || exit 1
}

# edit_bench_tree DIR: the benchmarks of the copy DIR shortened, on both
# builds alike.  Each one's own code is left as it is; only how long it
# runs (a window of time or a count) and the runner's pause change.
edit_bench_tree() {
	b=$1/test
	# the fixed windows the rates are measured over
	change "$b/benchmark-ping-pongs.c" "#define TIME 5000" "#define TIME ${window_s}000"
	# (the pumps run STATS_COUNT intervals of STATS_INTERVAL, 1000 ms)
	change "$b/benchmark-pump.c" "#define STATS_COUNT                 5" \
		"#define STATS_COUNT                 $window_s"
	change "$b/benchmark-million-async.c" "  timeout = 5000;" "  timeout = ${window_s}000;"
	change "$b/benchmark-pound.c" "  if (uv_now(loop) - start < 10000) {" \
		"  if (uv_now(loop) - start < ${pound_s}000) {"
	# the fixed counts the times are of: a 10-million timer run is 10 s of
	# waiting for the last timer, a million async round trips took 25 s
	# to over a minute here
	change "$b/benchmark-million-timers.c" "#define NUM_TIMERS (10 * 1000 * 1000)" \
		"#define NUM_TIMERS ($timers)"
	change "$b/benchmark-async.c" "#define NUM_PINGS (1000 * 1000)" "#define NUM_PINGS ($pings)"
	# spawn's count is kept; checked, since the operations are counted by it
	change "$b/benchmark-spawn.c" "static int N = 1000;" "static int N = $spawns;"
	# The runner pauses 1 s after each benchmark for its helper servers to
	# finish on their own; it ends them (SIGTERM) and waits for them after
	# the pause anyway, and their output is not used.
	change "$b/runner.c" "    uv_sleep(1000);" "    uv_sleep($pause_ms);"
}

# snapshot_libkq: the libkq the kqueue runner loads is a copy of LIBKQ in
# WORKDIR/lib, under its soname, made anew at the start of each run; the
# runner is linked against the copy (its RUNPATH is WORKDIR/lib).  A
# rebuild of libkq's build tree during the run (seen here: a run failed
# on a half-written libkq.so) then neither breaks a run nor mixes two
# libkqs in one set of figures.  Written beside and renamed, so that a
# runner still mapping the old copy is not disturbed.
snapshot_libkq() {
	soname=$(objdump -p "$libkq" 2>/dev/null | sed -n 's/^ *SONAME *//p')
	mkdir -p "$work/lib" || exit 1
	kqcopy=$work/lib/${soname:-libkq.so.0}
	cp "$libkq" "$kqcopy.new" && mv "$kqcopy.new" "$kqcopy" || die "cannot copy $libkq to $work/lib"
	# the name the kqueue build links with: CMake gives the runner a
	# RUNPATH only for a path it sees is a shared library's (*.so)
	[ "$kqcopy" = "$work/lib/libkq.so" ] || ln -sf "$(basename "$kqcopy")" "$work/lib/libkq.so" || exit 1
	kqsum=$(cksum <"$kqcopy" | awk '{ print $1 }')
}

# build WHICH: the WHICH (kqueue or epoll) benchmark runner, in
# WORKDIR/WHICH from the edited copy WORKDIR/WHICH-src.  Built again when
# the source, libkq's path or either edit changes (the key); a rebuilt
# libkq needs no rebuild: the runner loads the copy made at each start.
build() {
	which=$1
	bdir=$work/$which
	edits=$( { echo "$kq_edit"; sed -n '/^edit_bench_tree() {$/,/^}$/p' "$0";
		   echo "$window_s $pound_s $pings $timers $spawns $pause_ms"; } | cksum)
	# the benchmarks are built only with the tests enabled; the tests
	# themselves are not built.  libkq is linked as its copy.
	libuv_make "$which" "$srcdir|$libkq|$(cat "$src/.complete")|$which|$edits" \
		"$work/lib/libkq.so" ON uv_run_benchmarks_a edit_bench_tree
	bin=$bdir/uv_run_benchmarks_a
	[ -x "$bin" ] || die "the $which build made no uv_run_benchmarks_a"
	# the runner must be what it is said to be: the kqueue one waiting in
	# libkq's kevent(), the epoll one in epoll
	if [ "$which" = kqueue ]; then
		load_as_installed "$bin"
		ldd "$bin" | grep -q "$kqcopy " || die "the kqueue runner does not load libkq's copy $kqcopy"
	fi
	libuv_uses "$which" "$bin"
}

# load_as_installed BIN: the kqueue runner made to load libkq as a program
# linked with an installed libkq does, without searching.  Built, it finds
# libkq through its RUNPATH (WORKDIR/lib), and the loader then looks in
# that directory, and in its glibc-hwcaps subdirectories, for every library
# the runner needs, libc.so.6 too: 11 failed opens and 10 failed stats more
# than the epoll runner at each start, which spawn (the runner starting
# itself as its helper, 1,000 times) measured as libkq's.  An installed
# libkq is found through the loader's cache, as libc is.  So the RUNPATH
# goes and libkq is named by its path (a name with a slash is opened as
# it is).  Needs patchelf (installed with apt-get when root); without it
# the runner keeps its RUNPATH, and loading=runpath says so.
loading=runpath
load_as_installed() {
	if ! command -v patchelf >/dev/null 2>&1; then
		is_root && apt_install patchelf ||
			{ say "no patchelf: the kqueue runner searches its RUNPATH at each start"; return 0; }
	fi
	if ! readelf -d "$1" | grep -q "Shared library: \[$kqcopy\]"; then
		patchelf --remove-rpath --replace-needed "$(basename "$kqcopy")" "$kqcopy" "$1" ||
			die "patchelf could not rename libkq in $1"
	fi
	readelf -d "$1" | grep -q "Shared library: \[$kqcopy\]" || die "$1 does not name $kqcopy"
	loading=path
}

# figure NAME LOG: "VALUE OPS UNIT" from one run's output, nothing if the
# benchmark's line is not there.  The runner prints what the benchmark
# printed after "# ".  VALUE is the benchmark's own figure (a rate per
# second, or seconds for the two that time a fixed count); OPS is the
# number of operations the run made, for counts per operation: reported
# by the benchmark where it prints it, else its count, else its rate times
# its window.
figure() {
	awk -v n="$1" -v win="$window_s" -v pound="$pound_s" -v pings="$pings" \
	    -v timers="$timers" -v spawns="$spawns" '
	function num(s) { gsub(/[^0-9.]/, "", s); return s + 0 }
	$1 != "#" { next }
	# "ping_pongs: 55228 roundtrips/s"; an operation is a round trip
	n == "ping_pongs" && $2 == n ":" { print $3, $3 * win, "rate"; exit }
	# "tcp_pump1_client: 25.4 gbit/s", gbit being 2^30 bits; an
	# operation is one of the client'"'"'s 8 KiB writes
	n ~ /_pump1_client$/ && $2 == n ":" {
		print $3, $3 * 2^30 / 8 * win / 8192, "rate"; exit
	}
	# "tcp-conn-pound-100: 27131 accepts/s (0 failed)": a connection
	# made, echoed and closed
	n == "tcp4_pound_100" && $2 == "tcp-conn-pound-100:" { print $3, $3 * pound, "rate"; exit }
	# "async1: 24.15 sec (41,399/sec)": the time of its round trips
	n == "async1" && $2 == n ":" { print $3, pings, "time"; exit }
	# "loop_count: 2000000 ticks in 0.63s (3175055/s)": loop iterations
	n == "loop_count" && $2 == n ":" && $7 ~ /\/s\)$/ { print num($7), $3, "rate"; exit }
	# "spawn: 510 spawns/s"
	n == "spawn" && $2 == n ":" { print $3, spawns, "rate"; exit }
	# "10.54 seconds total": creating, running out and closing the timers
	n == "million_timers" && $3 == "seconds" && $4 == "total" { print $2, timers, "time"; exit }
	# "7,445,538 async events in 5.0 seconds (1,489,107/s, ..."
	n == "million_async" && $3 == "async" && $4 == "events" { print num($8), num($2), "rate"; exit }
	' "$2"
}

# run_bench WHICH NAME LOG [WRAPPER...]: one run of benchmark NAME on the
# WHICH build, its output in LOG; WRAPPER (perf) runs the runner.  The
# runner has its own time limit per benchmark (60 s or more); timeout
# bounds the runner itself.  Runs in the build directory: the pipe
# benchmarks make their socket in /tmp, the TCP ones use port 9123, so two
# runs at once (of this script or of libuv's tests) would collide.
run_bench() {
	rb_which=$1 rb_name=$2 rb_log=$3
	shift 3
	# shellcheck disable=SC2086
	(cd "$work/$rb_which" && exec timeout -k 10 180 $pin "$@" ./uv_run_benchmarks_a "$rb_name") \
		>"$rb_log" 2>&1
}

# Every run (the runner, its benchmark and helper processes, all their
# threads) on the last processor.  Left to the scheduler, a benchmark's
# two ends shared a processor in some runs and not in others, and the
# rounds of one build differed by up to 27 %: more than the differences
# to be measured.  On one processor each run's rate is set by the CPU
# time both ends spend per operation, which is what libkq changes.
pin="" pinned=no
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ] && command -v taskset >/dev/null 2>&1 &&
   taskset -c "$(($(getconf _NPROCESSORS_ONLN) - 1))" true 2>/dev/null; then
	pin="taskset -c $(($(getconf _NPROCESSORS_ONLN) - 1))" pinned=yes
fi

# ---- the source and the two builds ----

fetch_source libuv1 src/unix/kqueue.c
command -v "$cmake" >/dev/null 2>&1 || skip "no cmake ($cmake) to build libuv with"
# an AddressSanitizer libkq is many times slower: its rates would say
# nothing about libkq's
[ -n "$(asan_runtime)" ] && skip "$libkq is built with AddressSanitizer: timing it means nothing"
snapshot_libkq
build kqueue
build epoll
version=$(cat "$src/.complete")
cpu=$(sh "$here/cpu-model.sh")
echo "libuv-bench-method libuv=$version rounds=$rounds quick=$quick cpus=$(getconf _NPROCESSORS_ONLN)" \
     "kernel=$(uname -r) window_s=$window_s pound_s=$pound_s pings=$pings timers=$timers" \
     "spawns=$spawns pause_ms=$pause_ms libkq=$libkq libkq_cksum=$kqsum loading=$loading" \
     "loadavg=$(cut -d' ' -f1 /proc/loadavg) pinned=$pinned cpu=\"$cpu\""

# ---- the rounds ----

mkdir -p "$work/logs" || exit 1
rm -f "$work/logs/"*.log
: >"$work/runs"
bad=""
t0=$(date +%s)
r=1
while [ $r -le $rounds ]; do
	if [ $((r % 2)) = 1 ]; then order="kqueue epoll"; else order="epoll kqueue"; fi
	for name in $benches; do
		for which in $order; do
			log=$work/logs/$which-$name-$r.log
			run_bench "$which" "$name" "$log"
			rc=$?
			set -- $(figure "$name" "$log")
			# a run without its figure (failed, timed out) is named and
			# left out of the medians; the run as a whole then fails
			if [ $# != 3 ] || [ $rc != 0 ]; then
				say "$name on $which (round $r) gave no result (status $rc, see $log):"
				tail -5 "$log" | sed 's/^/    /'
				bad="$bad $name/$which"
				set -- na
			fi
			echo "libuv-bench-run name=$name build=$which round=$r value=$1" | tee -a "$work/runs"
		done
	done
	say "round $r of $rounds done, $(( $(date +%s) - t0 )) s so far"
	r=$((r + 1))
done

# ---- medians and ratios ----

: >"$work/summary"
for name in $benches; do
	# the unit from the first run that printed one
	unit=$(for f in "$work/logs/"*-"$name"-*.log; do figure "$name" "$f"; done | awk 'NR == 1 { print $3 }')
	awk -v n="$name" -v unit="${unit:-na}" -v cpu="$cpu" '
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	# range over median, in %: how far apart the rounds were
	function spread(a, k, m) { return m > 0 ? sprintf("%.0f", 100 * (a[k] - a[1]) / m) : "na" }
	{
		delete f
		for (i = 2; i <= NF; i++) { e = index($i, "="); f[substr($i, 1, e - 1)] = substr($i, e + 1) }
		if (f["name"] != n || f["value"] == "na")
			next
		if (f["build"] == "kqueue") { kq[++nk] = f["value"] + 0; rk[f["round"]] = f["value"] + 0 }
		else { ep[++ne] = f["value"] + 0; re[f["round"]] = f["value"] + 0 }
	}
	END {
		# each round'"'"'s ratio, of the two runs made back to back
		for (r in rk)
			if ((r in re) && rk[r] > 0 && re[r] > 0)
				pr[++np] = unit == "time" ? re[r] / rk[r] : rk[r] / re[r]
		mk = nk ? median(kq, nk) : "na"; me = ne ? median(ep, ne) : "na"
		sk = nk ? spread(kq, nk, mk) : "na"; se = ne ? spread(ep, ne, me) : "na"
		ratio = np ? sprintf("%.3f", median(pr, np)) : "na"
		lo = np ? sprintf("%.3f", pr[1]) : "na"; hi = np ? sprintf("%.3f", pr[np]) : "na"
		if (nk) mk = sprintf("%.6g", mk)
		if (ne) me = sprintf("%.6g", me)
		printf "libuv-bench name=%s unit=%s kqueue=%s epoll=%s ratio=%s ratio_low=%s ratio_high=%s rounds=%d spread_kqueue=%s spread_epoll=%s cpu=\"%s\"\n",
			n, unit, mk, me, ratio, lo, hi, np, sk, se, cpu
	}' "$work/runs" | tee -a "$work/summary"
done

# ---- the cause, where the kqueue build is slower ----

# opword NAME: what one operation of NAME is, for the counts per operation
# (see figure).
opword() {
	case $1 in
	ping_pongs) echo "round trip" ;;
	*_pump1_client) echo "8 KiB write" ;;
	tcp4_pound_100) echo "connection" ;;
	async1) echo "round trip between threads" ;;
	loop_count) echo "loop iteration" ;;
	spawn) echo "child spawned" ;;
	million_timers) echo "timer" ;;
	million_async) echo "async event" ;;
	esac
}

# The system calls counted one by one: those of an event loop and its
# sockets, pipes, threads, timers and children, and of a process's start.
# Any other falls under "other".  (Every syscall tracepoint at once, about
# 360 counters in every process, made spawn's run 7 times slower.)
counted="epoll_wait epoll_pwait epoll_pwait2 epoll_ctl read write readv writev
recvfrom sendto recvmsg sendmsg accept accept4 connect shutdown close socket
bind listen setsockopt getsockopt getsockname getpeername ioctl fcntl futex
sched_yield poll ppoll nanosleep clock_nanosleep rt_sigaction rt_sigprocmask
kill tgkill clone clone3 vfork execve wait4 waitid exit_group getpid kcmp
openat newfstatat access mmap munmap mprotect brk pread64 pipe2 dup2 dup3
eventfd2 timerfd_create timerfd_settime signalfd4 prctl"
# Of these, the calls whose failures are counted one by one too (the
# others' fall under "other"): a call that fails is work done for
# nothing (a read or accept finding nothing, a registration refused, a
# file looked for where it is not).
failing="epoll_ctl read write readv writev recvfrom recvmsg sendto sendmsg
accept accept4 connect getsockopt ioctl close openat newfstatat access
pread64 kill"
# perf, run as root on a machine that has not mounted tracefs (a fresh
# boot here), mounts it itself the first time a tracepoint is asked for:
# ask once before looking, or a fresh machine would measure no cause.
command -v perf >/dev/null 2>&1 &&
	perf stat -e raw_syscalls:sys_enter -o /dev/null true >/dev/null 2>&1
tracefs=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -d "$d/events/syscalls" ] && { tracefs=$d; break; }
done

# syscalls WHICH NAME: "PER_OP FAILED_PER_OP TOP TOP_FAILED" for one run
# of NAME on WHICH under perf stat, counting every system call's entry
# (and its failures: those returning an error) in every process and
# thread of the run: the calls per operation, the failed calls per
# operation, the five most made calls and the three most failed,
# "call:count per operation,...".
syscalls() {
	sc_log=$work/logs/$1-$2-perf-stat.log
	sc_out=$work/logs/$1-$2-perf-stat.txt
	set -- "$1" "$2" -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit --filter 'ret < 0'
	for c in $counted; do
		# only the calls this kernel has a tracepoint for: perf refuses
		# the whole list for one it does not know
		[ -d "$tracefs/events/syscalls/sys_enter_$c" ] && set -- "$@" -e "syscalls:sys_enter_$c"
	done
	for c in $failing; do
		[ -d "$tracefs/events/syscalls/sys_exit_$c" ] &&
			set -- "$@" -e "syscalls:sys_exit_$c" --filter 'ret < 0'
	done
	sc_which=$1 sc_name=$2
	shift 2
	run_bench "$sc_which" "$sc_name" "$sc_log" perf stat -x, -o "$sc_out" "$@"
	set -- $(figure "$sc_name" "$sc_log")
	[ $# = 3 ] || { echo "na na na na"; return; }
	awk -F, -v ops="$2" '
	# the n largest of a[] (emptied of them), "key:value per op,..."
	function largest(a, n,   k, s, best, out) {
		out = ""
		for (k = 1; k <= n; k++) {
			best = ""
			for (s in a) if (best == "" || a[s] > a[best]) best = s
			if (best == "") break
			out = out (k > 1 ? "," : "") sprintf("%s:%.3g", best, a[best] / ops)
			delete a[best]
		}
		return out == "" ? "none" : out
	}
	$1 !~ /^[0-9]+$/ { next }
	$3 == "raw_syscalls:sys_enter" { total = $1; next }
	$3 == "raw_syscalls:sys_exit" { failed = $1; next }
	$3 ~ /^syscalls:sys_enter_/ && $1 > 0 { c[substr($3, 20)] = $1; listed += $1 }
	$3 ~ /^syscalls:sys_exit_/ && $1 > 0 { f[substr($3, 19)] = $1; flisted += $1 }
	END {
		if (!total || ops <= 0) { print "na na na na"; exit }
		if (total > listed) c["other"] = total - listed
		if (failed > flisted) f["other"] = failed - flisted
		printf "%.3g %.3g %s %s\n", total / ops, failed / ops, largest(c, 5), largest(f, 3)
	}' "$sc_out"
}

# profile NAME: one run of NAME on the kqueue build under perf record:
# libkq's share of the CPU samples of the whole run (in %), and its five
# hottest functions ("function:% of all samples").
profile() {
	pr_data=$work/logs/kqueue-$1.perf.data
	run_bench kqueue "$1" "$work/logs/kqueue-$1-perf-record.log" \
		perf record -q -F 999 -o "$pr_data"
	perf report -i "$pr_data" --no-children --sort dso,sym --stdio 2>/dev/null |
	awk '
	$1 ~ /%$/ && $2 ~ /^libkq\.so/ {
		p = $1; sub(/%$/, "", p); share += p
		if (++k <= 5) top = top (k > 1 ? "," : "") $4 ":" p
	}
	END { printf "%.1f %s\n", share, (top == "" ? "none" : top) }'
}

# A ratio under 1.00 (as shown, to two places) has its cause measured:
# the system calls per operation of both builds, and the kqueue build's
# profile.  perf must be able to count system calls (root, or a low
# perf_event_paranoid).
perf_ok=0
command -v perf >/dev/null 2>&1 && [ -n "$tracefs" ] &&
	perf stat -e raw_syscalls:sys_enter -o /dev/null true >/dev/null 2>&1 && perf_ok=1
awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^ratio=/) { v = substr($i, 7); if (v != "na" && sprintf("%.2f", v) + 0 < 1) print $2 } }' \
	"$work/summary" | sed 's/^name=//' >"$work/missed"
if [ -s "$work/missed" ] && [ $perf_ok = 0 ]; then
	say "perf cannot count system calls here (not installed, no tracefs, or perf_event_paranoid): no cause measured"
fi
if [ -s "$work/missed" ] && [ $perf_ok = 1 ]; then
	say "measuring the cause for:" $(cat "$work/missed")
	for name in $(cat "$work/missed"); do
		set -- $(syscalls kqueue "$name")
		kpo=$1 kfail=$2 ktop=$3 ktopf=$4
		set -- $(syscalls epoll "$name")
		echo "libuv-bench-cause name=$name kqueue_syscalls_per_op=$kpo epoll_syscalls_per_op=$1" \
		     "kqueue_failed_per_op=$kfail epoll_failed_per_op=$2" \
		     "top_calls_kqueue=\"$ktop\" top_calls_epoll=\"$3\"" \
		     "top_failed_kqueue=\"$ktopf\" top_failed_epoll=\"$4\" op=\"$(opword "$name")\""
		set -- $(profile "$name")
		echo "libuv-bench-profile name=$name build=kqueue libkq_pct=$1 top_libkq=\"$2\""
	done
fi
say "done in $(( $(date +%s) - t0 )) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$bad" ] || die "runs without a result:$bad"
exit 0
