#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# install-helper: the steps of `make install` and `make uninstall` that
# cmake --install does not do.
#
# usage: sh cmake/install-helper.sh installed MANIFEST
#        sh cmake/install-helper.sh uninstall MANIFEST
#
# MANIFEST is the install_manifest.txt that `cmake --install` writes into
# the build directory: one installed path per line, without DESTDIR (which
# is added again here when it is set).
#
# installed: when the shared library went into a directory the dynamic
#   linker searches (ldconfig's directories, e.g. /usr/local/lib) and we
#   are root, run ldconfig so that programs find libkq.so.N at once;
#   otherwise say what to do.  Nothing when DESTDIR is set (a staging
#   tree, e.g. for a package).
# uninstall: remove every file and link MANIFEST lists, then the
#   directories that only libkq uses (include/kqueue, lib*/cmake/libkq,
#   share/doc/libkq) if they are left empty, then run ldconfig as in
#   "installed" so that its cache forgets libkq.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 installed|uninstall MANIFEST" >&2
	exit 2
fi
MODE=$1
MANIFEST=$2

if [ ! -f "$MANIFEST" ]; then
	echo "install-helper: $MANIFEST does not exist (nothing installed from this build directory)" >&2
	exit 1
fi

# ldconfig lives in /sbin, which a user's PATH may lack.
LDCONFIG=""
for c in "$(command -v ldconfig 2>/dev/null)" /sbin/ldconfig /usr/sbin/ldconfig; do
	if [ -n "$c" ] && [ -x "$c" ]; then
		LDCONFIG=$c
		break
	fi
done

# The directory of the installed libkq.so.N, from the manifest.
libdir() {
	sed -n 's|^\(.*\)/libkq\.so\.[0-9][0-9]*$|\1|p' "$MANIFEST" | sed -n 1p
}

# Whether $1 is one of the directories the dynamic linker searches (as
# ldconfig lists them; compared after resolving links, e.g. /usr/lib
# being /lib on a merged-/usr system).
searched() {
	[ -n "$LDCONFIG" ] || return 1
	want=$(readlink -f "$1" 2>/dev/null) || return 1
	for d in $("$LDCONFIG" -v -N -X 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p'); do
		[ "$(readlink -f "$d" 2>/dev/null)" = "$want" ] && return 0
	done
	return 1
}

# Refresh the linker cache after installing into or removing from DIR.
refresh() {    # DIR VERB
	[ -z "${DESTDIR:-}" ] || return 0
	[ -n "$1" ] || return 0
	if [ -d "$1" ] && searched "$1"; then
		if [ "$(id -u)" = 0 ]; then
			echo "-- Running $LDCONFIG ($1 is in the dynamic linker's path)"
			"$LDCONFIG" || echo "install-helper: $LDCONFIG failed" >&2
		else
			echo "-- Run ldconfig as root: the dynamic linker's cache does not yet know what was $2 in $1"
		fi
	elif [ "$2" = installed ]; then
		echo "-- $1 is not in the dynamic linker's path; to run programs,"
		echo "   set LD_LIBRARY_PATH=$1, link them with -Wl,-rpath,$1,"
		echo "   or add the directory to /etc/ld.so.conf.d/ and run ldconfig"
	fi
}

case $MODE in
installed)
	refresh "$(libdir)" installed
	;;
uninstall)
	dir=$(libdir)
	status=0
	# The manifest's last line has no newline.
	while IFS= read -r f || [ -n "$f" ]; do
		[ -n "$f" ] || continue
		f=${DESTDIR:-}$f
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "-- Removing: $f"
			rm -f "$f" || status=1
		fi
		# Directories that hold nothing but libkq's files.
		d=${f%/*}
		while :; do
			case $d in
			*/include/kqueue|*/include/kqueue/*|*/cmake/libkq|*/doc/libkq) ;;
			*) break ;;
			esac
			rmdir "$d" 2>/dev/null || break
			echo "-- Removing: $d/"
			d=${d%/*}
		done
	done <"$MANIFEST"
	refresh "$dir" removed
	exit $status
	;;
*)
	echo "usage: $0 installed|uninstall MANIFEST" >&2
	exit 2
	;;
esac
exit 0
