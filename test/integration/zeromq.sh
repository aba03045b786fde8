#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# zeromq.sh: a C++ messaging library whose I/O threads poll with kqueue,
# on libkq.  libzmq picks its I/O threads' poller when it is configured
# (POLLER=kqueue|epoll|...); every I/O thread and the reaper own a kqueue,
# and their mailboxes are eventfds.  Debian's libzmq source is built with
# POLLER=kqueue against libkq's headers and linked with libkq, and its own
# test suite (tests/, about 120 programs under ctest: every socket type
# over tcp, ipc and inproc, monitors, proxies, heartbeats, fork) runs on
# that build.  A test that fails is run again on kqueue (many are timed),
# and one that fails twice is run on a POLLER=epoll build of the same
# source: the run passes iff every such test also fails on epoll.
#
# usage: sh zeromq.sh SRCDIR LIBKQ CMAKE WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CMAKE    the cmake to configure libzmq with
#   WORKDIR  where libzmq's source, builds and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# LIBKQ may be an AddressSanitizer build of libkq (the ctest of a build
# configured with KQ_SANITIZE=address,...): libzmq and its tests are not
# instrumented, so the sanitizer's runtime is preloaded into them, and an
# error it finds in libkq ends that test program, which then fails (and
# passes on epoll).  Leak reports are off: they would be libzmq's tests'.
#
# Both builds leave out what needs more packages (libsodium, libbsd, TLS,
# docs); the C++ compiler is installed (Debian's g++) when missing and this
# runs as root.  Time on 2 cores: about 40 s to build, about 100 s for the
# suite.
set -u
srcdir=$(cd "$1" && pwd)
libkq=$2
cmake=$3
work=$4
here=$(cd "$(dirname "$0")" && pwd)
src=$work/source
mkdir -p "$work" || exit 1
libdir=$(cd "$(dirname "$libkq")" && pwd)

who=zeromq
. "$here/debsrc.sh"

# build POLLER: libzmq configured with that poller in WORKDIR/POLLER.
build() {
	poller=$1
	tree=$work/$poller
	extra=""
	if [ "$poller" = kqueue ]; then
		# appended to every link line, after the objects (a flag
		# before them would be dropped by --as-needed)
		extra="-L$libdir -Wl,-rpath,$libdir -lkq"
	fi
	key="$srcdir|$libkq|$(cat "$src/.complete")|$poller"
	if [ "$(cat "$tree/.key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$tree"
		say "configuring libzmq with POLLER=$poller"
		if ! "$cmake" -S "$src" -B "$tree" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DPOLLER="$poller" -DENABLE_DRAFTS=ON -DBUILD_STATIC=OFF \
			-DWITH_LIBSODIUM=OFF -DWITH_LIBBSD=OFF -DWITH_TLS=OFF \
			-DWITH_DOCS=OFF -DWITH_DOC=OFF -DENABLE_CPACK=OFF \
			-DCMAKE_CXX_FLAGS="-I$srcdir/include" \
			-DCMAKE_CXX_STANDARD_LIBRARIES="$extra" \
			>"$work/configure-$poller.log" 2>&1; then
			tail -20 "$work/configure-$poller.log"
			die "configuring libzmq ($poller) failed (see $work/configure-$poller.log)"
		fi
		grep -q "polling method in I/O threads: $poller" "$work/configure-$poller.log" ||
			die "libzmq was not configured to poll with $poller (see $work/configure-$poller.log)"
	fi
	say "building libzmq ($poller)"
	if ! "$cmake" --build "$tree" -j 2 >"$work/build-$poller.log" 2>&1; then
		tail -30 "$work/build-$poller.log"
		die "building libzmq ($poller) failed (see $work/build-$poller.log)"
	fi
	echo "$key" >"$tree/.key"
}

# run_suite NAME BUILD [TEST...]: libzmq's ctest suite on BUILD, all of it
# or the tests named; the failing ones go to WORKDIR/fail-NAME.
run_suite() {
	name=$1
	which=$2
	# the epoll build is made only when judge() needs it
	[ "$which" = epoll ] && build epoll
	tree=$work/$which
	log=$work/suite-$name.log
	shift 2
	filter=""
	if [ $# -gt 0 ]; then
		filter="^($(echo "$@" | tr ' ' '|'))\$"
		set -- -R "$filter"
	fi
	t0=$(date +%s)
	if [ -n "$asan" ] && [ "$which" = kqueue ]; then
		(cd "$tree" && LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0 \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			exec ctest -j 2 --timeout 240 --output-on-failure "$@") >"$log" 2>&1
	else
		(cd "$tree" && exec ctest -j 2 --timeout 120 --output-on-failure "$@") >"$log" 2>&1
	fi
	rc=$?
	# "	 12 - test_name (Failed)" after "The following tests FAILED:"
	sed -n '/^The following tests FAILED:/,$s/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log" \
		>"$work/fail-$name"
	note_failures "$name" $rc "$log" "ctest on $which"
	say "$name ($which): $(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\2 run, \1 failed/p' "$log")" \
	    "in $(( $(date +%s) - t0 )) s"
}

fetch_source zeromq3 src/kqueue.cpp
if ! command -v c++ >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
	is_root || skip "no C++ compiler to build libzmq, and not root to install one"
	apt_install g++ || die "cannot install g++ (see $work/apt-install.log)"
fi

# a sanitized libkq: the runtime programs must load first
asan=$(asan_runtime)
[ -n "$asan" ] && say "libkq is built with AddressSanitizer: preloading $asan"

build kqueue
lib=$work/kqueue/lib/libzmq.so
ldd "$lib" | grep -q libkq || die "the kqueue build of libzmq does not load libkq"
nm -D "$lib" | grep -q ' U kevent' || die "the kqueue build of libzmq does not call kevent()"
nm -D "$lib" | grep -q ' U epoll_wait' && die "the kqueue build of libzmq still calls epoll_wait()"

rm -f "$work"/fail-*
run_suite kqueue kqueue
judge "libzmq's suite${asan:+ (libkq under AddressSanitizer)}" "tests"
