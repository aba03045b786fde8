#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# postgresql.sh: a database server whose processes wait on kqueue, on libkq.
# PostgreSQL's wait event sets (latches: every backend, walsender,
# walreceiver, logical replication worker and background process waits in
# one) have an epoll and a kqueue implementation, chosen at build time;
# Linux gets epoll unless WAIT_USE_KQUEUE is defined.  On kqueue a latch is
# SIGURG taken with EVFILT_SIGNAL, the postmaster's death is EVFILT_PROC
# NOTE_EXIT on its pid (children must exit when it is killed), and socket
# waits change their READ/WRITE knotes in the same kevent() call that
# waits.  Every process makes its own kqueues after the postmaster forks it.
#
# Debian's postgresql source is built with -DWAIT_USE_KQUEUE, linked with
# libkq, and its own suites run on it: the main regression suite (about 220
# SQL scripts, in parallel groups), the isolation suite (concurrent
# sessions blocking on each other's locks) and, when perl's IPC::Run is
# there (installed as root), the TAP suites of streaming replication and
# crash recovery (recovery: standbys, promotion, a postmaster killed with
# SIGKILL under its children) and of logical replication (subscription).
# A suite with failures is run again on kqueue, and a test that fails twice
# is run on a build of the same source on epoll (built only then): the run
# passes iff every such test also fails on epoll.
#
# usage: sh postgresql.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler
#   WORKDIR  where postgresql's source, builds and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained,
#       or this runs as root and the account "nobody" cannot reach libkq
#
# LIBKQ may be an AddressSanitizer build of libkq: PostgreSQL is not
# instrumented, so the sanitizer's runtime is preloaded into configure and
# the suites (every postgres process then has it), leak checks off, and
# any report the sanitizer writes fails the test.
#
# initdb refuses to run as root, so as root the suites run as "nobody"
# (runuser), in a build tree handed to it.  Built without readline, ICU
# and zlib (no more packages needed).  Time on 2 cores: about 2 minutes to
# build, 4 for the suites; with the sanitizer, about 4 and 8.
set -u
here=$(cd "$(dirname "$0")" && pwd)
who=postgresql
. "$here/debsrc.sh"
take_args "$@"

as_runner() {
	if is_root; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}

# san_vars NAME: the environment (for env) that preloads the sanitizer's
# runtime where the AddressSanitizer build of libkq may be loaded (the NAME
# kqueue build); its reports go to files in WORKDIR/asan, since a
# backend's stderr is a log file deep in the suite's tree.  (Words without
# spaces: WORKDIR is in libkq's build tree.)
san_vars() {
	if [ -n "$asan" ] && [ "$1" = kqueue ]; then
		echo "LD_PRELOAD=$asan" \
		     "ASAN_OPTIONS=detect_leaks=0:log_path=$work/asan/report" \
		     "UBSAN_OPTIONS=print_stacktrace=1:log_path=$work/asan/report"
	fi
}

# build NAME: the source configured and built in WORKDIR/NAME, waiting on
# kqueue (NAME kqueue, linked with libkq) or on epoll (NAME epoll).
build() {
	bname=$1
	dir=$work/$bname
	case $bname in
	kqueue) cppflags="-I$srcdir/include -DWAIT_USE_KQUEUE"
		libs="$libkq -Wl,-rpath,$libdir" ;;
	epoll)  cppflags= libs= ;;
	esac
	key="$srcdir|$libkq|$cc|$tap|$(cat "$src/.complete")"
	if [ "$(cat "$dir/.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$dir" && cp -R "$src" "$dir" || exit 1
		say "configuring the $bname build"
		if ! (cd "$dir" && env $(san_vars "$bname") ./configure CC="$cc" CPPFLAGS="$cppflags" LIBS="$libs" \
			--without-readline --without-icu --without-zlib $tap) \
			>"$work/configure-$bname.log" 2>&1; then
			tail -20 "$work/configure-$bname.log"
			die "configuring postgresql ($bname) failed (see $work/configure-$bname.log)"
		fi
		say "building postgresql ($bname)"
		if ! make -C "$dir" -j2 >"$work/build-$bname.log" 2>&1; then
			tail -30 "$work/build-$bname.log"
			die "building postgresql ($bname) failed (see $work/build-$bname.log)"
		fi
		echo "$key" >"$dir/.key"
	fi
	if is_root; then
		chown -R nobody "$dir" || die "cannot give $dir to nobody"
	fi
}

# failed_items PART LOG: the tests LOG names as failed, as PART/test.
# pg_regress prints "     name   ... FAILED" (or "not ok N - name" in its
# TAP form); prove prints "t/001_x.pl (Wstat: ...)" in its summary.
failed_items() {
	sed -n -e 's/^\(test \)\{0,1\} *\([A-Za-z0-9_.+-]*\) *\.\.\. FAILED.*/\2/p' \
	       -e 's/^not ok [0-9]* *[-+] *\([A-Za-z0-9_.+-]*\).*/\1/p' \
	       -e 's/^\(t\/[A-Za-z0-9_.-]*\.pl\)[[:space:]]*(Wstat.*/\1/p' "$2" |
		sed "s|^|$1/|"
}

# run_suite NAME BACKEND [ITEM...]: the suites (all, or those with an item
# named: regress and isolation run whole, since their scripts build on each
# other, TAP suites run the named .t files only); the failing items go to
# WORKDIR/fail-NAME, limited to the ones named, if any.
run_suite() {
	name=$1
	which=$2
	shift 2
	[ "$which" = epoll ] && build epoll
	dir=$work/$which
	: >"$work/fail-$name"
	printf '%s\n' "$@" | sort -u >"$work/wanted"
	t0=$(date +%s)
	for part in $parts; do
		tests=
		if [ $# -gt 0 ]; then
			for i in "$@"; do
				case $i in "$part"/*) tests="$tests ${i#"$part"/}" ;; esac
			done
			[ -n "$tests" ] || continue
		fi
		log=$work/suite-$name-$part.log
		case $part in
		regress|isolation)
			as_runner env $(san_vars "$which") timeout 600 make -C "$dir/src/test/$part" check ;;
		*)
			as_runner env $(san_vars "$which") timeout 600 make -C "$dir/src/test/$part" check \
				PROVE_FLAGS=-j2 ${tests:+PROVE_TESTS="$tests"} ;;
		esac >"$log" 2>&1
		rc=$?
		failed_items "$part" "$log" >"$work/fail-$name-$part"
		if [ "$rc" != 0 ] && [ ! -s "$work/fail-$name-$part" ]; then
			tail -20 "$log"
			die "$part on $which ended with status $rc and named no failing test (see $log)"
		fi
		if [ $# -gt 0 ]; then
			sort -u "$work/fail-$name-$part" | comm -12 - "$work/wanted" >>"$work/fail-$name"
		else
			cat "$work/fail-$name-$part" >>"$work/fail-$name"
		fi
		say "$part on $which ($name): $(grep -c . "$work/fail-$name-$part") failing"
	done
	sort -u -o "$work/fail-$name" "$work/fail-$name"
	say "all on $which ($name): $(wc -l <"$work/fail-$name") failing test(s), in $(( $(date +%s) - t0 )) s"
}

fetch_source "$(newest_source postgresql- postgresql-15 18 17 16 15 14 13)" configure
grep -qs WAIT_USE_KQUEUE "$src"/src/backend/storage/ipc/*.c ||
	die "this postgresql has no kqueue wait event set (WAIT_USE_KQUEUE)"

parts="regress isolation"
tap=
if ! perl -MIPC::Run -MTest::More -e 1 >/dev/null 2>&1 && is_root; then
	apt_install perl libipc-run-perl || say "cannot install perl's IPC::Run (see $work/apt-install.log)"
fi
if perl -MIPC::Run -MTest::More -e 1 >/dev/null 2>&1; then
	tap=--enable-tap-tests
	parts="$parts recovery subscription"
else
	say "perl's IPC::Run is missing: the TAP suites (recovery, subscription) are left out"
fi
if is_root; then
	command -v runuser >/dev/null 2>&1 || skip "running as root and there is no runuser to run the suites as nobody"
	runuser -u nobody -- test -r "$libkq" ||
		skip "running as root, and the account nobody (initdb refuses root) cannot read $libkq"
fi

# a sanitized libkq: its runtime must load first, in every process
asan=$(asan_runtime)
rm -rf "$work/asan" && mkdir -p "$work/asan" || exit 1
if [ -n "$asan" ]; then
	say "libkq is built with AddressSanitizer: preloading $asan"
	is_root && chown nobody "$work/asan"
fi

build kqueue
exe=$work/kqueue/src/backend/postgres
ldd "$exe" | grep -q libkq || die "postgres does not load libkq"
nm -D "$exe" | grep -q ' U kevent' || die "postgres does not call kevent()"

rm -f "$work"/fail-*
run_suite kqueue kqueue
if [ -n "$(ls "$work/asan")" ]; then
	head -30 "$work"/asan/report.*
	die "the sanitizer reported errors (see $work/asan)"
fi
judge "postgresql's suite${asan:+ (libkq under AddressSanitizer)}" "tests"
