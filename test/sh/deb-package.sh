#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deb-package: `cpack -G DEB` makes a .deb that a program can be built with.
#
# usage: sh deb-package.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# 1. A separate build of SRCDIR is configured in a temporary directory
#    (library targets only: -DKQ_BUILD_TESTS=OFF -DKQ_BUILD_BENCH=OFF; Ninja
#    when available), built, and packaged with `cpack -G DEB`.
# 2. The package's control fields: Package libkq, the project's Version,
#    Depends on libc6 (>= V), where V is exactly the newest GLIBC_ symbol
#    version libkq.so needs (checked with objdump when it is installed): an
#    older V lets the package install where the library cannot run, a newer
#    one keeps it from systems where it would; and on libgcc-s1 when the
#    library needs libgcc_s.so.1 (readelf, when installed).
# 3. Its contents (dpkg-deb -c): usr/lib*/libkq.so, libkq.so.N, libkq.a,
#    usr/include/kqueue/sys/event.h, pkgconfig/libkq.pc, the CMake package
#    files, and usr/share/man/man2/kqueue.2 and kevent.2.
# 4. `dpkg-deb -x` unpacks it into a scratch root; a FreeBSD program is
#    compiled against that tree with its libkq.pc (pkg-config, or the flags
#    read from the file without it) and with a CMake project doing
#    find_package(libkq) with CMAKE_PREFIX_PATH=<root>/usr, and each binary
#    runs with LD_LIBRARY_PATH=<root>/usr/lib*.
# Skipped (exit 77) when dpkg-deb or cpack is missing; with KQ_REQUIRE_TOOLS=1
# in the environment (.ci/run) a missing dpkg-deb is a failure instead.
set -u

if [ $# -lt 4 ]; then
	echo "usage: $0 SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" >&2
	exit 1
fi
SRCDIR=$1
CC=$4

if ! command -v dpkg-deb >/dev/null 2>&1; then
	if [ "${KQ_REQUIRE_TOOLS:-}" = 1 ]; then
		echo "FAIL: dpkg-deb is not installed (KQ_REQUIRE_TOOLS=1)"
		exit 1
	fi
	echo "SKIP: dpkg-deb is not installed (not a Debian-like system)"
	exit 77
fi
if ! command -v cmake >/dev/null 2>&1; then
	echo "SKIP: cmake is not in PATH"
	exit 77
fi
CPACK=$(dirname "$(command -v cmake)")/cpack
[ -x "$CPACK" ] || CPACK=$(command -v cpack) || {
	echo "SKIP: cpack is not installed next to cmake"
	exit 77
}
if command -v ninja >/dev/null 2>&1; then
	GEN=Ninja
elif command -v make >/dev/null 2>&1; then
	GEN="Unix Makefiles"
else
	echo "SKIP: neither ninja nor make is available"
	exit 77
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/libkq-deb.XXXXXX") || {
	echo "FAIL: mktemp -d failed"
	exit 1
}
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' HUP INT PIPE TERM
status=0
fail() {
	echo "FAIL: $*"
	status=1
}

# --- 1. build and package --------------------------------------------------
if ! cmake -S "$SRCDIR" -B "$TMP/build" -G "$GEN" -DCMAKE_C_COMPILER="$CC" \
    -DKQ_BUILD_TESTS=OFF -DKQ_BUILD_BENCH=OFF >"$TMP/build.log" 2>&1 ||
    ! cmake --build "$TMP/build" >>"$TMP/build.log" 2>&1; then
	cat "$TMP/build.log"
	echo "FAIL: configuring or building $SRCDIR failed"
	exit 1
fi
if ! (cd "$TMP/build" && "$CPACK" -G DEB -B "$TMP/pkg") >"$TMP/cpack.log" 2>&1; then
	cat "$TMP/cpack.log"
	echo "FAIL: cpack -G DEB failed"
	exit 1
fi
DEB=""
for f in "$TMP"/pkg/*.deb; do
	[ -f "$f" ] && DEB=$f
done
if [ -z "$DEB" ]; then
	cat "$TMP/cpack.log"
	echo "FAIL: cpack -G DEB produced no .deb"
	exit 1
fi
echo "ok: cpack made ${DEB##*/}"

# --- 2. control fields ------------------------------------------------------
field() { dpkg-deb -f "$DEB" "$1"; }
want_version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' \
    "$TMP/build/CPackConfig.cmake")
[ "$(field Package)" = libkq ] || fail "Package is '$(field Package)', not libkq"
[ -n "$want_version" ] && [ "$(field Version)" = "$want_version" ] ||
	fail "Version is '$(field Version)', the project's is '$want_version'"
depends=$(field Depends)
libc_min=$(printf '%s\n' "$depends" | sed -n 's/.*libc6 (>= \([0-9.]*\)).*/\1/p')
if [ -z "$libc_min" ]; then
	fail "Depends ('$depends') has no 'libc6 (>= V)'"
fi
echo "ok: Package $(field Package), Version $(field Version), Depends $depends"

# --- 3. contents ------------------------------------------------------------
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./||' >"$TMP/contents"
need() {
	if grep -Eqx -e "$1" "$TMP/contents"; then
		return 0
	fi
	fail "the package has no $1"
}
need 'usr/lib[^/]*(/[^/]+)?/libkq\.so'
need 'usr/lib[^/]*(/[^/]+)?/libkq\.so\.[0-9]+'
need 'usr/lib[^/]*(/[^/]+)?/libkq\.a'
need 'usr/include/kqueue/sys/event\.h'
need 'usr/lib[^/]*(/[^/]+)?/pkgconfig/libkq\.pc'
need 'usr/lib[^/]*(/[^/]+)?/cmake/libkq/libkqConfig\.cmake'
need 'usr/lib[^/]*(/[^/]+)?/cmake/libkq/libkqTargets\.cmake'
need 'usr/share/man/man2/kqueue\.2(\.gz)?'
need 'usr/share/man/man2/kevent\.2(\.gz)?'
[ $status -eq 0 ] && echo "ok: library, header, libkq.pc, CMake package and manual pages are in the package"

# --- 4. unpack into a scratch root and build against it --------------------
ROOT=$TMP/root
if ! dpkg-deb -x "$DEB" "$ROOT"; then
	echo "FAIL: dpkg-deb -x failed"
	exit 1
fi
PCFILE=$(find "$ROOT/usr" -path '*/pkgconfig/libkq.pc' | sed -n 1p)
if [ -z "$PCFILE" ]; then
	echo "FAIL: no libkq.pc in the unpacked tree"
	exit 1
fi
PCDIR=$(dirname "$PCFILE")
LIBDIR=$(dirname "$PCDIR")

# The libc version the library needs must not exceed what Depends promises.
if command -v objdump >/dev/null 2>&1 && [ -n "$libc_min" ]; then
	so=$(find "$LIBDIR" -name 'libkq.so.*.*' -type f | sed -n 1p)
	newest=$(objdump -T "$so" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' |
	    sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
	top=$(printf '%s\n%s\n' "$newest" "$libc_min" |
	    sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
	if [ -z "$newest" ]; then
		fail "objdump -T $so shows no GLIBC_ symbol version"
	elif [ "$top" != "$libc_min" ]; then
		fail "libkq.so needs GLIBC_$newest but the package Depends on libc6 (>= $libc_min)"
	elif [ "$newest" != "$libc_min" ]; then
		fail "libkq.so needs GLIBC_$newest at most, but the package Depends on libc6 (>= $libc_min), more than needed"
	else
		echo "ok: libkq.so needs GLIBC_$newest at most; Depends says libc6 (>= $libc_min)"
	fi
fi
if command -v readelf >/dev/null 2>&1; then
	so=$(find "$LIBDIR" -name 'libkq.so.*.*' -type f | sed -n 1p)
	if readelf -d "$so" | grep -q 'NEEDED.*\[libgcc_s\.so\.1\]'; then
		case $depends in
		*libgcc-s1*|*libgcc1*) echo "ok: libkq.so needs libgcc_s.so.1; Depends names libgcc-s1" ;;
		*) fail "libkq.so needs libgcc_s.so.1 but Depends ('$depends') has no libgcc-s1" ;;
		esac
	fi
fi

cat >"$TMP/prog.c" <<'EOF'
#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	struct kevent ch[2], ev[2];
	struct timespec ts = { 5, 0 };
	int kq, p[2], n, i, seen = 0;

	if (pipe(p) == -1 || (kq = kqueue()) == -1) {
		perror("pipe/kqueue");
		return 1;
	}
	EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch[1], 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_MSECONDS, 5,
	    NULL);
	if (write(p[1], "hello", 5) != 5 ||
	    kevent(kq, ch, 2, NULL, 0, NULL) == -1) {
		perror("write/kevent");
		return 1;
	}
	while (seen != 3) {
		n = kevent(kq, NULL, 0, ev, 2, &ts);
		if (n <= 0) {
			fprintf(stderr, "kevent returned %d\n", n);
			return 1;
		}
		for (i = 0; i < n; i++)
			seen |= ev[i].filter == EVFILT_READ &&
			    ev[i].data == 5 ? 1 :
			    ev[i].filter == EVFILT_TIMER ? 2 : 0;
	}
	printf("pipe and timer events seen\n");
	return 0;
}
EOF

run() {    # NAME BINARY
	if LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$2" \
	    >"$TMP/$1.out" 2>&1; then
		echo "ok: $1: $(cat "$TMP/$1.out")"
	else
		cat "$TMP/$1.out"
		fail "$1: the program failed"
	fi
}

# a. the package's libkq.pc.  It names /usr, where the package installs;
# the tree unpacked elsewhere is used as pkg-config users use a moved tree.
# (KQ_NO_PKG_CONFIG=1 in the environment forces the fallback.)
if [ "$(sed -n 's/^prefix=//p' "$PCFILE")" != /usr ]; then
	fail "libkq.pc: $(grep '^prefix=' "$PCFILE"), not prefix=/usr"
fi
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
	how="pkg-config --define-variable=prefix=<root>/usr"
	flags=$(PKG_CONFIG_PATH=$PCDIR pkg-config --define-variable=prefix="$ROOT/usr" \
	    --cflags --libs libkq) ||
		fail "pkg-config --cflags --libs libkq failed on the unpacked tree"
else
	how="libkq.pc read with sed; pkg-config is not installed"
	flags="-I$ROOT/usr/include/kqueue -L$LIBDIR -lkq"
	grep -q '^Libs:.*-lkq' "$PCFILE" || fail "libkq.pc has no -lkq"
fi
echo "flags ($how): $flags"
# shellcheck disable=SC2086
if "$CC" -o "$TMP/prog-pc" "$TMP/prog.c" $flags >"$TMP/cc.log" 2>&1; then
	case $flags in
	*"$ROOT"*) run deb-libkq.pc "$TMP/prog-pc" ;;
	*) fail "the libkq.pc flags do not point into the unpacked tree: $flags" ;;
	esac
else
	cat "$TMP/cc.log"
	fail "compiling against the unpacked package failed"
fi

# b. CMake find_package(libkq) in the unpacked tree
mkdir -p "$TMP/cmake-src"
cp "$TMP/prog.c" "$TMP/cmake-src/prog.c"
cat >"$TMP/cmake-src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(uses_libkq C)
find_package(libkq REQUIRED)
add_executable(prog prog.c)
target_link_libraries(prog libkq::kq)
EOF
if cmake -S "$TMP/cmake-src" -B "$TMP/cmake-build" -G "$GEN" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_PREFIX_PATH="$ROOT/usr" \
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
    >"$TMP/cmake.log" 2>&1 &&
    cmake --build "$TMP/cmake-build" >>"$TMP/cmake.log" 2>&1; then
	found=$(sed -n 's/^libkq_DIR:[A-Z]*=//p' "$TMP/cmake-build/CMakeCache.txt")
	case $found in
	"$ROOT"/*) run deb-find_package "$TMP/cmake-build/prog" ;;
	*) fail "find_package(libkq) used $found, not the unpacked package" ;;
	esac
else
	cat "$TMP/cmake.log"
	fail "a CMake project using find_package(libkq) did not build against the package"
fi

exit $status
