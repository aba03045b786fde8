#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# nginx.sh: nginx with its kqueue event module, on libkq, under a load that
# checks every reply.  nginx's kqueue module trusts kqueue's numbers: a
# read event's `data` is how much it reads (and none means "nothing to
# read", without a recv()), a listener's `data` how many connections it
# accepts, EV_EOF's fflags the error it logs; connections are EV_CLEAR, and
# its thread pool reports back through EVFILT_USER.
#
# Debian's nginx source is configured against libkq's headers and linked
# with libkq (nginx-build.sh, which bench/real-server/run.sh builds its
# nginx with too).  The server runs
# with a master and two workers, `use kqueue`, serving a small and a large
# file directly, through a keepalive upstream and a per-request one (both
# nginx itself), through a refused upstream, rate-limited, and from a thread
# pool (aio threads); ngx-load.c is the client.  The run passes iff every
# reply is right, the error log has no alert, crit or emerg line and says
# kqueue is the event method, nginx serves after the load, and a graceful
# stop (SIGQUIT) ends it within 20 s.
#
# LIBKQ may be an AddressSanitizer build of libkq: nginx is not
# instrumented, so the sanitizer's runtime is preloaded into it (leak
# reports off: they would be nginx's), and a report fails the run.
#
# usage: sh nginx.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler to build nginx and the client with
#   WORKDIR  where nginx's source, build and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# Left out: the rewrite and gzip modules (they need PCRE and zlib).  Time
# on 2 cores: about 60 s to build, about 20 s for the load.
set -u
here=$(cd "$(dirname "$0")" && pwd)

who=nginx
. "$here/debsrc.sh"
. "$here/nginx-build.sh"
take_args "$@"
run=$work/run

fetch_source nginx src/event/modules/ngx_kqueue_module.c
nginx_build kqueue "$tree"
exe=$tree/objs/nginx
"$cc" -O2 -Wall -pthread -o "$work/ngx-load" "$here/ngx-load.c" >"$work/client.log" 2>&1 ||
	die "building the client failed (see $work/client.log)"

rm -rf "$run" && mkdir -p "$run/logs" "$run/conf" "$run/www" || exit 1
head -c 100 /dev/urandom | od -An -tx1 >"$run/www/small.txt"
head -c 300000 /dev/urandom | od -An -tx1 >"$run/www/large.txt"
port=$("$work/ngx-load" port) && back=$("$work/ngx-load" port) && nobody=$("$work/ngx-load" port) ||
	die "no free port on 127.0.0.1"
cat >"$run/conf/nginx.conf" <<EOF
daemon off;
worker_processes 2;
error_log $run/logs/error.log info;
pid $run/logs/nginx.pid;
events { use kqueue; worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    types { text/plain txt; }
    upstream back { server 127.0.0.1:$back; keepalive 8; }
    server {
        listen 127.0.0.1:$port;
        root $run/www;
        location /p/ { proxy_pass http://back/; proxy_http_version 1.1;
                       proxy_set_header Connection ""; }
        location /np/ { proxy_pass http://127.0.0.1:$back/; proxy_buffering off; }
        location /bad/ { proxy_pass http://127.0.0.1:$nobody/; }
        location /slow/ { alias $run/www/; limit_rate 1m; }
        location /aio/ { alias $run/www/; aio threads; sendfile off;
                         output_buffers 2 32k; }
    }
    server { listen 127.0.0.1:$back; root $run/www; }
}
EOF

# a sanitized libkq: its runtime must load first
asan=$(asan_runtime)
if [ -n "$asan" ]; then
	say "libkq is built with AddressSanitizer: preloading $asan"
	LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		"$exe" -p "$run" -c "$run/conf/nginx.conf" >"$run/logs/stdout.log" 2>&1 &
else
	"$exe" -p "$run" -c "$run/conf/nginx.conf" >"$run/logs/stdout.log" 2>&1 &
fi
pid=$!
stop() { nginx_kill "$pid"; }
trap stop EXIT
i=0
until "$work/ngx-load" probe "$port" "$run/www" 2>/dev/null; do
	kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ] ||
		{ cat "$run/logs/stdout.log"; die "nginx did not start serving (see $run/logs)"; }
	sleep 0.1
	i=$((i + 1))
done
grep -q 'using the "kqueue" event method' "$run/logs/error.log" ||
	die "nginx does not say it uses kqueue (see $run/logs/error.log)"

say "load on 127.0.0.1:$port (upstream :$back, refused :$nobody)"
t0=$(date +%s)
timeout 300 "$work/ngx-load" run "$port" "$run/www" >"$work/load.log" 2>&1
rc=$?
cat "$work/load.log"
[ $rc = 0 ] || die "wrong replies under load (see $work/load.log, $run/logs/error.log)"
say "load done in $(( $(date +%s) - t0 )) s"

timeout 30 "$work/ngx-load" probe "$port" "$run/www" ||
	die "nginx no longer serves right after the load"

if grep -E 'ERROR: AddressSanitizer|runtime error:' "$run/logs/stdout.log" >"$work/bad-lines"; then
	head -5 "$work/bad-lines"
	die "the sanitizer reported an error (see $run/logs/stdout.log)"
fi
if grep -E '\[(alert|crit|emerg)\]' "$run/logs/error.log" >"$work/bad-lines"; then
	head -5 "$work/bad-lines"
	die "nginx logged alerts (see $run/logs/error.log)"
fi
kill -QUIT "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -0 "$pid" 2>/dev/null && die "nginx did not stop within 20 s of SIGQUIT"
wait "$pid"
trap - EXIT   # its number may be another process's now
say "PASS: every reply right, no alert, a graceful stop in $((i / 10)).$((i % 10)) s"
exit 0
