#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# memcached.sh: a real server's own test suite on libkq.  Debian's memcached
# source package is built against the libevent that libevent.sh builds
# with its kqueue backend on libkq, so every worker thread's event base is
# a kqueue of libkq's.  memcached's suite (t/*.t, run by prove, each test
# starting its own memcached) then runs with libevent forced onto kqueue.
# A test that fails there is run again on kqueue (some are timed), and one
# that fails twice is run on epoll: the run passes iff every such test also
# fails on epoll.
#
# usage: sh memcached.sh SRCDIR LIBKQ CC WORKDIR LEVENT_WORKDIR
#   SRCDIR          libkq's source tree
#   LIBKQ           libkq's shared library in the build tree
#   CC              the C compiler
#   WORKDIR         where memcached's source, build and logs go (cached)
#   LEVENT_WORKDIR  libevent.sh's WORKDIR (libevent is built there first
#                   when it is not yet)
# exit: 0 pass, 1 fail, 77 skip: only when a source cannot be obtained
#
# memcached is configured without SASL and extstore (neither needs the event
# loop; both need more packages) and its test helpers are built with it;
# no file of it is changed.  The suite wants perl's prove, which is
# installed (Debian's perl) when missing and this runs as root.  Running as
# root, the suite starts memcached with -u root itself.
# Time: the suite takes about 3 minutes on 2 cores (prove -j2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
who=memcached
. "$here/debsrc.sh"
take_args "$1" "$2" "$3" "$4"
levent_work=$5
prefix=$work/libevent-prefix

# libevent as libevent.sh left it: its headers and shared libraries, seen
# through a prefix of the layout memcached's configure looks for (one
# libevent library: memcached needs only libevent_core's calls).
levent_prefix() {
	sh "$here/libevent.sh" build "$srcdir" "$libkq" "$cc" "$levent_work"
	rc=$?
	[ $rc = 77 ] && skip "libevent could not be built (its source is missing)"
	[ $rc = 0 ] || die "building libevent failed"
	lb=$levent_work/build
	core=$(ls "$lb"/lib/libevent_core.so 2>/dev/null)
	[ -n "$core" ] || die "no libevent_core.so in $lb/lib"
	rm -rf "$prefix" && mkdir -p "$prefix/include" "$prefix/lib" || exit 1
	cp -R "$levent_work/source/include/." "$lb/include/." "$prefix/include/" || exit 1
	for f in "$lb"/lib/libevent*.so*; do
		ln -s "$f" "$prefix/lib/" || exit 1
	done
	ln -s "$core" "$prefix/lib/libevent.so" || exit 1
}

build_memcached() {
	levent_prefix
	fetch_source memcached memcached.c
	key="$srcdir|$libkq|$cc|$(cat "$src/.complete")"
	if [ "$(cat "$work/.key" 2>/dev/null)" != "$key" ]; then
		say "configuring $(cat "$src/.complete") with libevent on libkq"
		(cd "$src" && [ ! -f Makefile ] || make distclean) >/dev/null 2>&1
		if ! (cd "$src" && ./configure CC="$cc" --disable-sasl --disable-extstore \
			--with-libevent="$prefix" LDFLAGS="-Wl,-rpath,$levent_work/build/lib") \
			>"$work/configure.log" 2>&1; then
			tail -20 "$work/configure.log"
			die "memcached's configure failed (see $work/configure.log)"
		fi
		echo "$key" >"$work/.key"
	fi
	# Linked again every run: libevent was (libevent.sh).
	rm -f "$src/memcached-debug"
	if ! (cd "$src" && make -j2 memcached-debug timedrun sizes testapp) \
		>"$work/build.log" 2>&1; then
		tail -30 "$work/build.log"
		die "building memcached failed (see $work/build.log)"
	fi
	ldd "$src/memcached-debug" | grep -q 'libkq' ||
		die "memcached-debug does not reach libkq (through libevent)"
	if ! command -v prove >/dev/null 2>&1; then
		is_root || skip "no prove (perl) to run memcached's suite, and not root to install it"
		apt_install perl || die "cannot install perl (see $work/apt-install.log)"
	fi
}

# The backend memcached's event bases use with libevent left one backend.
check_method() {
	log=$work/method-$1.log
	(backend_env "$1"; export EVENT_SHOW_METHOD=1
	 rm -f "$work/method.sock"
	 cd "$src" && exec timeout -k 2 2 ./memcached-debug -u root -s "$work/method.sock") \
		>"$log" 2>&1
	got=$(sed -n 's/.*libevent using: //p' "$log" | sort -u)
	[ "$got" = "$1" ] || die "forcing $1, memcached's event bases say \"$got\" (see $log)"
	say "memcached's event bases with the $1 environment: $got"
}

# run_suite NAME B FILES: prove over FILES on backend B; the failing files
# go to WORKDIR/fail-NAME.
run_suite() {
	name=$1
	b=$2
	shift 2
	log=$work/suite-$name.log
	t0=$(date +%s)
	(backend_env "$b"; cd "$src" && exec timeout -k 10 500 prove -j2 "$@") >"$log" 2>&1
	rc=$?
	sed -n 's/^\(t\/[^ ]*\.t\) .*(Wstat.*/\1/p' "$log" >"$work/fail-$name"
	note_failures "$name" $rc "$log" "prove on $b"
	say "$name ($b): $(sed -n 's/^Files=\([0-9]*\), Tests=\([0-9]*\).*/\1 files, \2 tests/p' "$log")" \
	    "in $(( $(date +%s) - t0 )) s, $(wc -l <"$work/fail-$name") failing"
}

build_memcached
check_method kqueue
check_method epoll
run_suite kqueue kqueue t/
judge "memcached's suite" "tests"
