#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deb-lintian: lintian reports no error and no warning on the Debian packages
# `cpack -G DEB` makes (libkq0, libkq-dev and libkq0-dbgsym).
#
# usage: sh deb-lintian.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# A build of SRCDIR of its own, BINDIR/deb-lintian/build (prefix /usr,
# library targets only, the default KQ_DEB_MAINTAINER; Ninja when
# available), is packaged with `cpack -G DEB` into BINDIR/deb-lintian/pkg,
# as in test/sh/deb-package.sh, which checks the packages' contents.  lintian
# then checks the three packages in one run, so that it sees the package
# libkq0-dbgsym's documentation link and dependency point to.  Every tag is
# printed (information tags too, with -I); an error or a warning (E: or W:)
# fails the test, and so does lintian failing to run.  The packages carry no
# lintian overrides: a tag that does not apply would be overridden in
# /usr/share/lintian/overrides/<package>, with a comment saying why.
# Skipped (exit 77) when lintian, dpkg-deb or cpack is missing; with
# KQ_REQUIRE_TOOLS=1 in the environment (.ci/run, which installs lintian) a
# missing lintian or dpkg-deb is a failure instead.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"

for tool in lintian dpkg-deb; do
	kq_require $tool "apt-get install $tool"
done
kq_need_cmake
kq_cpack
kq_generator
kq_tmpdir lintian

# --- the packages --------------------------------------------------------------
kq_deb_build "$BINDIR/deb-lintian"
pkgs=""
names=""
rt=""
dev=""
for p in "$PKG"/*.deb "$PKG"/*.ddeb; do
	[ -f "$p" ] || continue
	pkgs="$pkgs $p"
	names="$names ${p##*/}"
	case ${p##*/} in
	libkq-dev_*.deb) dev=$p ;;
	libkq[0-9]*_*.deb) rt=$p ;;
	esac
done
if [ -z "$rt" ] || [ -z "$dev" ]; then
	cat "$TMP/cpack.log"
	echo "FAIL: cpack made${names:- nothing}, not libkqN and libkq-dev"
	exit 1
fi

# --- lintian ---------------------------------------------------------------------
echo "lintian $(lintian --version 2>/dev/null | sed 's/^Lintian v//') on$names"
# shellcheck disable=SC2086
lintian -I --tag-display-limit 0 --fail-on error,warning $pkgs \
    >"$TMP/lintian.out" 2>"$TMP/lintian.err"
rc=$?
# lintian says this whenever it runs as root; nothing about the packages
grep -v '^running with root privileges is not recommended!$' "$TMP/lintian.err" >"$TMP/lintian.err2"
cat "$TMP/lintian.out" "$TMP/lintian.err2"
ew=$(grep -c '^[EW]: ' "$TMP/lintian.out")
others=$(grep -c '^[A-Z]: ' "$TMP/lintian.out")
if [ "$ew" -gt 0 ]; then
	echo "FAIL: lintian reports $ew error(s) or warning(s)"
	exit 1
fi
if [ $rc -ne 0 ]; then
	echo "FAIL: lintian exited with $rc"
	exit 1
fi
echo "ok: lintian: no error and no warning ($others other tag(s), printed above)"
exit 0
