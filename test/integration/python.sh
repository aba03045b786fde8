#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# python.sh: Python's select.kqueue and asyncio on libkq.
# CPython builds select.kqueue (and selectors.KqueueSelector) where its
# configure finds kqueue(), which on Linux it never does.  Debian's python3
# source is configured against libkq's headers and library, so its select
# module is built with kqueue and linked with libkq, and Python's own tests
# run on it: test_kqueue (written on the BSDs: the fields and flags of
# records, EV_ERROR for a bad descriptor, closing, a kqueue not inherited
# by a child), test_selectors (its KqueueSelector cases: registering,
# modifying, a closed and reused descriptor, timeouts, EINTR), and the
# whole test_asyncio suite with asyncio's event loops made on
# KqueueSelector (python-run.py replaces selectors.DefaultSelector):
# streams, servers, pipes, subprocesses, cancellation and timeouts, about
# 2400 tests.  A test that fails is run again, and one that fails twice is
# run on epoll (the same interpreter, its loops on EpollSelector): the run
# passes iff every such test also fails on epoll.  Tests that use kqueue by
# name have no epoll run and must pass.
#
# usage: sh python.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler
#   WORKDIR  where python's source, build and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# Built with what the system has: on a machine with only a compiler, no
# ssl, zlib, ffi or sqlite modules, and the tests that need them skip on
# both backends.  Time on 2 cores: about 4 minutes to build, 2 for the
# tests.
set -u
here=$(cd "$(dirname "$0")" && pwd)
who=python
. "$here/debsrc.sh"
take_args "$@"

build() {
	if fresh_tree; then
		say "configuring python"
		# LIBS, not LDFLAGS: the kqueue() check must link with libkq
		if ! (cd "$tree" && ./configure CC="$cc" CPPFLAGS="-I$srcdir/include" \
			LIBS="$libkq -Wl,-rpath,$libdir") >"$work/configure.log" 2>&1; then
			tail -20 "$work/configure.log"
			die "configuring python failed (see $work/configure.log)"
		fi
		grep -q '^#define HAVE_KQUEUE 1' "$tree/pyconfig.h" ||
			die "configure did not find kqueue() in libkq (see $work/configure.log)"
		say "building python"
		if ! make -C "$tree" -j2 >"$work/build.log" 2>&1; then
			tail -30 "$work/build.log"
			die "building python failed (see $work/build.log)"
		fi
		tree_built
	fi
}

# run_suite NAME BACKEND [TEST...]: the tests (all, or the ids named) on
# BACKEND; the failing ones go to WORKDIR/fail-NAME.
run_suite() {
	name=$1
	which=$2
	shift 2
	[ $# -gt 0 ] || set -- test.test_kqueue test.test_selectors test.test_asyncio
	log=$work/suite-$name.log
	t0=$(date +%s)
	(cd "$tree" && timeout 900 ./python "$here/python-run.py" "$which" \
		"$work/fail-$name" "$@") >"$log" 2>&1
	rc=$?
	ran=$(sed -n 's/^ran \([0-9]*\)$/\1/p' "$log")
	if [ -z "$ran" ]; then
		tail -30 "$log"
		die "the tests on $which did not finish (status $rc, see $log)"
	fi
	sort -u -o "$work/fail-$name" "$work/fail-$name"
	say "$name ($which): $ran tests, $(wc -l <"$work/fail-$name") failing, in $(( $(date +%s) - t0 )) s"
}

fetch_source "$(newest_source python3. python3.11 14 13 12 11 10 9)" configure
build
py=$tree/python
"$py" -c 'import select, selectors; select.kqueue().close(); selectors.KqueueSelector' ||
	die "this python has no select.kqueue"
# the select module's kevent() may come from python itself (LIBS links
# the interpreter with libkq): what counts is that libkq is mapped
"$py" -c 'import select; print(open("/proc/self/maps").read())' | grep libkq >/dev/null ||
	die "python's select module does not load libkq"

rm -f "$work"/fail-*
run_suite kqueue kqueue
judge "python's kqueue and asyncio tests" "tests"
