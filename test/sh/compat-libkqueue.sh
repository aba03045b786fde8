#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# compat-libkqueue: with -DKQ_LIBKQUEUE_COMPAT=ON, a program written for the
# libkqueue port builds against libkq the way its users build it.
#
# usage: sh compat-libkqueue.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# 1. A separate build of SRCDIR is configured in a temporary directory with
#    -DKQ_LIBKQUEUE_COMPAT=ON (library targets only: no tests, no
#    benchmarks; Ninja when available) and installed to a scratch prefix.
#    There must be: lib*/pkgconfig/libkqueue.pc (Name: libkqueue, Cflags
#    -I${includedir}/kqueue, Libs -lkqueue), lib*/libkqueue.so and
#    lib*/libkqueue.a, links that resolve to libkq's files, and
#    include/kqueue/sys/event.h.
# 2. A small FreeBSD program (pipe READ, a TIMER, a USER event; nothing in it
#    names libkq) is built, with no change, each way a libkqueue user does:
#    a. cc prog.c $(pkg-config --cflags --libs libkqueue)  (without
#       pkg-config, the flags are read from libkqueue.pc with sed);
#    b. cc -I<prefix>/include/kqueue prog.c -L<libdir> -lkqueue;
#    c. the same, linked statically (-Wl,-Bstatic -lkqueue);
#    d. a CMake project using pkg_check_modules(... libkqueue>=2.0) (only when
#       pkg-config exists, since FindPkgConfig needs it).
#    Each binary must run and exit 0; the dynamic ones must need libkq.so.N
#    (nothing named libkqueue at run time), checked with readelf if present.
# 3. The version libkqueue's users check: `pkg-config --atleast-version=2.0
#    libkqueue` succeeds (libkqueue.pc reports the libkqueue release whose
#    interface libkq provides, not libkq's own 0.x version), and
#    `--atleast-version=99` fails.  Without pkg-config this part is skipped
#    with a note (the Version line is still compared with sed), unless
#    KQ_REQUIRE_TOOLS=1 is set (.ci/run), which makes it a failure.
# The temporary directory is removed on exit.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"
kq_need_cmake
kq_generator
kq_tmpdir compat
PREFIX=$TMP/prefix

# --- 1. build and install with the option ---------------------------------
if ! cmake -S "$SRCDIR" -B "$TMP/build" -G "$GEN" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_BUILD_TYPE=Release -DKQ_BUILD_TESTS=OFF -DKQ_BUILD_BENCH=OFF \
    -DKQ_LIBKQUEUE_COMPAT=ON -DCMAKE_INSTALL_PREFIX="$PREFIX" \
    >"$TMP/build.log" 2>&1 ||
    ! cmake --build "$TMP/build" >>"$TMP/build.log" 2>&1 ||
    ! cmake --install "$TMP/build" >>"$TMP/build.log" 2>&1; then
	cat "$TMP/build.log"
	echo "FAIL: configuring, building or installing with -DKQ_LIBKQUEUE_COMPAT=ON failed"
	exit 1
fi
echo "ok: built and installed with -DKQ_LIBKQUEUE_COMPAT=ON (generator $GEN)"

LIBDIR=""
for d in "$PREFIX"/lib*; do
	if [ -e "$d/libkqueue.so" ] || [ -L "$d/libkqueue.so" ]; then
		LIBDIR=$d
		break
	fi
done
if [ -z "$LIBDIR" ]; then
	(cd "$PREFIX" && find . -type f -o -type l)
	echo "FAIL: no $PREFIX/lib*/libkqueue.so installed"
	exit 1
fi
PC=$LIBDIR/pkgconfig/libkqueue.pc
[ -f "$PREFIX/include/kqueue/sys/event.h" ] ||
	fail "include/kqueue/sys/event.h not installed"
for f in libkqueue.so libkqueue.a; do
	if [ ! -L "$LIBDIR/$f" ]; then
		fail "$f is not a link"
	elif [ ! -e "$LIBDIR/$f" ]; then
		fail "$f -> $(readlink "$LIBDIR/$f") is a dangling link"
	else
		echo "ok: $f -> $(readlink "$LIBDIR/$f")"
	fi
done
[ "$(readlink -f "$LIBDIR/libkqueue.a")" = "$(readlink -f "$LIBDIR/libkq.a")" ] ||
	fail "libkqueue.a does not lead to libkq.a"
[ "$(readlink -f "$LIBDIR/libkqueue.so")" = "$(readlink -f "$LIBDIR/libkq.so")" ] ||
	fail "libkqueue.so does not lead to the file libkq.so leads to"
if [ ! -f "$PC" ]; then
	fail "$PC not installed"
else
	grep -qx 'Name: libkqueue' "$PC" || fail "libkqueue.pc: no 'Name: libkqueue'"
	grep '^Cflags:' "$PC" | grep -qF -e '-I${includedir}/kqueue' ||
		fail "libkqueue.pc: Cflags lacks -I\${includedir}/kqueue"
	grep '^Libs:' "$PC" | grep -qE -e '-lkqueue([[:space:]]|$)' ||
		fail "libkqueue.pc: Libs lacks -lkqueue"
fi
[ $status -eq 0 ] || exit 1

# --- 2. the program: FreeBSD code as a libkqueue user writes it -----------
cat >"$TMP/prog.c" <<'EOF'
#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	struct kevent ch[3], ev[3];
	struct timespec ts = { 5, 0 };
	int kq, p[2], n, i, seen = 0;

	if (pipe(p) == -1 || (kq = kqueue()) == -1) {
		perror("pipe/kqueue");
		return 1;
	}
	EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch[1], 7, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 10, NULL);
	EV_SET(&ch[2], 9, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	if (kevent(kq, ch, 3, NULL, 0, NULL) == -1) {
		perror("kevent: register");
		return 1;
	}
	EV_SET(&ch[0], 9, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	if (write(p[1], "abc", 3) != 3 ||
	    kevent(kq, ch, 1, NULL, 0, NULL) == -1)
		return 1;
	while (seen != 7) {
		n = kevent(kq, NULL, 0, ev, 3, &ts);
		if (n <= 0) {
			fprintf(stderr, "kevent: %d, seen %#x\n", n, seen);
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (ev[i].filter == EVFILT_READ && ev[i].data == 3)
				seen |= 1;
			else if (ev[i].filter == EVFILT_TIMER &&
			    ev[i].ident == 7)
				seen |= 2;
			else if (ev[i].filter == EVFILT_USER &&
			    ev[i].ident == 9)
				seen |= 4;
		}
	}
	printf("pipe, timer and user event seen\n");
	return 0;
}
EOF

run() {    # NAME BINARY [dynamic]
	if LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$2" \
	    >"$TMP/$1.out" 2>&1; then
		echo "ok: $1: $(cat "$TMP/$1.out")"
	else
		cat "$TMP/$1.out"
		fail "$1: the program failed"
	fi
	command -v readelf >/dev/null 2>&1 || return 0
	needed=$(readelf -d "$2" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' |
	    tr '\n' ' ')
	case "${3:-static} $needed" in
	dynamic*" libkq.so."*) echo "ok: $1 needs: $needed" ;;
	dynamic*) fail "$1: does not need libkq.so.N (needs: $needed)" ;;
	*" libkq"*) fail "$1: linked statically but needs: $needed" ;;
	*) echo "ok: $1 needs no shared libkq (needs: $needed)" ;;
	esac
}

build() {    # NAME compiler-arguments...
	name=$1
	shift
	if "$CC" -o "$TMP/$name" "$@" >"$TMP/$name.log" 2>&1; then
		return 0
	fi
	cat "$TMP/$name.log"
	fail "$name: $CC $* failed"
	return 1
}

# a. pkg-config --cflags --libs libkqueue
# (KQ_NO_PKG_CONFIG=1 in the environment forces the fallback.)
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
	how=pkg-config
	flags=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --cflags --libs libkqueue) ||
		fail "pkg-config --cflags --libs libkqueue failed"
else
	how="libkqueue.pc read with sed; pkg-config is not installed"
	pcdir=$LIBDIR/pkgconfig
	get() { sed -n "s/^$1[=:][[:space:]]*//p" "$PC" | sed -n 1p; }
	expand() {
		printf '%s\n' "$1" | sed -e "s|[\$]{pcfiledir}|$pcdir|g" \
		    -e "s|[\$]{prefix}|$prefix|g" -e "s|[\$]{exec_prefix}|$prefix|g" \
		    -e "s|[\$]{libdir}|$libdir|g" -e "s|[\$]{includedir}|$includedir|g"
	}
	prefix=""; libdir=""; includedir=""
	prefix=$(expand "$(get prefix)")
	libdir=$(expand "$(get libdir)")
	includedir=$(expand "$(get includedir)")
	flags="$(expand "$(get Cflags)") $(expand "$(get Libs)")"
fi
echo "libkqueue flags ($how): $flags"
# shellcheck disable=SC2086
build pc "$TMP/prog.c" $flags && run pkg-config-libkqueue "$TMP/pc" dynamic

# b. -I<prefix>/include/kqueue ... -lkqueue
build lkqueue -I"$PREFIX/include/kqueue" "$TMP/prog.c" -L"$LIBDIR" -lkqueue &&
	run -lkqueue "$TMP/lkqueue" dynamic

# c. static, still by the name libkqueue
build static -I"$PREFIX/include/kqueue" "$TMP/prog.c" -L"$LIBDIR" \
    -Wl,-Bstatic -lkqueue -Wl,-Bdynamic -pthread &&
	run static-lkqueue "$TMP/static"

# d. a CMake build system that looks for libkqueue through pkg-config
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
	mkdir -p "$TMP/cmake-src"
	cp "$TMP/prog.c" "$TMP/cmake-src/prog.c"
	cat >"$TMP/cmake-src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(uses_libkqueue C)
find_package(PkgConfig REQUIRED)
pkg_check_modules(KQUEUE REQUIRED IMPORTED_TARGET libkqueue>=2.0)
add_executable(prog prog.c)
target_link_libraries(prog PkgConfig::KQUEUE)
EOF
	if PKG_CONFIG_PATH=$LIBDIR/pkgconfig cmake -S "$TMP/cmake-src" \
	    -B "$TMP/cmake-build" -G "$GEN" -DCMAKE_C_COMPILER="$CC" \
	    >"$TMP/cmake.log" 2>&1 &&
	    cmake --build "$TMP/cmake-build" >>"$TMP/cmake.log" 2>&1; then
		run cmake-pkg_check_modules "$TMP/cmake-build/prog" dynamic
	else
		cat "$TMP/cmake.log"
		fail "a CMake project using pkg_check_modules(libkqueue) did not build"
	fi
else
	echo "note: pkg-config is not installed; the pkg_check_modules consumer is not tried"
fi

# --- 3. the libkqueue version its users check -----------------------------
pcver=$(sed -n 's/^Version:[[:space:]]*//p' "$PC")
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
	if PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --atleast-version=2.0 libkqueue; then
		echo "ok: pkg-config --atleast-version=2.0 libkqueue (libkqueue.pc says $(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --modversion libkqueue))"
	else
		fail "pkg-config --atleast-version=2.0 libkqueue fails: libkqueue.pc has Version: $pcver"
	fi
	if PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --atleast-version=99 libkqueue; then
		fail "pkg-config --atleast-version=99 libkqueue succeeds (Version: $pcver)"
	fi
elif [ "${KQ_REQUIRE_TOOLS:-}" = 1 ] && [ -z "${KQ_NO_PKG_CONFIG:-}" ]; then
	fail "pkg-config is not installed (KQ_REQUIRE_TOOLS=1): cannot check --atleast-version=2.0 libkqueue"
else
	echo "note: pkg-config is not installed (or KQ_NO_PKG_CONFIG is set): --atleast-version=2.0 not tried"
	major=${pcver%%.*}
	case $major in
	'' | *[!0-9]*) fail "libkqueue.pc: Version '$pcver' is not a version" ;;
	*) if [ "$major" -ge 2 ]; then
		echo "ok: libkqueue.pc: Version: $pcver (read with sed), at least 2.0"
	else
		fail "libkqueue.pc: Version: $pcver, below the 2.0 libkqueue's users check for"
	fi ;;
	esac
fi

exit $status
