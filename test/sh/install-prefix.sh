#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# install-prefix: `make install PREFIX=...` installs into PREFIX whatever
# prefix the build directory was configured with, builds only what it
# installs, and `make uninstall` removes exactly what it installed.
#
# usage: sh install-prefix.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# In a temporary directory TMP:
# 1. `make configure BUILD=TMP/build PREFIX=TMP/first` (the state `make demo`
#    leaves: a build directory configured for another prefix; tests and
#    benchmarks enabled as by default), then
#    `make install BUILD=TMP/build PREFIX=TMP/second`.
#    Every line of TMP/build/install_manifest.txt must be under TMP/second
#    and exist; the library (libkq.so, .so.N, .a), include/kqueue/sys/event.h,
#    libkq.pc, the CMake package, kqueue.2, kevent.2, libkq_version.3 and
#    the LICENSE must be among them; TMP/first must not exist.  No program
#    (test, example, benchmark) may have been built: the only executable
#    file in TMP/build outside CMakeFiles/ is the shared library.
# 2. `make uninstall BUILD=TMP/build` removes every listed file; no file or
#    link is left under TMP/second, nor the libkq-only directories
#    (include/kqueue, lib*/cmake/libkq, share/doc/libkq).
# 3. The same with DESTDIR=TMP/stage and PREFIX=/opt/libkq: the files land
#    in TMP/stage/opt/libkq and uninstall removes them from there.
# The temporary directory is removed on exit.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"

for tool in make cmake; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "SKIP: $tool is not in PATH"
		exit 77
	fi
done
# Not a sub-make of whatever runs ctest.
unset MAKEFLAGS MFLAGS MAKELEVEL DESTDIR

kq_tmpdir prefix
B=$TMP/build
MANIFEST=$B/install_manifest.txt

mk() {    # LOG make-arguments...
	log=$1
	shift
	if ! make -C "$SRCDIR" "$@" >"$TMP/$log.log" 2>&1; then
		cat "$TMP/$log.log"
		echo "FAIL: make $* failed"
		exit 1
	fi
}

# Every file of the manifest exists under $1 and the expected ones are there.
check_installed() {    # ROOT
	if [ ! -s "$MANIFEST" ]; then
		fail "no $MANIFEST after make install"
		return
	fi
	n=0
	while IFS= read -r f || [ -n "$f" ]; do
		[ -n "$f" ] || continue
		n=$((n + 1))
		case $f in
		"$2"/*) ;;
		*) fail "installed outside $2: $f" ;;
		esac
		[ -e "$1$f" ] || [ -L "$1$f" ] || fail "listed but not installed: $1$f"
	done <"$MANIFEST"
	for want in '/lib[^/]*(/[^/]+)?/libkq\.so' '/lib[^/]*(/[^/]+)?/libkq\.so\.[0-9]+' \
	    '/lib[^/]*(/[^/]+)?/libkq\.a' '/include/kqueue/sys/event\.h' \
	    '/lib[^/]*(/[^/]+)?/pkgconfig/libkq\.pc' \
	    '/lib[^/]*(/[^/]+)?/cmake/libkq/libkqConfig\.cmake' \
	    '/lib[^/]*(/[^/]+)?/cmake/libkq/libkqTargets\.cmake' \
	    '/share/man/man2/kqueue\.2' '/share/man/man2/kevent\.2' \
	    '/share/man/man3/libkq_version\.3' \
	    '/share/doc/libkq/LICENSE'; do
		grep -Eqx -e "$2$want" "$MANIFEST" || fail "not installed: $2$want"
	done
	echo "ok: $n files installed under $1$2"
}

check_uninstalled() {    # ROOT
	left=$(find "$1" ! -type d 2>/dev/null)
	[ -z "$left" ] || fail "left after make uninstall: $left"
	dirs=$(find "$1" -type d \( -path '*/include/kqueue' -o \
	    -path '*/cmake/libkq' -o -path '*/doc/libkq' \) 2>/dev/null)
	[ -z "$dirs" ] || fail "libkq's directories left after make uninstall: $dirs"
	[ $status -eq 0 ] && echo "ok: make uninstall removed everything from $1"
}

# --- 1. configured for one prefix, installed into another ------------------
mk configure configure BUILD="$B" PREFIX="$TMP/first" \
    CMAKE_FLAGS="-DCMAKE_C_COMPILER=$CC"
grep -q "^CMAKE_INSTALL_PREFIX:PATH=$TMP/first\$" "$B/CMakeCache.txt" ||
	fail "the build directory was not configured for $TMP/first"
mk install install BUILD="$B" PREFIX="$TMP/second"
check_installed "" "$TMP/second"
[ -e "$TMP/first" ] && fail "make install wrote into the configured prefix $TMP/first"

progs=$(cd "$B" && find . -path ./CMakeFiles -prune -o -type f -perm -u+x \
    ! -name 'libkq.so*' -print)
if [ -n "$progs" ]; then
	fail "make install built more than it installs:" $progs
else
	echo "ok: make install built only the libraries"
fi
# It tells how to find the library outside the linker's path.
grep -q 'LD_LIBRARY_PATH' "$TMP/install.log" ||
	fail "make install into $TMP/second did not say how to run programs"

# --- 2. uninstall -------------------------------------------------------------
mk uninstall uninstall BUILD="$B"
check_uninstalled "$TMP/second"

# --- 3. DESTDIR ---------------------------------------------------------------
mk install-destdir install BUILD="$B" PREFIX=/opt/libkq DESTDIR="$TMP/stage"
check_installed "$TMP/stage" /opt/libkq
mk uninstall-destdir uninstall BUILD="$B" DESTDIR="$TMP/stage"
check_uninstalled "$TMP/stage"

exit $status
