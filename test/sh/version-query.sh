#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# version-query: libkq_version() and libkq_version_number() report the
# version the header's LIBKQ_VERSION_* macros and the CMake project give.
#
# usage: sh version-query.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# The project version is read from SRCDIR/CMakeLists.txt
# (project(libkq VERSION X.Y.Z ...)) and, when BINDIR has a CMakeCache.txt,
# from its CMAKE_PROJECT_VERSION, which must agree.  A program compiled
# against SRCDIR/include and linked with LIBKQ_SO_PATH prints the macros
# LIBKQ_VERSION_MAJOR, _MINOR, _PATCH, _STRING and _NUMBER and what the two
# functions return; all must equal X.Y.Z, and both numbers must be
# X << 16 | Y << 8 | Z.  The functions must be exported at version LIBKQ_0
# (nm -D, when nm is installed).
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"

kq_tmpdir version

want=$(sed -n 's/^project(libkq VERSION \([0-9][0-9.]*\).*/\1/p' \
    "$SRCDIR/CMakeLists.txt" | sed -n 1p)
case $want in
*.*.*) ;;
*)
	echo "FAIL: no 'project(libkq VERSION X.Y.Z' in $SRCDIR/CMakeLists.txt"
	exit 1
	;;
esac
if [ -f "$BINDIR/CMakeCache.txt" ]; then
	cached=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$BINDIR/CMakeCache.txt")
	[ "$cached" = "$want" ] ||
		fail "$BINDIR was configured with project version '$cached', CMakeLists.txt says $want"
fi
major=${want%%.*}
rest=${want#*.}
minor=${rest%%.*}
patch=${rest#*.}
number=$(( (major << 16) | (minor << 8) | patch ))

kq_sanitize

cat >"$TMP/v.c" <<'EOF'
#include <sys/event.h>
#include <stdio.h>

int main(void)
{
	printf("macros %d %d %d %s %u\n", LIBKQ_VERSION_MAJOR,
	    LIBKQ_VERSION_MINOR, LIBKQ_VERSION_PATCH, LIBKQ_VERSION_STRING,
	    (unsigned int)LIBKQ_VERSION_NUMBER);
	printf("library %s %u\n", libkq_version(), libkq_version_number());
	return 0;
}
EOF
LIBDIR=$(dirname "$SO")
# shellcheck disable=SC2086
if ! "$CC" $SAN -Wall -Wextra -Werror -I"$SRCDIR/include" -o "$TMP/v" "$TMP/v.c" \
    -L"$LIBDIR" -lkq >"$TMP/cc.log" 2>&1; then
	cat "$TMP/cc.log"
	echo "FAIL: the version program did not build"
	exit 1
fi
if ! out=$(LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$TMP/v"); then
	printf '%s\n' "$out"
	echo "FAIL: the version program failed"
	exit 1
fi
printf '%s\n' "$out"
macros=$(printf '%s\n' "$out" | sed -n 's/^macros //p')
library=$(printf '%s\n' "$out" | sed -n 's/^library //p')
[ "$macros" = "$major $minor $patch $want $number" ] ||
	fail "the header's macros say '$macros', the project '$major $minor $patch $want $number'"
[ "$library" = "$want $number" ] ||
	fail "libkq_version(), libkq_version_number() say '$library', the project '$want $number'"

if command -v nm >/dev/null 2>&1; then
	for f in libkq_version libkq_version_number; do
		nm -D --defined-only "$SO" | grep -q " T $f@@LIBKQ_0\$" ||
			fail "$SO does not export $f at version LIBKQ_0"
	done
fi
[ $status -eq 0 ] && echo "ok: project, header and library all say $want ($(printf '0x%06x' "$number"))"
exit $status
