#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# libevent.sh: a real program's own test suite on libkq.  Debian's libevent
# source package is built with its kqueue backend compiled against libkq's
# <sys/event.h> and linked with libkq; its `regress` suite then runs forced
# onto kqueue and again onto epoll, and every test that fails on kqueue must
# also fail on epoll.  A churn program (levent-churn.c) linked with libevent
# only runs thousands of short connections through the kqueue backend.
#
# usage: sh libevent.sh MODE SRCDIR LIBKQ CC WORKDIR
#   MODE     build    get the source (cached in WORKDIR), build libevent,
#                     regress and levent-churn
#            regress  regress on kqueue and on epoll; pass iff the kqueue
#                     failures are a subset of the epoll failures
#            churn    levent-churn on epoll (control), then on kqueue
#   SRCDIR   libkq's source tree (its include/ is the -I for libevent)
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler
#   WORKDIR  where libevent's source, build and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# The source comes from Debian's archive only (`apt-get source libevent`).
# When it is missing and this runs as root, deb-src entries are added for
# the configured Debian suites and dpkg-dev (for apt-get source) and
# python3-minimal (libevent's CMake wants Python for regress) installed.
#
# Time: regress starts no new test after KQ_LEVENT_DEADLINE_KQUEUE seconds
# (default 170) on kqueue and KQ_LEVENT_DEADLINE_EPOLL (default 130) on
# epoll (a full run takes about 85 s on either), and kills a test after 40 s;
# a test left out by a deadline fails the comparison.  Other environment:
# KQ_LEVENT_TESTS (regress test names to run instead of all),
# KQ_CHURN_CONNECTIONS (default 5000).
set -u
mode=$1
srcdir=$(cd "$2" && pwd)
libkq=$3
cc=$4
work=$5
here=$(cd "$(dirname "$0")" && pwd)
kqdir=$(cd "$(dirname "$libkq")" && pwd)
libkq="$kqdir/$(basename "$libkq")"
src=$work/source
build=$work/build
churn=$work/levent-churn
mkdir -p "$work" || exit 1

who=libevent
. "$here/debsrc.sh"

# libevent's CMake build: kqueue probed and compiled against libkq.
#  * -I SRCDIR/include makes <sys/event.h> libkq's; CMAKE_REQUIRED_LIBRARIES
#    lets check_function_exists(kqueue) and the "kqueue works with pipes"
#    run check link it (LD_LIBRARY_PATH lets the latter run);
#  * the shared libraries link libkq (-Wl,--no-as-needed keeps the NEEDED
#    entry whatever the toolchain's default), with a run path to it;
#  * -include levent-visible.h: regress tests internal functions the
#    shared libraries would otherwise hide (see that header);
#  * -Wno-int-conversion: kqueue.c takes udata for an intptr_t on every
#    system it does not recognise as a BSD (FreeBSD's is void *), a warning
#    with GCC 12 but an error by default with GCC 14;
#  * shared libevent only, so regress and levent-churn reach libkq through
#    libevent and never link it themselves, as a program of a distribution
#    would.
# No file of libevent is changed.
build_levent() {
	fetch_source libevent kqueue.c
	if ! command -v python3 >/dev/null 2>&1; then
		is_root || die "libevent's CMake build needs python3 for regress"
		apt_install python3-minimal || die "cannot install python3-minimal"
	fi
	py=$(command -v python3)
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	gen=Ninja
	command -v ninja >/dev/null 2>&1 || gen="Unix Makefiles"
	key="$srcdir|$libkq|$cc|$gen|$(cat "$src/.complete")|$(cksum <"$here/levent-visible.h")"
	if [ ! -f "$build/CMakeCache.txt" ] || [ "$(cat "$build/.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$build"
		say "configuring $(cat "$src/.complete") with libkq"
		if ! LD_LIBRARY_PATH="$kqdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		     cmake -S "$src" -B "$build" -G "$gen" \
			-DCMAKE_C_COMPILER="$cc" \
			-DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
			-DEVENT__LIBRARY_TYPE=SHARED \
			-DEVENT__DISABLE_OPENSSL=ON \
			-DEVENT__DISABLE_SAMPLES=ON \
			-DEVENT__DISABLE_BENCHMARK=ON \
			-DPYTHON_EXECUTABLE="$py" \
			-DCMAKE_C_FLAGS="-I$srcdir/include -include $here/levent-visible.h -Wno-int-conversion" \
			-DCMAKE_REQUIRED_LIBRARIES="$libkq" \
			-DCMAKE_SHARED_LINKER_FLAGS="-Wl,--no-as-needed $libkq -Wl,-rpath,$kqdir" \
			>"$work/configure.log" 2>&1; then
			tail -20 "$work/configure.log"
			die "libevent's cmake failed (see $work/configure.log)"
		fi
		echo "$key" >"$build/.key"
	fi
	for v in EVENT__HAVE_SYS_EVENT_H EVENT__HAVE_KQUEUE EVENT__HAVE_WORKING_KQUEUE; do
		grep -q "^$v:INTERNAL=1$" "$build/CMakeCache.txt" ||
			die "libevent's configure did not find libkq's kqueue ($v; see $work/configure.log)"
	done
	grep -q 'backends:.*KQUEUE' "$work/configure.log" ||
		die "kqueue is not among libevent's backends (see $work/configure.log)"
	# Link libevent again against the libkq of this run: whether its close(),
	# sigaction() and getsockopt() calls bind to libkq's or to glibc's is
	# decided by libkq's symbol versions at link time, and libkq.so is not a
	# file the build tracks.
	rm -f "$build"/lib/libevent*.so*
	if ! cmake --build "$build" -j 2 --target regress event_core_shared event_extra_shared \
		>"$work/build.log" 2>&1; then
		tail -30 "$work/build.log"
		die "building libevent failed (see $work/build.log)"
	fi
	[ -x "$build/bin/regress" ] || die "no regress program after the build"
	core=$(ls "$build"/lib/libevent_core-*.so.* 2>/dev/null | head -1)
	[ -n "$core" ] && readelf -d "$core" | grep -q 'NEEDED.*libkq' ||
		die "libevent_core does not link libkq"
	if [ ! -x "$churn" ] || [ "$here/levent-churn.c" -nt "$churn" ] || [ "$core" -nt "$churn" ]; then
		"$cc" -std=c11 -O2 -g -Wall -Wextra -Werror \
			-I"$src/include" -I"$build/include" \
			-o "$churn" "$here/levent-churn.c" \
			-L"$build/lib" -levent_core -Wl,-rpath,"$build/lib" ||
			die "cannot build levent-churn"
	fi
	# linked with libevent only: libkq must come in through libevent
	if readelf -d "$churn" | grep -q 'NEEDED.*libkq'; then
		die "levent-churn links libkq directly"
	fi
	say "ready: $(cat "$src/.complete"), kqueue backend on $libkq"
}

check_method() {
	got=$(backend_env "$1"; "$churn" --method)
	[ "$got" = "$1" ] || die "forcing $1, event_base_get_method() says \"$got\""
	say "event_base_get_method() with the $1 environment: $got"
}

# Tests left out of the comparison: none so far.  A test may be listed here
# only if it fails or hangs on both backends for a reason that has nothing
# to do with libkq, with that reason in a comment.
EXCLUDE=""

# Tests that pick a backend of their own: main/methods avoids the current
# one on purpose, main/base_environ lifts the EVENT_NO* variables.
OWN_METHOD="main/methods main/base_environ"

# regress, one test per run (a hang costs one test, and each verdict is
# exact), in order, within KQ_LEVENT_DEADLINE seconds.  Writes
# WORKDIR/regress-BACKEND.{ok,fail,skip,notrun} and a log per test.
run_regress() {
	b=$1
	out=$work/regress-$b
	rm -rf "$out" && mkdir -p "$out/logs" || exit 1
	: >"$out.ok"; : >"$out.fail"; : >"$out.skip"; : >"$out.notrun"; : >"$out.method"; : >"$out.times"
	tests=${KQ_LEVENT_TESTS:-$("$build/bin/regress" --list-tests | sed -n 's/^    \([^ ]*\)$/\1/p')}
	[ -n "$tests" ] || die "regress --list-tests listed nothing"
	if [ "$b" = kqueue ]; then deadline=${KQ_LEVENT_DEADLINE_KQUEUE:-170}
	else deadline=${KQ_LEVENT_DEADLINE_EPOLL:-130}; fi
	start=$(date +%s)
	n=0
	for t in $tests; do
		case " $EXCLUDE " in *" $t "*) continue ;; esac
		if [ $(( $(date +%s) - start )) -ge "$deadline" ]; then
			echo "$t" >>"$out.notrun"
			continue
		fi
		n=$((n + 1))
		log=$out/logs/$(echo "$t" | tr / _).log
		t0=$(date +%s)
		(backend_env "$b"; export EVENT_SHOW_METHOD=1
		 exec timeout -k 5 40 "$build/bin/regress" --timeout 30 "$t") >"$log" 2>&1
		rc=$?
		echo "$(( $(date +%s) - t0 )) $t" >>"$out.times"
		if [ $rc = 0 ] && grep -q "SKIPPED" "$log"; then
			echo "$t" >>"$out.skip"
		elif [ $rc = 0 ]; then
			echo "$t" >>"$out.ok"
		else
			[ $rc = 124 ] || [ $rc = 137 ] && echo "(killed after 40 s)" >>"$log"
			echo "$t" >>"$out.fail"
		fi
		case " $OWN_METHOD " in *" $t "*) continue ;; esac
		if sed -n 's/.*libevent using: //p' "$log" | grep -qv "^$b$"; then
			echo "$t" >>"$out.method"
		fi
	done
	say "$b: $n tests run in $(( $(date +%s) - start )) s:" \
	    "$(wc -l <"$out.ok") ok, $(wc -l <"$out.skip") skipped," \
	    "$(wc -l <"$out.fail") failed, $(wc -l <"$out.notrun") not run (deadline ${deadline} s)"
	say "$b: slowest: $(sort -rn "$out.times" | head -4 | awk '{printf "%s %s s; ", $2, $1}')"
}

show_list() {
	if [ -s "$2" ]; then
		say "$1:"
		sed 's/^/    /' "$2"
	else
		say "$1: none"
	fi
}

mode_regress() {
	build_levent
	check_method kqueue
	check_method epoll
	run_regress kqueue
	run_regress epoll
	k=$work/regress-kqueue
	e=$work/regress-epoll
	show_list "kqueue failures" "$k.fail"
	show_list "epoll failures" "$e.fail"
	sort "$k.fail" >"$work/k.sorted"
	sort "$e.fail" >"$work/e.sorted"
	comm -23 "$work/k.sorted" "$work/e.sorted" >"$work/kqueue-only"
	rm -f "$work/k.sorted" "$work/e.sorted"
	status=0
	if [ -s "$work/kqueue-only" ]; then
		show_list "FAIL: failing on kqueue only" "$work/kqueue-only"
		for t in $(cat "$work/kqueue-only"); do
			say "---- $t on kqueue (tail of $k/logs/$(echo "$t" | tr / _).log)"
			tail -15 "$k/logs/$(echo "$t" | tr / _).log"
		done
		status=1
	fi
	for b in kqueue epoll; do
		if [ -s "$work/regress-$b.method" ]; then
			show_list "FAIL: tests on the $b run that used another backend" "$work/regress-$b.method"
			status=1
		fi
		if [ -s "$work/regress-$b.notrun" ]; then
			say "FAIL: $(wc -l <"$work/regress-$b.notrun") tests not run on $b within the deadline"
			status=1
		fi
	done
	used=$(cat "$k/logs"/*.log | grep -c 'libevent using: kqueue')
	say "kqueue run: $used event bases reported \"libevent using: kqueue\""
	[ "$used" -gt 0 ] || { say "FAIL: no test used kqueue"; status=1; }
	[ $status = 0 ] && say "PASS: kqueue failures are a subset of epoll failures"
	exit $status
}

mode_churn() {
	build_levent
	check_method kqueue
	check_method epoll
	status=0
	for b in epoll kqueue; do
		say "levent-churn on $b"
		(backend_env "$b"
		 exec timeout -k 5 30 "$churn" --expect "$b" \
			--connections "${KQ_CHURN_CONNECTIONS:-5000}" --parallel 8 --seconds 20)
		rc=$?
		if [ $rc != 0 ]; then
			say "FAIL: levent-churn on $b (exit $rc)"
			status=1
		fi
	done
	exit $status
}

case $mode in
build)   build_levent ;;
regress) mode_regress ;;
churn)   mode_churn ;;
*)       die "unknown mode $mode" ;;
esac
