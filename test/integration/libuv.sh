#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libuv.sh: libuv, the event loop under Node.js, on libkq.  libuv has an
# epoll loop for Linux and a kqueue loop for the BSDs and macOS, chosen by
# the platform it is built for.  Debian's libuv1 source is built twice with
# its own CMake files: as it is (epoll and inotify), and with its kqueue
# loop, its kqueue file system events and EVFILT_PROC for child processes,
# against libkq's headers and linked with libkq, all the rest of the Linux
# port kept (procfs, CPU, memory and network information, the Linux system
# calls: libuv closes descriptors with syscall(SYS_close), behind libkq's
# back).  libuv's own test suite (uv_run_tests: about 410 tests of loops,
# timers, TCP, UDP, pipes, ttys, signals, child processes, fs events,
# threads, fork) runs on both builds, one test at a time, each with a time
# limit.  A test that fails on kqueue is run again there (many are timed),
# and one that fails twice must have failed on epoll too, in the whole run
# or in a run of its own: the run passes iff every such test does, but for
# the tests named below with their reasons.
#
# usage: sh libuv.sh SRCDIR LIBKQ CMAKE WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CMAKE    the cmake to configure libuv with (the system's C compiler
#            builds it)
#   WORKDIR  where libuv's source, builds and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# The kqueue build's copy of the source is changed by edit_kqueue_tree()
# below, each change with its reason.  The epoll build is Debian's source
# as it is.  Both run the suite as Debian's package build does (no DNS
# requests, time limits doubled); as root, UV_RUN_AS_ROOT lets the suite
# run (a few tests then fail on both builds alike, e.g. fs_copyfile, which
# expects EACCES).
#
# What this libuv (1.44) asks of kqueue: READ, WRITE and EVFILT_VNODE
# (EV_ONESHOT, re-armed after each event) knotes, EV_ADD of knotes already
# there, a changelist passed with each wait, NOTE_EXIT on children, and
# EV_ERROR receipts: for UV_PRIORITIZED it passes EV_FLAG1 as a filter
# (its stand-in for macOS's EV_OOBAND), which kevent() refuses (EINVAL), as
# FreeBSD's does, and takes the error it returns for that descriptor as its
# priority event.  A loop is woken from other threads (uv_async_send)
# through an eventfd, libuv's Linux code, on the kqueue build too.
#
# LIBKQ may be an AddressSanitizer build of libkq: libuv and its tests are
# not instrumented, so the sanitizer's runtime is preloaded into the
# kqueue build's tests.  Time on 2 cores: 25 to 50 s per build, about 50 s
# per run of the suite, about 2.5 minutes in all from an empty WORKDIR.
set -u
here=$(cd "$(dirname "$0")" && pwd)
who=libuv
. "$here/debsrc.sh"
take_args "$@"
cmake=$cc   # the third argument is the cmake to configure with

# Tests whose failure on kqueue is not counted, and why.  The first two
# are tests of what Linux does that FreeBSD does not, which libuv leaves out
# on the BSDs (a kqueue platform); the last two depend on the machine's
# network.  On the kqueue build they all still run, and their result is
# shown.
#   fork_fs_events_child_dir  watches a directory and writes into a file
#       already in it.  inotify reports that on the directory; a kqueue
#       EVFILT_VNODE on a directory reports changes to the directory (its
#       entries), not writes to its files: no event comes and the test
#       times out.  libuv runs it on Linux and macOS only (FSEvents).
#   poll_bad_fdtype  expects uv_poll_init() to refuse a directory, as
#       epoll_ctl() does (EPERM).  kqueue's EVFILT_READ takes any
#       descriptor that FreeBSD's takes, a directory among them; libuv's
#       test says so and skips on the BSDs.
#   tcp_close_while_connecting, tcp_connect_timeout  connect to outside
#       addresses (1.2.3.4, 8.8.8.8) and need the connection to stay
#       pending, or to fail with "network unreachable", until a timer fires.
#       Where the network answers such a connect at once (a proxy that
#       accepts every outgoing connection, as on some build machines), the
#       connect completes first and both builds fail them at random: a run
#       of either build may pass or fail, so "fails on kqueue only" can come
#       out of chance alone.
excluded="fork_fs_events_child_dir poll_bad_fdtype tcp_close_while_connecting tcp_connect_timeout"

# edit_kqueue_tree DIR (libuv-kqueue-tree.sh, shared with
# bench/libuv-bench.sh): DIR, a copy of the source, made to build libuv's
# kqueue loop on Linux.
. "$here/libuv-kqueue-tree.sh"

# build WHICH: the WHICH (kqueue or epoll) build of libuv and its tests, in
# WORKDIR/WHICH from the copy WORKDIR/WHICH-src (where its tests run).
build() {
	which=$1
	bdir=$work/$which
	libuv_make "$which" "$srcdir|$libkq|$(cat "$src/.complete")|$which" "$libkq" \
		OFF uv_run_tests
	lib=$(ls "$bdir"/libuv.so.1 2>/dev/null)
	[ -n "$lib" ] || die "the $which build made no libuv.so.1"
	if [ "$which" = kqueue ]; then
		ldd "$lib" | grep -q libkq || die "the kqueue build of libuv does not load libkq"
	fi
	libuv_uses "$which" "$lib"
}

# run_suite NAME WHICH [TEST...]: the tests (all, or those named) on the
# WHICH build, one runner per test; the failing ones go to WORKDIR/fail-NAME.
run_suite() {
	name=$1
	which=$2
	shift 2
	log=$work/suite-$name.log
	[ $# -gt 0 ] || set -- $(cat "$work/tests")
	: >"$log"
	: >"$work/fail-$name"
	t0=$(date +%s)
	ran=0
	for t in "$@"; do
		# a test the epoll build has not is no epoll failure
		if [ "$which" = epoll ] && ! grep -qx "$t" "$work/tests-epoll"; then
			continue
		fi
		t1=$(date +%s)
		# the runner starts the test (and its helpers) as child processes
		# and kills them after the test's time limit; timeout bounds the
		# runner itself
		(
			cd "$work/$which-src" || exit 1
			if [ -n "$asan" ] && [ "$which" = kqueue ]; then
				export LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0
			fi
			exec timeout -k 10 300 "$work/$which/uv_run_tests" "$t"
		) >"$work/one.log" 2>&1
		rc=$?
		cat "$work/one.log" >>"$log"
		echo "# $t: status $rc in $(( $(date +%s) - t1 )) s" >>"$log"
		grep -q "^ok 1 - $t\$\|^ok 1 - $t # SKIP" "$work/one.log" || echo "$t" >>"$work/fail-$name"
		ran=$((ran + 1))
	done
	sort -u -o "$work/fail-$name" "$work/fail-$name"
	# a test that failed in the whole epoll run counts as an epoll failure
	[ "$name" = epoll ] && sort -u -o "$work/fail-epoll" "$work/fail-epoll" "$work/fail-epoll-all"
	say "$name ($which): $ran run, $(wc -l <"$work/fail-$name") failed," \
	    "$(grep -c '^ok 1 - .* # SKIP' "$log") skipped, in $(( $(date +%s) - t0 )) s"
	return 0
}

fetch_source libuv1 src/unix/kqueue.c
command -v "$cmake" >/dev/null 2>&1 || skip "no cmake ($cmake) to build libuv with"

# a sanitized libkq: the runtime programs must load first
asan=$(asan_runtime)
[ -n "$asan" ] && say "libkq is built with AddressSanitizer: preloading $asan"

# Debian's settings for the suite (debian/rules): no DNS requests, time
# limits doubled.  The suite refuses to run as root unless told to.
export RES_OPTIONS=attempts:0 UV_TEST_TIMEOUT_MULTIPLIER=2
is_root && export UV_RUN_AS_ROOT=1

build kqueue
build epoll

# The tests, as each build's runner lists them (the first column; the
# helper processes a test starts follow its name): the kqueue build has one
# more, poll_nested_kqueue (UV_HAVE_KQUEUE).
env ${asan:+LD_PRELOAD=$asan} "$work/kqueue/uv_run_tests" --list 2>"$work/list.log" >"$work/tests.list" &&
	awk '{ print $1 }' "$work/tests.list" >"$work/tests" ||
	die "uv_run_tests --list failed (see $work/list.log)"
"$work/epoll/uv_run_tests" --list 2>>"$work/list.log" >"$work/tests.list" &&
	awk '{ print $1 }' "$work/tests.list" >"$work/tests-epoll" ||
	die "uv_run_tests --list failed on the epoll build (see $work/list.log)"
[ "$(wc -l <"$work/tests")" -ge 300 ] || die "uv_run_tests lists only $(wc -l <"$work/tests") tests"

rm -f "$work"/fail-*
run_suite kqueue kqueue
# shellcheck disable=SC2046
run_suite epoll-all epoll $(cat "$work/tests-epoll")
if [ -s "$work/fail-epoll-all" ]; then
	say "failing on epoll:"
	sed 's/^/    /' "$work/fail-epoll-all"
fi
# the kqueue build's tests that the epoll build has not: a failure of
# theirs has no epoll result to be excused by, and counts
sort "$work/tests" >"$work/tests.sorted"
sort "$work/tests-epoll" >"$work/tests-epoll.sorted"
comm -23 "$work/tests.sorted" "$work/tests-epoll.sorted" >"$work/kqueue-own"
[ -s "$work/kqueue-own" ] && say "tests of the kqueue build only: $(tr '\n' ' ' <"$work/kqueue-own")"

# The excluded tests' results are shown, and their failures left out.
for t in $excluded; do
	if grep -qx "$t" "$work/fail-kqueue"; then
		say "not counted (see the reason in libuv.sh): $t failed on kqueue"
	else
		say "not counted (see the reason in libuv.sh): $t passed on kqueue"
	fi
	grep -vx "$t" "$work/fail-kqueue" >"$work/fail-kqueue.new"
	mv "$work/fail-kqueue.new" "$work/fail-kqueue"
done
judge "libuv's suite ($(wc -l <"$work/tests") tests)" "tests"
