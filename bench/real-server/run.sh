#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# real-server/run.sh: a real server on libkq against the same server on
# epoll, CPU per request.  Debian's nginx source is built twice, as
# test/integration/nginx.sh builds it (nginx-build.sh, shared): with its
# kqueue event module on libkq, and as it is, with its epoll module, the
# configure options otherwise the same.  Both run at once with the same
# configuration (a master and one worker, `use kqueue` / `use epoll`, on
# 127.0.0.1, each on its own port), and load.c drives them in turn, in
# alternated blocks (A B, B A, A B, ...), with a closed-loop load of 32
# requests in flight, measuring the worker's CPU time (the scheduler's run
# time of its threads) per request.  The cases:
#   keepalive   a 100-byte file, HTTP/1.1 on 32 connections kept open
#   close       the same file, a new connection per request
#               ("Connection: close": nginx closes first)
#   memory      keepalive, a reply from memory (empty_gif: 43 bytes; nginx
#               is built without its rewrite module, whose `return` needs
#               PCRE)
#   keepalive-idle, close-idle  as keepalive and close, with 10,000 more
#               connections to each server open and silent (fewer if the
#               descriptor limit is below 11,000)
#
# usage: sh bench/real-server/run.sh LIBKQ WORKDIR [--quick]
#   LIBKQ    libkq's shared library (a build tree's src/libkq.so)
#   WORKDIR  where nginx's source, the two builds and the logs go (cached:
#            the source is fetched and each build made once)
#   --quick  fewer cases (keepalive, close and their idle forms) and
#            shorter blocks: a check that it works; the figures are rough
# The compiler is $CC, or cc.
# exit: 0 measured; 1 a build or a run failed; 77 skipped (no source to be
# had, or a libkq built with AddressSanitizer), the reason on the last line.
#
# Output (stdout), one line per result, key=value fields:
#   # real-server     the machine: kernel, arch, cpu="<processor>", cpus,
#                     loadavg, and nginx's version, blocks, block length,
#                     pinned (yes: workers on the last processor, the
#                     client on the first)
#   real-server-block one block: case, idle, pair, build, requests, CPU
#   real-server-pair  one pair of blocks: its ratio, kqueue / epoll
#   real-server       per case: each build's median CPU per request (us),
#                     ratio (of the medians, kqueue / epoll), ratio_paired
#                     (the median of each pair's ratio: what is judged),
#                     the lowest and highest pair ratio, each build's spread
#   real-server-summary  the worst case's paired ratio (worst_ratio,
#                     worst_case) and the median of the cases' (median_ratio)
#   real-server-calls per build, of keepalive and close: the worker's system
#                     calls per request (per_req), and of the calls named
#                     in $calls below, each one's (those it made)
#   real-server-profile  per build, of keepalive and close: where its CPU
#                     time goes (perf record; see "where each build's CPU
#                     goes" below)
# Messages start with "real-server:".
#
# Time on 2 cores: about 2 minutes to fetch and build both the first time;
# then about 2.5 minutes of blocks, 30 s of them counting calls and
# profiling (--quick: 35 s).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
who=real-server
. "$top/test/integration/debsrc.sh"
. "$top/test/integration/nginx-build.sh"
bench_args "${CC:-cc}" "$@"

blocks=11 block_ms=700 prof_pairs=5 cases="keepalive close memory keepalive-idle close-idle"
[ $quick = 1 ] && blocks=5 block_ms=300 prof_pairs=3 cases="keepalive close keepalive-idle close-idle"
conns=32
# the idle connections of a case: each server holds them and the active
# ones in one process, under its descriptor limit
idle=10000
lim=$(ulimit -n)
[ "$lim" != unlimited ] && [ "$lim" -lt $((idle + 1000)) ] && idle=$((lim - 1000))

fetch_source nginx src/event/modules/ngx_kqueue_module.c
# an AddressSanitizer libkq is many times slower: its CPU would say
# nothing about libkq's
[ -n "$(asan_runtime)" ] && skip "$libkq is built with AddressSanitizer: timing it means nothing"
nginx_build kqueue "$work/kqueue"
nginx_build epoll "$work/epoll"
"$cc" -O2 -Wall -o "$work/load" "$here/load.c" >"$work/client.log" 2>&1 ||
	die "building the client failed (see $work/client.log)"

run=$work/run
rm -rf "$run" && mkdir -p "$run/www" || exit 1
printf '%099d\n' 0 >"$run/www/small.txt"
pids=""
stop() {
	for p in $pids; do
		nginx_kill "$p"
	done
}
trap stop EXIT
trap 'exit 1' INT TERM

# start WHICH: nginx's WHICH build serving on a port of its own; sets
# port_WHICH and worker_WHICH (the pid measured).
start() {
	d=$run/$1
	mkdir -p "$d/logs" "$d/conf" || exit 1
	p=$("$work/load" port) || die "no free port on 127.0.0.1"
	# error level only: nginx logs every client's close at info
	cat >"$d/conf/nginx.conf" <<-EOF
	daemon off;
	worker_processes 1;
	error_log $d/logs/error.log error;
	pid $d/logs/nginx.pid;
	events { use $1; worker_connections $((idle + 1000)); }
	http {
	    access_log off;
	    sendfile on;
	    tcp_nopush on;
	    keepalive_requests 1000000000;
	    keepalive_timeout 3600s;
	    client_header_timeout 3600s;
	    types { text/plain txt; image/gif gif; }
	    server {
	        listen 127.0.0.1:$p;
	        root $run/www;
	        location = /empty.gif { empty_gif; }
	    }
	}
	EOF
	"$work/$1/objs/nginx" -p "$d" -c "$d/conf/nginx.conf" >"$d/logs/stdout.log" 2>&1 &
	m=$!
	pids="$pids $m"
	i=0
	until w=$(nginx_workers "$m") && [ -n "$w" ] && "$work/load" probe "$p"; do
		kill -0 "$m" 2>/dev/null && [ $i -lt 100 ] ||
			{ cat "$d/logs/stdout.log" "$d/logs/error.log" 2>/dev/null; die "nginx ($1) did not start (see $d/logs)"; }
		sleep 0.1
		i=$((i + 1))
	done
	set -- "$1" $w
	[ $# = 2 ] || die "nginx ($1) has $(($# - 1)) workers, not 1"
	eval "port_$1=$p worker_$1=$2"
}
start kqueue
start epoll

# Both workers on the last processor, the client on the first: left to the
# scheduler, the client and the worker shared one processor in some blocks
# and not in others (a wake-up across processors costs the worker more
# than one on its own), and pairs of blocks differed by up to 1.6x.  The
# workers never run at once (blocks alternate), so they may share one.
pinned=no pin_client=""
ncpu=$(getconf _NPROCESSORS_ONLN)
if [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
	# shellcheck disable=SC2154
	if taskset -a -p -c $((ncpu - 1)) "$worker_kqueue" >/dev/null &&
	   taskset -a -p -c $((ncpu - 1)) "$worker_epoll" >/dev/null; then
		pinned=yes pin_client="taskset -c 0"
	else
		say "could not pin the workers (taskset failed): left to the scheduler"
	fi
fi

ver=$(cat "$src/.complete")
cpu=$(sh "$top/bench/cpu-model.sh")
echo "# real-server kernel=$(uname -r) arch=$(uname -m) cpu=\"$cpu\" cpus=$(getconf _NPROCESSORS_ONLN)" \
     "loadavg=$(cut -d' ' -f1 /proc/loadavg) server=nginx version=$ver conns=$conns blocks=$blocks" \
     "block_ms=$block_ms idle_max=$idle quick=$quick pinned=$pinned"

# load CASE BLOCKS OUT: load.c's run of CASE, BLOCKS pairs, output to OUT.
load() {
	case $1 in
	keepalive*) set -- "$@" --conn=keepalive --path=/small.txt --body=100 ;;
	close*) set -- "$@" --conn=close --path=/small.txt --body=100 ;;
	memory) set -- "$@" --conn=keepalive --path=/empty.gif --body=43 ;;
	esac
	case $1 in
	*-idle) set -- "$@" --idle=$idle ;;
	esac
	ld_case=$1 ld_blocks=$2 ld_out=$3
	shift 3
	# shellcheck disable=SC2154
	timeout 300 $pin_client "$work/load" run "$@" --conns=$conns --blocks="$ld_blocks" --block-ms=$block_ms \
		--label="$ld_case" kqueue "$port_kqueue" "$worker_kqueue" epoll "$port_epoll" "$worker_epoll" \
		>"$ld_out" 2>&1
}

t0=$(date +%s)
: >"$work/cases"
for c in $cases; do
	load "$c" $blocks "$work/case-$c.txt"
	rc=$?
	cat "$work/case-$c.txt"
	[ $rc = 0 ] || die "the $c case failed (status $rc; see $work/case-$c.txt, $run/*/logs)"
	grep '^real-server ' "$work/case-$c.txt" >>"$work/cases"
	say "$c done, $(( $(date +%s) - t0 )) s so far"
done

# ---- which system calls each build makes per request ----
# One more pair of blocks of keepalive and close, each worker's system
# calls counted by perf's tracepoints (all of them, and those below one by
# one) from the first request to the last, the unmeasured blocks included.
calls="epoll_wait epoll_pwait epoll_pwait2 epoll_ctl io_uring_enter ioctl getsockopt
setsockopt accept4 recvfrom writev sendfile64 openat newfstatat close"
set -- -e raw_syscalls:sys_enter
for k in $calls; do
	set -- "$@" -e "syscalls:sys_enter_$k"
done
if ! command -v perf >/dev/null 2>&1 || ! perf stat -x, -o /dev/null "$@" true >/dev/null 2>&1; then
	say "perf cannot count these system calls here (not installed, no tracepoints, or not allowed): no counts per request"
else
	for c in keepalive close; do
		for w in kqueue epoll; do
			eval "pw=\$worker_$w"
			perf stat -x, -o "$work/calls-$w-$c.csv" "$@" -p "$pw" &
			eval "perf_$w=\$!"
		done
		sleep 1   # perf attached
		load "$c" 1 "$work/calls-$c.txt"
		rc=$?
		# shellcheck disable=SC2154
		kill -INT "$perf_kqueue" "$perf_epoll"
		wait "$perf_kqueue" "$perf_epoll"
		[ $rc = 0 ] || die "counting the $c case's calls failed (see $work/calls-$c.txt)"
		for w in kqueue epoll; do
			n=$(awk -v w="$w" '$1 ~ /^real-server-(block|warmup)$/ && $0 ~ " build=" w " " {
				for (i = 2; i <= NF; i++) if ($i ~ /^requests=/) n += substr($i, 10)
			} END { print n + 0 }' "$work/calls-$c.txt")
			awk -F, -v c="$c" -v w="$w" -v n="$n" '
			$1 ~ /^[0-9]+$/ && $3 == "raw_syscalls:sys_enter" { all = $1 }
			$1 ~ /^[0-9]+$/ && $3 ~ /^syscalls:sys_enter_/ && $1 > 0 { k[++m] = substr($3, 20); v[m] = $1 }
			END {
				if (n <= 0 || all == "") exit
				s = sprintf("real-server-calls case=%s build=%s requests=%d per_req=%.3f", c, w, n, all / n)
				for (i = 1; i <= m; i++) s = s sprintf(" %s=%.3f", k[i], v[i] / n)
				print s
			}' "$work/calls-$w-$c.csv"
		done
	done
fi

# ---- where each build's CPU goes ----
# More pairs of keepalive and close blocks with both workers sampled
# by perf record (4000 times a second of CPU time, with call chains):
# each build's share of its samples in libkq's code, in the kernel's byte
# counts (io_uring and its socket commands, tcp_ioctl: SIOCINQ and
# FIONREAD), under epoll_ctl, getsockopt and epoll_wait, and libkq's five
# hottest functions ("function:% of all samples").
if ! command -v perf >/dev/null 2>&1 || ! perf record -q -o "$work/perf-check.data" true >/dev/null 2>&1; then
	say "perf cannot sample here (not installed, or not allowed): no profile"
else
	for c in keepalive close; do
		for w in kqueue epoll; do
			eval "pw=\$worker_$w"
			perf record -q -F 4000 -g -o "$work/prof-$w-$c.data" -p "$pw" >/dev/null 2>&1 &
			eval "perf_$w=\$!"
		done
		sleep 1
		load "$c" $prof_pairs "$work/prof-$c.txt"
		rc=$?
		kill -INT "$perf_kqueue" "$perf_epoll"
		wait "$perf_kqueue" "$perf_epoll"
		[ $rc = 0 ] || die "profiling the $c case failed (see $work/prof-$c.txt)"
		for w in kqueue epoll; do
			{
				perf report -i "$work/prof-$w-$c.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
					sed 's/^/self /'
				perf report -i "$work/prof-$w-$c.data" --children --sort sym --stdio -g none 2>/dev/null |
					sed 's/^/children /'
			} | awk -v c="$c" -v w="$w" '
			function pct(s) { sub(/%$/, "", s); return s + 0 }
			$1 == "self" && $2 == "#" && $3 == "Samples:" { n = $4 }
			$1 == "self" && $2 ~ /%$/ {
				p = pct($2)
				if ($3 ~ /^libkq/) {
					kq += p
					if (++k <= 5) top = top (k > 1 ? "," : "") $5 ":" p
				} else if ($3 == "[kernel.kallsyms]" && ($5 ~ /^_*io_/ || $5 ~ /io_uring/ || $5 == "tcp_ioctl"))
					counts += p
			}
			$1 == "children" && $2 ~ /%$/ && $5 ~ /^__x64_sys_(epoll_ctl|getsockopt|epoll_wait)$/ {
				sc[substr($5, 11)] = pct($2)
			}
			END {
				printf "real-server-profile case=%s build=%s samples=%s libkq_pct=%.2f counts_pct=%.2f", c, w, n, kq, counts
				printf " epoll_ctl_pct=%.2f getsockopt_pct=%.2f epoll_wait_pct=%.2f top_libkq=%s\n",
					sc["epoll_ctl"], sc["getsockopt"], sc["epoll_wait"], (top == "" ? "none" : top)
			}'
		done
	done
fi

for w in kqueue epoll; do
	if grep -E '\[(alert|crit|emerg)\]' "$run/$w/logs/error.log" >"$work/bad-lines"; then
		head -5 "$work/bad-lines"
		die "nginx ($w) logged alerts (see $run/$w/logs/error.log)"
	fi
done
awk '{
	for (i = 2; i <= NF; i++) { e = index($i, "="); f[substr($i, 1, e - 1)] = substr($i, e + 1) }
	r[++n] = f["ratio_paired"] + 0
	if (n == 1 || r[n] > worst) { worst = r[n]; wc = f["case"] }
}
END {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
	m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
	printf "real-server-summary server=nginx cases=%d worst_ratio=%.3f worst_case=%s median_ratio=%.3f\n", n, worst, wc, m
}' "$work/cases"
say "done in $(( $(date +%s) - t0 )) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
