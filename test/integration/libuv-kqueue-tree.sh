# SPDX-License-Identifier: BSD-2-Clause
# Sourced (after debsrc.sh, for die and take_args's cmake and work) by
# test/integration/libuv.sh, which runs libuv's suite on libkq, and by
# bench/libuv-bench.sh, which times its benchmarks: both build the same
# kqueue libuv, the same way.

# libuv_make WHICH KEY LIBKQ BENCH TARGET [EDIT]: libuv's WHICH build
# (kqueue or epoll) in $work/WHICH, from the copy $work/WHICH-src of $src,
# and TARGET built there.  The copy is made afresh, edited (the kqueue
# loop's edits for kqueue, then the function EDIT if given) and configured
# only when KEY differs from the last build's: RelWithDebInfo (-O2, and the
# symbols a profile needs), the tests on, the benchmarks BENCH (ON or OFF),
# and for kqueue libkq's headers and LIBKQ.  Logs go to
# $work/{configure,build}-WHICH.log.
libuv_make() {
	lm_which=$1 lm_key=$2 lm_libkq=$3 lm_bench=$4 lm_target=$5 lm_edit=${6:-}
	lm_tree=$work/$lm_which-src
	lm_bdir=$work/$lm_which
	if [ "$(cat "$lm_bdir/.key" 2>/dev/null)" != "$lm_key" ]; then
		rm -rf "$lm_tree" "$lm_bdir" && cp -R "$src" "$lm_tree" || exit 1
		set --
		if [ "$lm_which" = kqueue ]; then
			edit_kqueue_tree "$lm_tree"
			set -- -DUV_LIBKQ="$lm_libkq" -DCMAKE_C_FLAGS="-I$srcdir/include"
		fi
		[ -z "$lm_edit" ] || "$lm_edit" "$lm_tree"
		say "configuring libuv ($lm_which)"
		lm_gen=""
		command -v ninja >/dev/null 2>&1 && lm_gen="-GNinja"
		if ! "$cmake" -S "$lm_tree" -B "$lm_bdir" $lm_gen -DCMAKE_BUILD_TYPE=RelWithDebInfo \
			-DBUILD_TESTING=ON -DLIBUV_BUILD_TESTS=ON -DLIBUV_BUILD_BENCH="$lm_bench" "$@" \
			>"$work/configure-$lm_which.log" 2>&1; then
			tail -20 "$work/configure-$lm_which.log"
			die "configuring libuv ($lm_which) failed (see $work/configure-$lm_which.log)"
		fi
		echo "$lm_key" >"$lm_bdir/.key.want"
	fi
	say "building libuv ($lm_which, $lm_target)"
	if ! "$cmake" --build "$lm_bdir" -j 2 --target "$lm_target" \
		>"$work/build-$lm_which.log" 2>&1; then
		tail -30 "$work/build-$lm_which.log"
		die "building libuv ($lm_which) failed (see $work/build-$lm_which.log)"
	fi
	[ -f "$lm_bdir/.key.want" ] && mv "$lm_bdir/.key.want" "$lm_bdir/.key"
	return 0
}

# libuv_uses WHICH FILE: FILE (libuv's library, or a program with libuv
# linked in) is what its build is said to be: for kqueue it calls kevent()
# and neither epoll nor inotify, for epoll it uses epoll.
libuv_uses() {
	if [ "$1" = kqueue ]; then
		nm -D "$2" | grep -q ' U kevent\($\|@\)' || die "the kqueue build's $2 does not call kevent()"
		nm -D "$2" | grep -q ' U \(epoll_wait\|epoll_pwait\|inotify_init\)' &&
			die "the kqueue build's $2 still uses epoll or inotify"
	else
		nm -D "$2" | grep -q ' U epoll_' || die "the epoll build's $2 does not use epoll"
	fi
	return 0
}

# edit_kqueue_tree DIR: DIR, a copy of the source, made to build libuv's
# kqueue loop on Linux.  Every change is checked to have been made.
edit_kqueue_tree() {
	d=$1
	# 1. CMakeLists.txt: the kqueue loop and fs events (kqueue.c) in
	# place of the epoll loop (epoll.c) and the inotify fs events
	# (linux-inotify.c); linux-core.c and the rest of the Linux sources
	# stay.  libkq is linked to libuv by its path (UV_LIBKQ), as one of
	# libuv's own libraries, so the tests get it through libuv.
	sed -i '/^add_library(uv SHARED /i\
list(REMOVE_ITEM uv_sources src/unix/epoll.c src/unix/linux-inotify.c)\
list(APPEND uv_sources src/unix/kqueue.c)\
list(APPEND uv_libraries ${UV_LIBKQ})\
' "$d/CMakeLists.txt" || exit 1
	grep -q '^list(APPEND uv_sources src/unix/kqueue.c)$' "$d/CMakeLists.txt" ||
		die "CMakeLists.txt has no add_library(uv SHARED ...) to put kqueue.c before"
	# 2. include/uv/unix.h: a Linux build takes its platform's fields
	# from uv/linux.h (the inotify descriptor and watch list in the loop,
	# an inotify watch in uv_fs_event_t).  It takes uv/bsd.h's instead,
	# those of every kqueue platform: a read and write count in each I/O
	# watcher (the data kevent() returns, bounding accept() loops), an
	# I/O watcher in uv_fs_event_t (its EVFILT_VNODE knote), and
	# UV_HAVE_KQUEUE, which stream.c, core.c and the tests test.
	sed -i 's|^# include "uv/linux.h"$|# include "uv/bsd.h"|' "$d/include/uv/unix.h" || exit 1
	grep -q '^# include "uv/bsd.h"$' "$d/include/uv/unix.h" ||
		die "include/uv/unix.h does not include uv/linux.h"
	[ "$(grep -c '^# include "uv/bsd.h"$' "$d/include/uv/unix.h")" = 2 ] ||
		die "include/uv/unix.h does not include uv/bsd.h for the BSDs"
	# 3. src/unix/linux-core.c: its loop set-up (uv__platform_loop_init,
	# uv__io_fork, uv__platform_loop_delete) makes an epoll descriptor
	# and looks after the inotify one.  They give way to what
	# freebsd.c's do: the loop's backend is uv__kqueue_init()'s kqueue,
	# with nothing else to free; kqueue.c has uv__io_fork().  The rest of
	# linux-core.c (hrtime, CPU, memory, uptime, interfaces from procfs
	# and the Linux system calls) stays.
	sed -i '/^int uv__platform_loop_init(/,/^uint64_t uv__hrtime(/{
/^uint64_t uv__hrtime(/!d
}' "$d/src/unix/linux-core.c" || exit 1
	sed -i '/^uint64_t uv__hrtime(/i\
int uv__platform_loop_init(uv_loop_t* loop) {\
  return uv__kqueue_init(loop);\
}\
\
void uv__platform_loop_delete(uv_loop_t* loop) {\
  (void) loop;\
}\
\
' "$d/src/unix/linux-core.c" || exit 1
	grep -q 'return uv__kqueue_init(loop);' "$d/src/unix/linux-core.c" &&
		! grep -q 'uv__epoll_init\|inotify_fd' "$d/src/unix/linux-core.c" ||
		die "src/unix/linux-core.c: its epoll loop set-up was not replaced"
	# 4. src/unix/kqueue.c includes <sys/sysctl.h>, which glibc no longer
	# has; kqueue.c uses nothing from it.
	sed -i '/^#include <sys\/sysctl.h>$/d' "$d/src/unix/kqueue.c" || exit 1
	grep -q 'sysctl' "$d/src/unix/kqueue.c" &&
		die "src/unix/kqueue.c still uses sysctl"
	# 5. src/unix/process.c: on the kqueue platforms a child's exit is a
	# one-shot EVFILT_PROC NOTE_EXIT knote on the loop's kqueue (the loop
	# marks the child to be reaped); elsewhere, a SIGCHLD watcher.  Where
	# process.c would define UV_USE_SIGCHLD for Linux it includes
	# <sys/event.h>, as it does for the BSDs.
	sed -i 's|^#define UV_USE_SIGCHLD$|#include <sys/event.h>|' "$d/src/unix/process.c" || exit 1
	grep -q 'define UV_USE_SIGCHLD' "$d/src/unix/process.c" &&
		die "src/unix/process.c still waits for children with SIGCHLD"
	# 6. The tests' fs event callbacks expect a file name on Linux (inotify
	# gives one), and accept none on the BSDs: the kqueue loop takes the
	# name with fcntl(F_GETPATH), which only macOS has (FreeBSD's
	# F_KINFO is not used by this libuv, and glibc has neither), so the
	# name is NULL there and on the kqueue build.  These assertions take
	# the BSDs' side on the kqueue build (test-fs-event.c, test-fork.c);
	# the events themselves are checked as before.
	sed -i '/^ *#if defined(__APPLE__) || .*defined(__linux__)$/s/ || defined(__linux__)$//' \
		"$d/test/test-fs-event.c" "$d/test/test-fork.c" || exit 1
	[ "$(grep -c '^ *#if defined(__APPLE__) || defined(_WIN32)$' "$d/test/test-fs-event.c")" -ge 5 ] &&
		grep -q '^#if defined(__APPLE__)$' "$d/test/test-fork.c" ||
		die "the fs event tests' file name assertions were not found"
}
