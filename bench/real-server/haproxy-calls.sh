#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# real-server/haproxy-calls.sh: the system calls a proxy makes per request
# on libkq against the same proxy on epoll.  Debian's haproxy source is
# built twice with its linux-glibc target: as it is (its epoll poller), and
# with its kqueue poller on libkq instead (USE_KQUEUE=1 USE_EPOLL=, against
# libkq's headers and LIBKQ), the build otherwise the same.  Each runs as a
# proxy of HTTP/1.1 on 127.0.0.1, on a port of its own, to one backend: a
# third haproxy (the epoll build, one thread) whose frontend answers every
# request with a fixed 100-byte body (`http-request return`).  load.c
# drives the two proxies in turn (alternated blocks, 16 requests in flight)
# while perf counts each proxy's system calls, all of them and each one by
# name, from before the first request to after the last.  The cases:
#   close      a new connection per request ("Connection: close": the
#              proxy closes first; its connection to the backend is kept
#              and reused, HAProxy's default)
#   keepalive  requests on connections kept open for the whole run
#   reset      one keep-alive request per connection, which the client then
#              resets (SO_LINGER 0): the proxy sees EV_EOF with an error
# each with the proxies running 1 and 2 threads (nbthread).  System call
# counts do not depend on how busy the machine is, CPU figures would: none
# are given.
#
# usage: sh bench/real-server/haproxy-calls.sh LIBKQ WORKDIR [--quick]
#   LIBKQ    libkq's shared library (a build tree's src/libkq.so)
#   WORKDIR  where haproxy's source, the two builds and the logs go
#            (cached: the source is fetched and each build made once)
#   --quick  shorter blocks
# The compiler is $CC, or cc.
# exit: 0 counted; 1 a build or a run failed; 77 skipped (no source to be
# had, no libcrypt headers and not root to install them, or perf cannot
# count system calls here), the reason on the last line.
#
# Output (stdout), one line per result, key=value fields:
#   # haproxy-calls     the machine (kernel, arch, cpu="<processor>"),
#                       haproxy's version, blocks and their length
#   haproxy-calls       per case, threads and build: requests counted, all
#                       system calls per request (per_req), then each call
#                       made at least once per 1000 requests, per request
#   haproxy-calls-diff  per case and threads: each build's per_req, extra
#                       (kqueue's less epoll's), and each call whose count
#                       differs by 0.01 per request or more, kqueue's less
#                       epoll's
# Messages start with "haproxy-calls:".
#
# Time on 2 cores: about 4 minutes to fetch and build both the first time;
# then about 1 minute of counting (--quick: 30 s).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
who=haproxy-calls
. "$top/test/integration/debsrc.sh"
bench_args "${CC:-cc}" "$@"

blocks=3 block_ms=1500
[ $quick = 1 ] && blocks=1 block_ms=1000
conns=16
body=100

command -v perf >/dev/null 2>&1 || skip "perf is not installed: cannot count system calls"
perf stat -x, -o /dev/null -e raw_syscalls:sys_enter -e 'syscalls:sys_enter_*' true >/dev/null 2>&1 ||
	skip "perf cannot count system calls here (no tracepoints, or not allowed)"
fetch_source haproxy src/ev_kqueue.c
[ -n "$(asan_runtime)" ] && skip "$libkq is built with AddressSanitizer: haproxy is not"
if [ ! -f /usr/include/crypt.h ]; then
	is_root || skip "no <crypt.h> (libcrypt-dev), which haproxy's linux-glibc target needs, and not root"
	apt_install libcrypt-dev || skip "cannot install libcrypt-dev (see $work/apt-install.log)"
fi

# hap_build WHICH: haproxy built in $work/WHICH, once per source and libkq
# (debsrc.sh's fresh_tree); the binary is $work/WHICH/haproxy.
hap_build() {
	tree=$work/$1
	case $1 in
	kqueue) set -- kqueue USE_KQUEUE=1 USE_EPOLL= "ADDINC=-I$srcdir/include" \
		"ADDLIB=$libkq -Wl,-rpath,$libdir" ;;
	epoll) set -- epoll ;;
	esac
	if fresh_tree || [ ! -x "$tree/haproxy" ]; then
		say "building haproxy ($1)"
		hb=$1
		shift
		if ! make -C "$tree" -j 2 CC="$cc" TARGET=linux-glibc "$@" >"$work/build-$hb.log" 2>&1; then
			tail -30 "$work/build-$hb.log"
			die "building haproxy ($hb) failed (see $work/build-$hb.log)"
		fi
		set -- "$hb"
		tree_built
	fi
	"$tree/haproxy" -vv 2>&1 | grep -q "will use $1\.\$" || die "haproxy ($1) does not use its $1 poller"
	if [ "$1" = kqueue ]; then
		nm -D "$tree/haproxy" | grep -q ' U kevent' || die "haproxy (kqueue) does not call kevent()"
		ldd "$tree/haproxy" | grep -q "$libkq\|$libdir/libkq" || die "haproxy (kqueue) does not load $libkq"
	fi
}
hap_build epoll
hap_build kqueue
"$cc" -O2 -Wall -o "$work/load" "$here/load.c" >"$work/client.log" 2>&1 ||
	die "building the client failed (see $work/client.log)"

run=$work/run
rm -rf "$run" && mkdir -p "$run" || exit 1
pids=""
stop() {
	for p in $pids; do
		kill -9 "$p" 2>/dev/null
	done
}
trap stop EXIT
trap 'exit 1' INT TERM

# start NAME BUILD THREADS: a haproxy of BUILD in the foreground (-db),
# configured by $run/NAME.cfg (written by the caller with $port in it);
# sets pid_NAME once it accepts connections on $port.
start() {
	"$work/$2/haproxy" -db -f "$run/$1.cfg" >"$run/$1.log" 2>&1 &
	sp=$!
	pids="$pids $sp"
	i=0
	until "$work/load" probe "$port"; do
		kill -0 "$sp" 2>/dev/null && [ $i -lt 100 ] ||
			{ cat "$run/$1.log"; die "haproxy ($1) did not start (see $run/$1.log)"; }
		sleep 0.1
		i=$((i + 1))
	done
	eval "pid_$1=$sp port_$1=$port"
}

# global and defaults of every configuration: THREADS threads
conf_head() {
	cat <<-EOF
	global
	    nbthread $1
	    maxconn 4000
	defaults
	    mode http
	    timeout connect 10s
	    timeout client 60s
	    timeout server 60s
	EOF
}

port=$("$work/load" port) || die "no free port on 127.0.0.1"
{
	conf_head 1
	cat <<-EOF
	frontend answer
	    bind 127.0.0.1:$port
	    http-request return status 200 content-type text/plain string "$(printf '%099d\n' 0 | tr -d '\n')x"
	EOF
} >"$run/backend.cfg"
start backend epoll
backend_port=$port
# shellcheck disable=SC2154
pids=$pid_backend

ver=$(cat "$src/.complete")
cpu=$(sh "$top/bench/cpu-model.sh")
echo "# haproxy-calls kernel=$(uname -r) arch=$(uname -m) cpu=\"$cpu\" server=haproxy version=$ver" \
     "conns=$conns blocks=$blocks block_ms=$block_ms quick=$quick"

for threads in 1 2; do
	for w in kqueue epoll; do
		port=$("$work/load" port) || die "no free port on 127.0.0.1"
		{
			conf_head "$threads"
			cat <<-EOF
			frontend proxy
			    bind 127.0.0.1:$port
			    default_backend answer
			backend answer
			    server s1 127.0.0.1:$backend_port
			EOF
		} >"$run/$w.cfg"
		start "$w" "$w"
	done
	for c in close keepalive reset; do
		for w in kqueue epoll; do
			eval "pw=\$pid_$w"
			perf stat -x, -o "$run/calls-$w-$c-$threads.csv" \
				-e raw_syscalls:sys_enter -e 'syscalls:sys_enter_*' -p "$pw" &
			eval "perf_$w=\$!"
		done
		sleep 1   # perf attached
		# shellcheck disable=SC2154
		timeout 300 "$work/load" run --conn="$c" --path=/ --body=$body --conns=$conns \
			--blocks=$blocks --block-ms=$block_ms --label="$c" \
			kqueue "$port_kqueue" "$pid_kqueue" epoll "$port_epoll" "$pid_epoll" \
			>"$run/load-$c-$threads.txt" 2>&1
		rc=$?
		sleep 0.5   # the proxies' last closes
		# shellcheck disable=SC2154
		kill -INT "$perf_kqueue" "$perf_epoll"
		wait "$perf_kqueue" "$perf_epoll"
		[ $rc = 0 ] || { cat "$run/load-$c-$threads.txt"; die "the $c case with $threads threads failed (see $run)"; }
		for w in kqueue epoll; do
			n=$(awk -v w="$w" '$1 ~ /^real-server-(block|warmup)$/ && $0 ~ " build=" w " " {
				for (i = 2; i <= NF; i++) if ($i ~ /^requests=/) n += substr($i, 10)
			} END { print n + 0 }' "$run/load-$c-$threads.txt")
			awk -F, -v c="$c" -v t="$threads" -v w="$w" -v n="$n" '
			$1 ~ /^[0-9]+$/ && $3 == "raw_syscalls:sys_enter" { all = $1 }
			$1 ~ /^[0-9]+$/ && $3 ~ /^syscalls:sys_enter_/ && $1 >= n / 1000 {
				k[++m] = substr($3, 20); v[m] = $1
			}
			END {
				if (n <= 0 || all == "") exit 1
				s = sprintf("haproxy-calls case=%s threads=%d build=%s requests=%d per_req=%.3f", c, t, w, n, all / n)
				for (i = 1; i <= m; i++) s = s sprintf(" %s=%.3f", k[i], v[i] / n)
				print s
			}' "$run/calls-$w-$c-$threads.csv" >"$run/line-$w" ||
				die "no count for $w in the $c case (see $run/calls-$w-$c-$threads.csv)"
			cat "$run/line-$w"
		done
		cat "$run/line-kqueue" "$run/line-epoll" | awk '
		{
			b = ""
			for (i = 2; i <= NF; i++) {
				e = index($i, "="); k = substr($i, 1, e - 1); v = substr($i, e + 1)
				if (k == "build") b = v
				else if (k == "case" || k == "threads") id[k] = v
				else if (k != "requests") { f[b, k] = v; keys[k] = 1 }
			}
		}
		END {
			s = sprintf("haproxy-calls-diff case=%s threads=%s epoll=%.3f kqueue=%.3f extra=%.3f", id["case"],
				    id["threads"], f["epoll", "per_req"], f["kqueue", "per_req"],
				    f["kqueue", "per_req"] - f["epoll", "per_req"])
			for (k in keys)
				if (k != "per_req" && (d = f["kqueue", k] - f["epoll", k]) * d >= 0.0001)
					s = s sprintf(" %s=%+.3f", k, d)
			print s
		}'
	done
	for w in kqueue epoll; do
		eval "kill -9 \$pid_$w"
		eval "wait \$pid_$w" 2>/dev/null
	done
	pids=$pid_backend
done
say "done"
exit 0
