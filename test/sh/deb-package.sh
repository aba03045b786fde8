#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# deb-package: `cpack -G DEB` makes the Debian packages libkq0 and libkq-dev
# (and libkq0-dbgsym), laid out as Debian ships a library, and a program
# builds and runs with them installed.
#
# usage: sh deb-package.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# 1. A build of SRCDIR of its own, BINDIR/deb-package/build (prefix /usr,
#    library targets only; Ninja when available), is built and packaged
#    with `cpack -G DEB` into BINDIR/deb-package/pkg.
# 2. Control fields (dpkg-deb -f): Package, Version (the project's),
#    Section libs / libdevel, Multi-Arch: same (also libkq0-dbgsym's),
#    Maintainer "Name <address>";
#    libkq0 Depends on libc6 (>= V), V exactly the newest GLIBC_ symbol
#    version libkq.so uses (objdump -T), on libgcc-s1 when it needs
#    libgcc_s.so.1 (readelf -d), and, with dpkg-shlibdeps installed, on
#    exactly what dpkg-shlibdeps says; its shlibs file and ldconfig trigger,
#    and no postinst or postrm (the trigger runs ldconfig);
#    libkq-dev Depends on libkq0 (= version).
# 3. Contents (dpkg-deb -c): libkq0 holds only libkq.so.N and libkq.so.N.x.y
#    in /usr/lib/<multiarch triplet> and /usr/share/doc/libkq0/{copyright,
#    changelog.gz}; libkq-dev the libkq.so link, libkq.a, the header,
#    libkq.pc, the CMake files, every page of man/ as NAME.S.gz (the .so
#    pages as links to a page in the package), its copyright and
#    changelog.gz, and CHANGELOG.md.gz.  Both copyright files are the
#    LICENSE, CHANGELOG.md.gz is CHANGELOG.md; changelog.gz is a Debian
#    changelog (native packages) for this version, dated
#    SOURCE_DATE_EPOCH or, in a git checkout, the last commit, so that it
#    does not change with the time of packaging (Multi-Arch: same).
#    Every package's md5sums matches its files (md5sum -c in the unpacked
#    tree).
# 4. Stripped (readelf -S): no .debug_ sections in libkq.so.N.x.y or
#    libkq.a, no LTO bytecode in libkq.a.  With objcopy, readelf and file(1)
#    there (then cpack splits the debug information out), libkq0-dbgsym's
#    .ddeb holds /usr/lib/debug/.build-id/XX/REST.debug for the library's
#    build ID, with the .debug_info, mode 0644, Depends on libkq0
#    (= version), and /usr/share/doc/libkq0-dbgsym is a link to libkq0.
# 5. `dpkg-deb -x` unpacks both into a scratch root: `man -M` shows kevent(2)
#    for EV_SET(2) through the compressed link.
# 6. Using the packages.  As root with a usable dpkg, none of the packages'
#    files on the machine yet and libkq0/libkq-dev not installed:
#    `dpkg -i` installs them, a FreeBSD program is compiled with
#    `pkg-config --cflags --libs libkq` (which must be just
#    -I/usr/include/kqueue -lkq) and with a CMake project using
#    find_package(libkq) (libkq::kq and libkq::kq_static), without any
#    search path, each runs, `man -w 2 EV_SET` finds the page; then
#    `dpkg -r` removes them (always: an EXIT trap) and the test checks that
#    no file of theirs is left.  Otherwise (not root, no dpkg, or
#    KQ_DEB_NO_INSTALL=1 in the environment) the same programs are built
#    against the unpacked tree: libkq.pc with --define-variable=prefix=<root>/usr,
#    CMAKE_PREFIX_PATH=<root>/usr, LD_LIBRARY_PATH; the test says which.
# Skipped (exit 77) when dpkg-deb or cpack is missing; with KQ_REQUIRE_TOOLS=1
# in the environment (.ci/run) a missing dpkg-deb is a failure instead.
# Without dpkg-shlibdeps (package dpkg-dev) the packages carry the fallback
# Depends (cmake/cpack-deb-tools.cmake), which step 2 checks the same way.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"

kq_require dpkg-deb "not a Debian-like system"
kq_need_cmake
kq_cpack
kq_generator
have() { command -v "$1" >/dev/null 2>&1; }

kq_tmpdir deb
INSTALLED=""          # packages this test installed, removed on exit
remove_packages() {
	[ -n "$INSTALLED" ] || return 0
	# shellcheck disable=SC2086
	if ! dpkg -r $INSTALLED >"$TMP/dpkg-r.log" 2>&1; then
		cat "$TMP/dpkg-r.log"
		echo "FAIL: dpkg -r $INSTALLED failed"
		status=1
	fi
	for p in $INSTALLED; do
		case $(dpkg-query -W -f '${Status}' "$p" 2>/dev/null) in
		*not-installed*|"") ;;
		*) dpkg -P "$p" >/dev/null 2>&1 ;;   # leave no trace
		esac
	done
	INSTALLED=""
}
cleanup() {
	remove_packages
	rm -rf "$TMP"
}
trap 'rc=$?; cleanup; [ $status -eq 0 ] || rc=1; exit $rc' EXIT
trap 'exit 1' HUP INT PIPE TERM

# --- 1. build and package --------------------------------------------------
kq_deb_build "$BINDIR/deb-package"
one() {    # GLOB: the one file matching it in $PKG
	set -- "$PKG"/$1
	[ $# -eq 1 ] && [ -f "$1" ] && echo "$1"
}
RT=$(one 'libkq[0-9]*_*.deb')
DEV=$(one 'libkq-dev_*.deb')
DBG=$(one 'libkq[0-9]*-dbgsym_*.ddeb')
if [ -z "$RT" ] || [ -z "$DEV" ]; then
	cat "$TMP/cpack.log"
	ls -l "$PKG"
	echo "FAIL: cpack -G DEB did not make one libkqN and one libkq-dev package"
	exit 1
fi
echo "ok: cpack made $(cd "$PKG" && echo *.deb *.ddeb)"

# --- 2. control fields ------------------------------------------------------
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' \
    "$WORK/build/CPackConfig.cmake")
major=${version%%.*}
field() { dpkg-deb -f "$1" "$2"; }
check_field() {    # DEB FIELD WANT
	got=$(field "$1" "$2")
	[ "$got" = "$3" ] || fail "${1##*/}: $2 is '$got', not '$3'"
}
RTNAME=libkq$major
check_field "$RT" Package "$RTNAME"
check_field "$DEV" Package libkq-dev
for d in "$RT" "$DEV"; do
	check_field "$d" Version "$version"
	check_field "$d" Multi-Arch same
	m=$(field "$d" Maintainer)
	printf '%s\n' "$m" | grep -Eqx '[^<>@]+ <[^<>@ ]+@[^<>@ ]+\.[^<>@ ]+>' ||
		fail "${d##*/}: Maintainer '$m' is not 'Name <address>'"
done
check_field "$RT" Section libs
check_field "$DEV" Section libdevel
case ", $(field "$DEV" Depends), " in
*", $RTNAME (= $version), "*) ;;
*) fail "libkq-dev: Depends '$(field "$DEV" Depends)' has no '$RTNAME (= $version)'" ;;
esac
depends=$(field "$RT" Depends)
echo "ok: $RTNAME and libkq-dev $version, Maintainer $(field "$RT" Maintainer)"
echo "    $RTNAME: Section $(field "$RT" Section), Multi-Arch $(field "$RT" Multi-Arch), Depends $depends"
echo "    libkq-dev: Section $(field "$DEV" Section), Multi-Arch $(field "$DEV" Multi-Arch), Depends $(field "$DEV" Depends)"
dpkg-deb --ctrl-tarfile "$RT" | tar -xOf - ./shlibs >"$TMP/shlibs" 2>/dev/null
want_shlibs="libkq $major $RTNAME (>= $version)"
[ "$(cat "$TMP/shlibs")" = "$want_shlibs" ] ||
	fail "$RTNAME: shlibs is '$(cat "$TMP/shlibs")', not '$want_shlibs'"
dpkg-deb --ctrl-tarfile "$RT" | tar -xOf - ./triggers 2>/dev/null |
    grep -qx 'activate-noawait ldconfig' ||
	fail "$RTNAME: no triggers file activating ldconfig"
for d in "$RT" "$DEV"; do
	scripts=$(dpkg-deb --ctrl-tarfile "$d" | tar -tf - | grep -E '(pre|post)(inst|rm)$')
	[ -z "$scripts" ] || fail "${d##*/} has maintainer scripts: $(echo $scripts)"
done

# --- 3. contents ------------------------------------------------------------
list() {   # DEB OUT: "path" or "path -> target" per non-directory entry
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { p = $6; for (i = 7; i <= NF; i++) p = p " " $i; print p }' |
	    sed 's|^\./||' >"$2"
}
list "$RT" "$TMP/rt.list"
list "$DEV" "$TMP/dev.list"
triplet=$("$CC" -print-multiarch 2>/dev/null)
[ -n "$triplet" ] || triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
if [ -n "$triplet" ]; then
	LIBRE="usr/lib/$triplet"
else
	LIBRE='usr/lib/[a-z0-9_]+-linux-[a-z0-9_]+'
fi
need() {    # LIST REGEX
	grep -Eqx -e "$2" "$1" || fail "${1##*/}: no $2"
}
need "$TMP/rt.list" "$LIBRE/libkq\.so\.$major -> libkq\.so\.$version"
need "$TMP/rt.list" "$LIBRE/libkq\.so\.$version"
need "$TMP/rt.list" "usr/share/doc/$RTNAME/copyright"
need "$TMP/rt.list" "usr/share/doc/$RTNAME/changelog\.gz"
extra=$(grep -Evx -e "$LIBRE/libkq\.so\.$major -> libkq\.so\.$version" \
    -e "$LIBRE/libkq\.so\.$version" -e "usr/share/doc/$RTNAME/(copyright|changelog\.gz)" \
    "$TMP/rt.list")
[ -z "$extra" ] || fail "$RTNAME holds more than the library and its doc files: $extra"
need "$TMP/dev.list" "$LIBRE/libkq\.so -> libkq\.so\.$major"
need "$TMP/dev.list" "$LIBRE/libkq\.a"
need "$TMP/dev.list" 'usr/include/kqueue/sys/event\.h'
need "$TMP/dev.list" "$LIBRE/pkgconfig/libkq\.pc"
need "$TMP/dev.list" "$LIBRE/cmake/libkq/libkqConfig\.cmake"
need "$TMP/dev.list" "$LIBRE/cmake/libkq/libkqConfigVersion\.cmake"
need "$TMP/dev.list" "$LIBRE/cmake/libkq/libkqTargets\.cmake"
need "$TMP/dev.list" 'usr/share/doc/libkq-dev/copyright'
need "$TMP/dev.list" 'usr/share/doc/libkq-dev/changelog\.gz'
need "$TMP/dev.list" 'usr/share/doc/libkq-dev/CHANGELOG\.md\.gz'
sed 's/ -> .*//' "$TMP/dev.list" | grep -Eq "libkq\.so\.$major" &&
	fail "libkq-dev holds the shared library itself (it belongs in $RTNAME)"
grep -q 'usr/share/doc/libkq/' "$TMP/rt.list" "$TMP/dev.list" &&
	fail "a package holds usr/share/doc/libkq/ (the doc files are per package)"
grep -E '^usr/share/man/' "$TMP/dev.list" | grep -Ev '\.gz( -> .*)?$' |
    sed 's/^/uncompressed manual page: /' >"$TMP/man-bad"
[ -s "$TMP/man-bad" ] && fail "libkq-dev: $(cat "$TMP/man-bad")"
npages=0
nlinks=0
for p in "$SRCDIR"/man/*.[1-9]; do
	[ -f "$p" ] || continue
	name=${p##*/}
	sec=${name##*.}
	body=$(grep -v -e '^\.\\"' -e '^[[:space:]]*$' "$p")
	case $body in
	.so\ *)
		# a link page: a symbolic link to the compressed page it names
		target=${body#.so }
		entry=$(grep -E "^usr/share/man/man$sec/$name\.gz -> " "$TMP/dev.list")
		if [ -z "$entry" ]; then
			fail "libkq-dev: usr/share/man/man$sec/$name.gz is not a symbolic link"
			continue
		fi
		dest=${entry#* -> }
		case $dest in
		../*) resolved=usr/share/man/${dest#../} ;;
		*) resolved=usr/share/man/man$sec/$dest ;;
		esac
		[ "$resolved" = "usr/share/man/$target.gz" ] ||
			fail "libkq-dev: man$sec/$name.gz -> $dest, not to $target.gz"
		grep -Eqx "$(printf '%s' "$resolved" | sed 's/\./\\./g')" "$TMP/dev.list" ||
			fail "libkq-dev: man$sec/$name.gz -> $dest, which is not in the package"
		nlinks=$((nlinks + 1))
		;;
	*)
		need "$TMP/dev.list" "usr/share/man/man$sec/$(printf '%s' "$name" | sed 's/\./\\./g')\.gz"
		npages=$((npages + 1))
		;;
	esac
done
[ $nlinks -gt 0 ] || fail "no .so link page in $SRCDIR/man (EV_SET.2 is one)"
[ $status -eq 0 ] &&
	echo "ok: $RTNAME holds libkq.so.$major and libkq.so.$version in /$LIBRE and its copyright; libkq-dev the link, libkq.a, header, libkq.pc, CMake files, $npages manual pages .gz and $nlinks links to them"

# --- 4. stripped; the debug information ----------------------------------
ROOT=$TMP/root
if ! dpkg-deb -x "$RT" "$ROOT" || ! dpkg-deb -x "$DEV" "$ROOT"; then
	echo "FAIL: dpkg-deb -x failed"
	exit 1
fi
LIBDIR=$(dirname "$(find "$ROOT/usr/lib" -name "libkq.so.$version" | sed -n 1p)")
SO=$LIBDIR/libkq.so.$version
for doc in "$ROOT/usr/share/doc/$RTNAME/copyright" "$ROOT/usr/share/doc/libkq-dev/copyright"; do
	cmp -s "$doc" "$SRCDIR/LICENSE" || fail "${doc#"$ROOT"/} is not the LICENSE"
done
gzip -dc "$ROOT/usr/share/doc/libkq-dev/CHANGELOG.md.gz" | cmp -s - "$SRCDIR/CHANGELOG.md" ||
	fail "usr/share/doc/libkq-dev/CHANGELOG.md.gz is not CHANGELOG.md"
# The Debian changelog: this version, the maintainer, and the date of the
# sources (the same in every package, whenever it was made).
epoch=${SOURCE_DATE_EPOCH:-}
if [ -z "$epoch" ] && have git &&
    top=$(git -C "$SRCDIR" rev-parse --show-toplevel 2>/dev/null) &&
    [ "$(cd "$top" && pwd -P)" = "$(cd "$SRCDIR" && pwd -P)" ]; then
	epoch=$(git -C "$SRCDIR" log -1 --format=%ct 2>/dev/null)
fi
for p in "$RTNAME" libkq-dev; do
	gzip -dc "$ROOT/usr/share/doc/$p/changelog.gz" >"$TMP/changelog.$p" ||
		fail "usr/share/doc/$p/changelog.gz is not gzip"
done
cmp -s "$TMP/changelog.$RTNAME" "$TMP/changelog.libkq-dev" ||
	fail "the changelog.gz of $RTNAME and of libkq-dev differ"
head -n 1 "$TMP/changelog.$RTNAME" | grep -qx "libkq ($version) unstable; urgency=medium" ||
	fail "changelog.gz starts '$(head -n 1 "$TMP/changelog.$RTNAME")', not 'libkq ($version) unstable; urgency=medium'"
trailer=$(grep '^ -- ' "$TMP/changelog.$RTNAME")
case $trailer in
" -- $(field "$RT" Maintainer)  "*) ;;
*) fail "changelog.gz: trailer '$trailer' does not name the Maintainer" ;;
esac
if [ -n "$epoch" ]; then
	want=$(LC_ALL=C date -u -d "@$epoch" '+%a, %d %b %Y %H:%M:%S +0000')
	if [ "${trailer##*>  }" = "$want" ]; then
		echo "ok: changelog.gz is dated $want, the date of the sources"
	else
		fail "changelog.gz is dated '${trailer##*>  }', not the sources' $want"
	fi
else
	echo "note: no SOURCE_DATE_EPOCH and not a git checkout: the changelog's date is CHANGELOG.md's"
fi
# md5sums, checked against the unpacked files
for d in "$RT" "$DEV"; do
	dpkg-deb --ctrl-tarfile "$d" | tar -xOf - ./md5sums >"$TMP/md5sums" 2>/dev/null ||
		fail "${d##*/} has no md5sums"
	(cd "$ROOT" && md5sum --quiet -c "$TMP/md5sums") >"$TMP/md5.log" 2>&1 ||
		fail "${d##*/}: md5sums does not match its files: $(cat "$TMP/md5.log")"
done
if have readelf; then
	if readelf -S "$SO" | grep -q '\.debug_'; then
		fail "libkq.so.$version has .debug_ sections: $(readelf -S "$SO" | grep -o '\.debug_[a-z_]*' | tr '\n' ' ')"
	fi
	if readelf -S "$LIBDIR/libkq.a" | grep -Eq '\.debug_|\.gnu\.lto_|\.gnu\.debuglto_'; then
		fail "libkq.a has debug or LTO sections: $(readelf -S "$LIBDIR/libkq.a" |
		    grep -Eo '\.(debug|gnu\.lto|gnu\.debuglto)_[a-z_.]*' | sort -u | tr '\n' ' ')"
	fi
	have file && { file "$SO" | grep -q ', stripped' || fail "file(1): $(file "$SO")"; }
	[ $status -eq 0 ] && echo "ok: libkq.so.$version and libkq.a have no debug sections (readelf -S)"
else
	echo "note: readelf is not installed; stripping not checked"
fi
if have objcopy && have readelf && have file; then
	if [ -z "$DBG" ]; then
		fail "no libkq0-dbgsym .ddeb, though objcopy, readelf and file are installed"
	else
		check_field "$DBG" Package "$RTNAME-dbgsym"
		check_field "$DBG" Multi-Arch same
		case $(field "$DBG" Depends) in
		*"$RTNAME (= $version)"*) ;;
		*) fail "${DBG##*/}: Depends '$(field "$DBG" Depends)' lacks $RTNAME (= $version)" ;;
		esac
		id=$(readelf -n "$SO" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
		rest=${id#??}
		dbgfile=usr/lib/debug/.build-id/${id%"$rest"}/$rest.debug
		mkdir "$TMP/dbg"
		dpkg-deb -x "$DBG" "$TMP/dbg"
		if [ -z "$id" ] || [ ! -f "$TMP/dbg/$dbgfile" ]; then
			fail "${DBG##*/} has no $dbgfile (build ID '$id')"
		elif ! readelf -S "$TMP/dbg/$dbgfile" | grep -q '\.debug_info'; then
			fail "${DBG##*/}: $dbgfile has no .debug_info"
		else
			echo "ok: ${DBG##*/} holds /$dbgfile with the debug information"
		fi
		mode=$(dpkg-deb -c "$DBG" | awk -v f="./$dbgfile" '$6 == f { print $1 }')
		[ "$mode" = "-rw-r--r--" ] || fail "${DBG##*/}: /$dbgfile is '$mode', not -rw-r--r--"
		doclink=$(dpkg-deb -c "$DBG" | awk -v f="./usr/share/doc/$RTNAME-dbgsym" '$6 == f && $7 == "->" { print $8 }')
		[ "$doclink" = "$RTNAME" ] ||
			fail "${DBG##*/}: /usr/share/doc/$RTNAME-dbgsym is not a link to $RTNAME ('$doclink')"
		dpkg-deb --ctrl-tarfile "$DBG" | tar -xOf - ./md5sums >"$TMP/md5sums" 2>/dev/null
		(cd "$TMP/dbg" && md5sum --quiet -c "$TMP/md5sums") >"$TMP/md5.log" 2>&1 ||
			fail "${DBG##*/}: md5sums does not match its files: $(cat "$TMP/md5.log")"
	fi
else
	echo "note: objcopy, readelf or file(1) is missing: the library is stripped with no -dbgsym package"
fi

# --- 2 (cont.). Depends against the library in the package ------------------
libc_min=$(printf '%s\n' "$depends" | sed -n 's/.*libc6 (>= \([0-9.]*\)).*/\1/p')
[ -n "$libc_min" ] || fail "$RTNAME: Depends ('$depends') has no 'libc6 (>= V)'"
if have objdump && [ -n "$libc_min" ]; then
	newest=$(objdump -T "$SO" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' |
	    sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
	if [ "$newest" != "$libc_min" ]; then
		fail "libkq.so needs GLIBC_$newest at most, but $RTNAME Depends on libc6 (>= $libc_min)"
	else
		echo "ok: libkq.so needs GLIBC_$newest at most; Depends says libc6 (>= $libc_min)"
	fi
fi
if have readelf && readelf -d "$SO" | grep -q 'NEEDED.*\[libgcc_s\.so\.1\]'; then
	case $depends in
	*libgcc-s1*|*libgcc1*) echo "ok: libkq.so needs libgcc_s.so.1; Depends names libgcc-s1" ;;
	*) fail "libkq.so needs libgcc_s.so.1 but Depends ('$depends') has no libgcc-s1" ;;
	esac
fi
if have dpkg-shlibdeps; then
	mkdir -p "$TMP/shl/debian"
	: >"$TMP/shl/debian/control"
	computed=$(cd "$TMP/shl" && dpkg-shlibdeps -O "$SO" 2>/dev/null |
	    sed -n 's/^shlibs:Depends=//p')
	if [ "$computed" = "$depends" ]; then
		echo "ok: $RTNAME Depends is what dpkg-shlibdeps computes"
	else
		fail "$RTNAME Depends is '$depends'; dpkg-shlibdeps computes '$computed'"
	fi
else
	echo "note: dpkg-shlibdeps (dpkg-dev) is not installed: Depends is the fallback of cmake/cpack-deb-tools.cmake"
fi

# --- 5. the manual page links, unpacked --------------------------------------
if have man; then
	out=$(MANPAGER=cat MANWIDTH=80 man -M "$ROOT/usr/share/man" 2 EV_SET 2>&1 | sed -n '1,12p')
	case $out in
	*EV_SET*) echo "ok: man -M <root>/usr/share/man 2 EV_SET shows kevent(2) through EV_SET.2.gz" ;;
	*) fail "man 2 EV_SET in the unpacked tree: $out" ;;
	esac
fi

# --- 6. use the packages ---------------------------------------------------
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
	printf("pipe and timer events seen, libkq %s\n", libkq_version());
	return 0;
}
EOF
mkdir -p "$TMP/cmake-src"
cp "$TMP/prog.c" "$TMP/cmake-src/prog.c"
kq_consumer_cmake "$TMP/cmake-src" prog.c uses_libkq

# Install with dpkg only where that leaves the machine as it was: as root,
# with dpkg working, the packages not installed and none of their files
# present (dpkg would take over, then remove, a file installed otherwise).
MODE=unpacked
why=""
if [ -n "${KQ_DEB_NO_INSTALL:-}" ]; then
	why="KQ_DEB_NO_INSTALL is set"
elif [ "$(id -u)" != 0 ]; then
	why="not running as root"
elif ! have dpkg || ! dpkg --audit >/dev/null 2>&1; then
	why="dpkg is not usable"
else
	for p in "$RTNAME" libkq-dev; do
		case $(dpkg-query -W -f '${Status}' "$p" 2>/dev/null) in
		*not-installed*|"") ;;
		*) why="$p is installed on this machine already" ;;
		esac
	done
	if [ -z "$why" ]; then
		for f in $(cat "$TMP/rt.list" "$TMP/dev.list" | sed 's/ -> .*//'); do
			if [ -e "/$f" ] || [ -L "/$f" ]; then
				why="/$f exists already"
				break
			fi
		done
	fi
	[ -n "$why" ] || MODE=installed
fi

run() {    # NAME BINARY [LD_LIBRARY_PATH]
	if LD_LIBRARY_PATH=${3:-}${3:+${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}} "$2" \
	    >"$TMP/$1.out" 2>&1; then
		echo "ok: $1: $(cat "$TMP/$1.out")"
	else
		cat "$TMP/$1.out"
		fail "$1: the program failed"
	fi
}

if [ "$MODE" = installed ]; then
	echo "using the packages installed with dpkg -i (root; removed with dpkg -r on exit)"
	tries=0
	while :; do
		INSTALLED="libkq-dev $RTNAME"
		dpkg -i "$RT" "$DEV" >"$TMP/dpkg-i.log" 2>&1 && break
		# another dpkg or apt may hold the lock for a while
		if grep -q 'lock' "$TMP/dpkg-i.log" && [ $tries -lt 30 ]; then
			INSTALLED=""
			tries=$((tries + 1))
			sleep 2
			continue
		fi
		cat "$TMP/dpkg-i.log"
		echo "FAIL: dpkg -i ${RT##*/} ${DEV##*/} failed"
		exit 1
	done
	for p in "$RTNAME" libkq-dev; do
		[ "$(dpkg-query -W -f '${Status}' "$p")" = "install ok installed" ] ||
			fail "after dpkg -i, $p is '$(dpkg-query -W -f '${Status}' "$p")'"
	done
	if have ldconfig && ! ldconfig -p | grep -q "libkq\.so\.$major "; then
		fail "after dpkg -i, ldconfig -p does not list libkq.so.$major"
	fi
	if have pkg-config; then
		flags=$(pkg-config --cflags --libs libkq) || fail "pkg-config --cflags --libs libkq failed"
		[ "$(echo $flags)" = "-I/usr/include/kqueue -lkq" ] ||
			fail "pkg-config --cflags --libs libkq: '$flags', not '-I/usr/include/kqueue -lkq'"
	else
		flags="-I/usr/include/kqueue -lkq"
		echo "note: pkg-config is not installed; compiling with $flags"
	fi
	echo "flags (pkg-config --cflags --libs libkq): $flags"
	# shellcheck disable=SC2086
	if "$CC" -o "$TMP/prog-pc" "$TMP/prog.c" $flags >"$TMP/cc.log" 2>&1; then
		run installed-pkg-config "$TMP/prog-pc"
		if have ldd; then
			used=$(ldd "$TMP/prog-pc" | sed -n 's/.*libkq\.so\.[0-9]* => \([^ ]*\).*/\1/p')
			case $used in
			/usr/lib/$triplet/libkq.so.$major|/lib/$triplet/libkq.so.$major) ;;
			*) fail "the program runs with libkq from '$used', not /usr/lib/$triplet" ;;
			esac
		fi
	else
		cat "$TMP/cc.log"
		fail "compiling against the installed packages failed"
	fi
	if cmake -S "$TMP/cmake-src" -B "$TMP/cmake-build" -G "$GEN" \
	    -DCMAKE_C_COMPILER="$CC" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
	    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF >"$TMP/cmake.log" 2>&1 &&
	    cmake --build "$TMP/cmake-build" >>"$TMP/cmake.log" 2>&1; then
		found=$(sed -n 's/^libkq_DIR:[A-Z]*=//p' "$TMP/cmake-build/CMakeCache.txt")
		case $found in
		/usr/lib/*/cmake/libkq)
			run installed-find_package "$TMP/cmake-build/prog"
			run installed-find_package-static "$TMP/cmake-build/prog_static" ;;
		*) fail "find_package(libkq) used $found, not the installed package" ;;
		esac
	else
		cat "$TMP/cmake.log"
		fail "a CMake project using find_package(libkq) did not build against the installed packages"
	fi
	if have man; then
		page=$(man -w 2 EV_SET 2>&1)
		case $page in
		/usr/share/man/man2/kevent.2.gz) echo "ok: man -w 2 EV_SET: $page" ;;
		*)
			if [ -L /usr/share/man/man2/EV_SET.2.gz ]; then
				fail "man -w 2 EV_SET: '$page', not /usr/share/man/man2/kevent.2.gz"
			else
				echo "note: dpkg did not install the manual pages (a path-exclude in /etc/dpkg/dpkg.cfg.d?)"
			fi ;;
		esac
	fi
	files=$(cat "$TMP/rt.list" "$TMP/dev.list" | sed 's/ -> .*//')
	remove_packages
	left=""
	for f in $files; do
		if [ -e "/$f" ] || [ -L "/$f" ]; then
			left="$left /$f"
		fi
	done
	[ -z "$left" ] || fail "after dpkg -r, files are left:$left"
	for p in "$RTNAME" libkq-dev; do
		case $(dpkg-query -W -f '${Status}' "$p" 2>/dev/null) in
		*not-installed*|"") ;;
		*) fail "after dpkg -r, dpkg still knows $p" ;;
		esac
	done
	[ -z "$left" ] && echo "ok: dpkg -r removed $RTNAME and libkq-dev and every file of theirs"
	exit $status
fi

echo "using the unpacked tree ($why): dpkg-deb -x into a scratch root"
PCFILE=$LIBDIR/pkgconfig/libkq.pc
if [ "$(sed -n 's/^prefix=//p' "$PCFILE")" != /usr ]; then
	fail "libkq.pc: $(grep '^prefix=' "$PCFILE"), not prefix=/usr"
fi
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && have pkg-config; then
	how="pkg-config --define-variable=prefix=<root>/usr"
	flags=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config \
	    --define-variable=prefix="$ROOT/usr" --cflags --libs libkq) ||
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
	*"$ROOT"*) run unpacked-libkq.pc "$TMP/prog-pc" "$LIBDIR" ;;
	*) fail "the libkq.pc flags do not point into the unpacked tree: $flags" ;;
	esac
else
	cat "$TMP/cc.log"
	fail "compiling against the unpacked packages failed"
fi
if cmake -S "$TMP/cmake-src" -B "$TMP/cmake-build" -G "$GEN" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_PREFIX_PATH="$ROOT/usr" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF >"$TMP/cmake.log" 2>&1 &&
    cmake --build "$TMP/cmake-build" >>"$TMP/cmake.log" 2>&1; then
	found=$(sed -n 's/^libkq_DIR:[A-Z]*=//p' "$TMP/cmake-build/CMakeCache.txt")
	case $found in
	"$ROOT"/*)
		run unpacked-find_package "$TMP/cmake-build/prog" "$LIBDIR"
		run unpacked-find_package-static "$TMP/cmake-build/prog_static" ;;
	*) fail "find_package(libkq) used $found, not the unpacked packages" ;;
	esac
else
	cat "$TMP/cmake.log"
	fail "a CMake project using find_package(libkq) did not build against the unpacked packages"
fi
exit $status
