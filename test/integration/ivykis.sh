#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# ivykis.sh: ivykis, the event library syslog-ng is built on, with its
# kqueue backend on libkq.  ivykis compiles in every backend it finds and
# takes the first that initializes (epoll-timerfd, epoll, kqueue, ppoll,
# poll on Linux) but those named in IV_EXCLUDE_POLL_METHOD.  Debian's
# ivykis source is built against libkq's headers and linked with libkq,
# and its programs run with every other backend excluded, so each one
# runs on kqueue or dies (ivykis's iv_fatal).  Its kqueue backend uses
# READ and WRITE knotes with the registration's address as udata, one
# EV_ONESHOT EVFILT_TIMER for its timer wheel's next expiry, whose ident
# is an address, and EVFILT_USER triggered from other threads to hand
# events across them.
#
# The programs: the library's own test suite (make check: its AVL tree,
# timers in every order, in the past, of zero length and for fairness,
# iv_event_raw, iv_signal, event unregistration), and of its other
# programs those that end by themselves: threads (iv_thread_test), a work
# pool handing results back to the loop (iv_work_test), child processes
# waited for through the loop (iv_wait_test) and started by its popen
# (iv_popen_test).  Then a loop that never ends, run for 5 s:
# iv_event_test, two threads handing one event back and forth, each
# starting a 1 s timer on receipt (it prints as it goes, and must go
# round at least 3 times).
# A program that fails is run again on kqueue, and one that fails twice
# is run on epoll (the same build, kqueue excluded): the run passes iff
# every such program also fails on epoll.
#
# Not run: programs that serve or connect forever (client, server, null,
# connectfail, connectreset), iv_signal_thread_test (its threads catch
# only signals sent to them, which nothing outside can send), and the
# benchmarks.  ivykis's kqueue backend
# registers nothing for a descriptor that only wants errors, so
# connectreset does not see its reset on kqueue, on FreeBSD as here.
#
# usage: sh ivykis.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler to build ivykis with
#   WORKDIR  where ivykis's source, build and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
# Time on 2 cores: about 40 s to build, 30 s for the programs.
set -u
here=$(cd "$(dirname "$0")" && pwd)

who=ivykis
. "$here/debsrc.sh"
take_args "$@"

build() {
	if fresh_tree; then
		say "configuring ivykis"
		# -lkq, not libkq.so's path: libtool keeps a -l as the shared
		# library's dependency, and leaves a path out of its link
		if ! (cd "$tree" && ./configure CC="$cc" CPPFLAGS="-I$srcdir/include" \
			LDFLAGS="-L$libdir -Wl,-rpath,$libdir" LIBS="-lkq" --disable-static) \
			>"$work/configure.log" 2>&1; then
			tail -20 "$work/configure.log"
			die "configuring ivykis failed (see $work/configure.log)"
		fi
		grep -q '^#define HAVE_KQUEUE 1' "$tree/config.h" ||
			die "configure did not find kqueue() in libkq (see $work/configure.log)"
	fi
	say "building ivykis"
	if ! make -C "$tree" -j 2 >"$work/build.log" 2>&1; then
		tail -30 "$work/build.log"
		die "building ivykis failed (see $work/build.log)"
	fi
	tree_built
}

# the programs that end by themselves, as DIR/NAME under the tree
progs="test/avl test/struct_sizes test/timer test/timer_fairness test/timer_fairness_bug
test/timer_order test/timer_past test/timer_zero test/iv_event_raw_test test/iv_signal_test
test/event_unregister_bug test.mt/iv_thread_test test.mt/iv_work_test test.mt/iv_wait_test
test/iv_popen_test"
loops="test.mt/iv_event_test"

# exclude_for BACKEND: the IV_EXCLUDE_POLL_METHOD that leaves ivykis
# kqueue only, or anything but kqueue (epoll: its first choice then).
exclude_for() {
	case $1 in
	kqueue) echo "epoll-timerfd epoll ppoll poll" ;;
	epoll) echo "kqueue" ;;
	esac
}

# run_loop PROG LOG: a never-ending program for 5 s, judged by what it
# printed (see the top).
run_loop() {
	timeout -s KILL 5 stdbuf -oL "./$1" >"$2" 2>&1 </dev/null
	[ "$(grep -c 'expired, signaling' "$2")" -ge 3 ]
}

# run_suite NAME BACKEND [PROG...]: the programs (all, or those named) on
# BACKEND; the failing ones go to WORKDIR/fail-NAME.
run_suite() {
	name=$1
	which=$2
	shift 2
	[ $# -gt 0 ] || set -- $progs $loops
	log=$work/suite-$name.log
	: >"$log"
	: >"$work/fail-$name"
	t0=$(date +%s)
	for p in "$@"; do
		out=$work/out-$name-$(basename "$p").txt
		(
			cd "$tree" || exit 1
			IV_EXCLUDE_POLL_METHOD=$(exclude_for "$which")
			export IV_EXCLUDE_POLL_METHOD
			case " $loops " in
			*" $p "*) run_loop "$p" "$out" ;;
			*) timeout -s KILL 120 "./$p" >"$out" 2>&1 </dev/null ;;
			esac
		)
		rc=$?
		echo "$p: status $rc" >>"$log"
		[ $rc = 0 ] || { echo "$p" >>"$work/fail-$name"; tail -5 "$out" | sed 's/^/    /' >>"$log"; }
	done
	note_failures "$name" 0 "$log" "the programs on $which"
	say "$name ($which): $# programs, $(wc -l <"$work/fail-$name") failing, in $(( $(date +%s) - t0 )) s"
}

fetch_source ivykis src/iv_fd_kqueue.c
for t in timeout stdbuf; do
	command -v $t >/dev/null 2>&1 || skip "$t is missing"
done
build
lib=$tree/src/.libs/libivykis.so
ldd "$lib" | grep -q libkq || die "libivykis does not load libkq"
nm -D "$lib" | grep -q ' U kevent' || die "libivykis does not call kevent()"

rm -f "$work"/fail-*
run_suite kqueue kqueue
judge "ivykis's programs" "programs"
