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
# time of its threads) per request.  Both servers are started afresh 4
# times (measure.sh's instances: a process's layout moves its figures
# more than blocks within it vary), 4 pairs of blocks each.  The cases:
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
# The measuring (load.c's runs, the system call counts, the profile) is
# measure.sh's, which bench/real-server/apache.sh shares.
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
#                     pinned (yes: the workers on the last processor, the
#                     client on the first; measure.sh)
#   real-server-block one block: instance, case, idle, pair, build,
#                     requests, CPU
#   real-server-pair  one pair of blocks: its ratio, kqueue / epoll
#   real-server-instance  per instance and case: load.c's summary of that
#                     instance's pairs (fields as real-server's)
#   real-server       per case, over all instances: each build's median CPU
#                     per request (us), ratio (of the medians, kqueue /
#                     epoll), ratio_paired (the median of every pair's
#                     ratio: what is judged), the lowest and highest pair
#                     ratio, each build's spread, blocks (the pairs in
#                     all), instances and each one's paired ratio
#                     (instance_ratios, instance_min, instance_max)
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
. "$here/measure.sh"
bench_args "${CC:-cc}" "$@"

blocks=4 instances=4 block_ms=700 prof_pairs=5 cases="keepalive close memory keepalive-idle close-idle"
[ $quick = 1 ] && blocks=3 instances=2 block_ms=300 prof_pairs=3 cases="keepalive close keepalive-idle close-idle"
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
		wait "$p" 2>/dev/null
	done
	pids=""
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
	rs_started "$1" "$m" "$p" "$d/logs" nginx
}
start kqueue
start epoll

rs_pin
rs_header nginx "$(cat "$src/.complete")" idle_max=$idle quick=$quick
calls="epoll_wait epoll_pwait epoll_pwait2 epoll_ctl io_uring_enter ioctl getsockopt
setsockopt accept4 recvfrom writev sendfile64 openat newfstatat close"
rs_measure $cases
rs_done nginx '\[(alert|crit|emerg)\]'
exit 0
