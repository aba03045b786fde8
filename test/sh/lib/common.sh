# SPDX-License-Identifier: BSD-2-Clause
# Sourced by the test/sh/*.sh checks (not a test itself: the glob that
# registers them does not reach this directory).  Each check takes the
# arguments SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER; exit 0 pass, 1 fail,
# 77 skip with the reason printed.

# kq_args MIN USAGE "$@": SRCDIR, BINDIR, SO and CC from the arguments, of
# which at least MIN must be given.
kq_args() {
	kq_min=$1
	kq_use=$2
	shift 2
	if [ $# -lt "$kq_min" ]; then
		echo "usage: $0 $kq_use" >&2
		exit 1
	fi
	SRCDIR=${1-}
	BINDIR=${2-}
	SO=${3-}
	CC=${4-}
}

# fail MESSAGE: a failure that does not stop the check (status=1).
fail() {
	echo "FAIL: $*"
	status=1
}

# kq_tmpdir NAME: a fresh directory TMP, removed on exit; status=0.
kq_tmpdir() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/libkq-$1.XXXXXX") || {
		echo "FAIL: mktemp -d failed"
		exit 1
	}
	trap 'rm -rf "$TMP"' EXIT
	trap 'exit 1' HUP INT PIPE TERM
	status=0
}

# kq_need_cmake: skips the check without cmake.
kq_need_cmake() {
	if ! command -v cmake >/dev/null 2>&1; then
		echo "SKIP: cmake is not in PATH"
		exit 77
	fi
}

# kq_generator: GEN, the cmake generator for ninja or else make; skips the
# check with neither.
kq_generator() {
	if command -v ninja >/dev/null 2>&1; then
		GEN=Ninja
	elif command -v make >/dev/null 2>&1; then
		GEN="Unix Makefiles"
	else
		echo "SKIP: neither ninja nor make is available"
		exit 77
	fi
}

# kq_cpack: CPACK, the cpack of the cmake in PATH (which kq_need_cmake
# found); skips the check without it.
kq_cpack() {
	CPACK=$(dirname "$(command -v cmake)")/cpack
	[ -x "$CPACK" ] || CPACK=$(command -v cpack) || {
		echo "SKIP: cpack is not installed next to cmake"
		exit 77
	}
}

# kq_require TOOL WHY: skips the check without TOOL (WHY says where to get
# it), or fails it where KQ_REQUIRE_TOOLS=1 says the tool must be there.
kq_require() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "${KQ_REQUIRE_TOOLS:-}" = 1 ]; then
		echo "FAIL: $1 is not installed (KQ_REQUIRE_TOOLS=1)"
		exit 1
	fi
	echo "SKIP: $1 is not installed ($2)"
	exit 77
}

# kq_sanitize: SAN, the -fsanitize= option of a sanitizer build of BINDIR
# (KQ_SANITIZE in its cache), which programs using its library need too.
kq_sanitize() {
	SAN=""
	if [ -f "$BINDIR/CMakeCache.txt" ]; then
		san=$(sed -n 's/^KQ_SANITIZE:[A-Z]*=//p' "$BINDIR/CMakeCache.txt")
		[ -n "$san" ] && SAN="-fsanitize=$san"
	fi
}

# kq_deb_build WORK: builds SRCDIR with CC in WORK/build for /usr and makes
# its Debian packages in PKG=WORK/pkg, or fails the check.
kq_deb_build() {
	WORK=$1
	PKG=$WORK/pkg
	# A fresh cache each time: with a cache made for another compiler,
	# cmake would start over without the -D options given here.
	rm -f "$WORK/build/CMakeCache.txt"
	if ! cmake -S "$SRCDIR" -B "$WORK/build" -G "$GEN" -DCMAKE_C_COMPILER="$CC" \
	    -DCMAKE_INSTALL_PREFIX=/usr -DKQ_BUILD_TESTS=OFF -DKQ_BUILD_BENCH=OFF \
	    >"$TMP/build.log" 2>&1 ||
	    ! cmake --build "$WORK/build" -j 2 >>"$TMP/build.log" 2>&1; then
		cat "$TMP/build.log"
		echo "FAIL: configuring or building $SRCDIR in $WORK/build failed"
		exit 1
	fi
	rm -rf "$PKG"
	if ! (cd "$WORK/build" && "$CPACK" -G DEB -B "$PKG") >"$TMP/cpack.log" 2>&1; then
		cat "$TMP/cpack.log"
		echo "FAIL: cpack -G DEB failed"
		exit 1
	fi
}

# kq_consumer_cmake DIR SOURCE PROJECT: DIR/CMakeLists.txt building SOURCE
# (in DIR) against an installed libkq found with find_package, as prog
# (libkq::kq) and prog_static (libkq::kq_static).
kq_consumer_cmake() {
	cat >"$1/CMakeLists.txt" <<KQEOF
cmake_minimum_required(VERSION 3.16)
project($3 C)
find_package(libkq REQUIRED)
add_executable(prog $2)
target_link_libraries(prog libkq::kq)
add_executable(prog_static $2)
target_link_libraries(prog_static libkq::kq_static)
KQEOF
}
