# SPDX-License-Identifier: BSD-2-Clause
# debsrc.sh: sourced by the integration scripts.  Getting a Debian source
# package (deb-src entries and dpkg-dev added when missing, as root),
# leaving libevent one backend, and judging a program's own suite.  The
# caller sets who (the name its messages start with), work (its cache
# directory) and src (where the source goes).

say() { printf '%s: %s\n' "$who" "$*"; }
skip() { say "SKIP: $*"; exit 77; }
die() { say "FAIL: $*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
	say "installing $* (Debian packages)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" \
		>"$work/apt-install.log" 2>&1
}

# deb-src entries mirroring the Debian deb entries configured (deb822
# debian.sources, or one-line sources.list), so apt-get source uses the
# same archive and suites.
add_deb_src() {
	f=/etc/apt/sources.list.d/libkq-integration-deb-src.sources
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		sed -n 's/^Types:.*\bdeb\b.*$/Types: deb-src/p; /^Types:/!p' \
			/etc/apt/sources.list.d/debian.sources >"$f"
	elif [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
		f=/etc/apt/sources.list.d/libkq-integration-deb-src.list
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$f"
	else
		codename=$( . /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
		[ -n "$codename" ] || return 1
		printf 'deb-src http://deb.debian.org/debian %s main\n' "$codename" \
			>/etc/apt/sources.list.d/libkq-integration-deb-src.list
	fi
	say "added deb-src entries ($f)"
}

have_src_index() { apt-cache showsrc "$1" 2>/dev/null | grep -q "^Package: $1\$"; }

# newest_source STEM FALLBACK V...: STEM followed by the first V (tried in
# the order given) whose source this system's archive has, e.g.
# postgresql-16; FALLBACK when none has (fetch_source then adds deb-src
# entries, where there were none, and looks again).
newest_source() {
	stem=$1
	fallback=$2
	shift 2
	for v in "$@"; do
		if have_src_index "$stem$v"; then
			echo "$stem$v"
			return
		fi
	done
	echo "$fallback"
}

# fetch_source PKG FILE: Debian's source of PKG unpacked into $src, fetched
# once ($src/.complete marks it, and names the version); FILE is a file the
# tree must have.
fetch_source() {
	pkg=$1
	[ -f "$src/.complete" ] && return 0
	command -v apt-get >/dev/null 2>&1 || skip "no apt-get: cannot obtain Debian's $pkg source"
	if ! command -v dpkg-source >/dev/null 2>&1; then
		is_root || skip "dpkg-dev is not installed and this is not root: cannot run apt-get source"
		apt_install dpkg-dev || skip "cannot install dpkg-dev (see $work/apt-install.log)"
	fi
	if ! have_src_index "$pkg"; then
		is_root || skip "no deb-src index for $pkg and not root to add one"
		if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
			add_deb_src || skip "cannot work out a deb-src entry for this system"
		fi
		say "apt-get update"
		apt-get update >"$work/apt-update.log" 2>&1
		have_src_index "$pkg" || skip "apt-get update gave no source index for $pkg (see $work/apt-update.log)"
	fi
	rm -rf "$work/fetch" "$work/apt-source.log" && mkdir -p "$work/fetch" || exit 1
	# The index can name a security update whose files the mirror does not
	# (yet) serve (404): the versions it lists are tried newest first.
	got=""
	for ver in $(apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -u -r -V); do
		say "apt-get source $pkg=$ver"
		if (cd "$work/fetch" && apt-get source "$pkg=$ver") >>"$work/apt-source.log" 2>&1; then
			got=$ver
			break
		fi
		rm -rf "$work/fetch" && mkdir -p "$work/fetch" || exit 1
	done
	if [ -z "$got" ]; then
		tail -5 "$work/apt-source.log"
		skip "apt-get source $pkg failed for every version listed (see $work/apt-source.log)"
	fi
	dir=$(find "$work/fetch" -mindepth 1 -maxdepth 1 -type d -name "$pkg-*" | head -1)
	[ -n "$dir" ] && [ -f "$dir/$2" ] || skip "apt-get source gave no $pkg tree"
	rm -rf "$src" && mv "$dir" "$src" || exit 1
	ls "$work/fetch" | sed -n 's/\.dsc$//p' >"$src/.complete"
	rm -rf "$work/fetch"
}

# Backend environments: only the wanted backend is left to libevent.
backend_env() {
	unset EVENT_NOKQUEUE EVENT_NOEPOLL EVENT_NOPOLL EVENT_NOSELECT \
	      EVENT_NOEVPORT EVENT_NODEVPOLL EVENT_NOWIN32 EVENT_SHOW_METHOD \
	      EVENT_EPOLL_USE_CHANGELIST EVENT_PRECISE_TIMER
	export EVENT_NOPOLL=1 EVENT_NOSELECT=1 EVENT_NOEVPORT=1 EVENT_NODEVPOLL=1
	case $1 in
	kqueue) export EVENT_NOEPOLL=1 ;;
	epoll)  export EVENT_NOKQUEUE=1 ;;
	esac
}

# asan_runtime: the AddressSanitizer runtime $libkq is linked with (its
# path), or nothing for a libkq built without it.  A program that is not
# instrumented must have it preloaded to load such a libkq.
asan_runtime() {
	ldd "$libkq" | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p'
}

# take_args SRCDIR LIBKQ CC WORKDIR: the usual arguments of a script that
# builds a program with CC against libkq's headers and LIBKQ (libdir,
# libkq absolute), in WORKDIR/build from WORKDIR/source.
take_args() {
	srcdir=$(cd "$1" && pwd)
	libdir=$(cd "$(dirname "$2")" && pwd)
	libkq=$libdir/$(basename "$2")
	cc=$3
	work=$4
	src=$work/source
	tree=$work/build
	mkdir -p "$work" || exit 1
}

# bench_args TOOL LIBKQ WORKDIR [--quick]: the arguments of the benchmark
# scripts in bench/ that build a Debian package against libkq (the caller
# sets top, libkq's source tree): take_args with TOOL (the compiler, or
# cmake), WORKDIR made and absolute, since the paths end up in the
# package's build and its configuration; quick=1 for --quick.  Exits 2 on
# wrong arguments.
bench_args() {
	ba_tool=$1
	shift
	if [ $# -lt 2 ] || [ $# -gt 3 ] || { [ $# = 3 ] && [ "$3" != --quick ]; }; then
		echo "usage: sh $0 LIBKQ WORKDIR [--quick]" >&2
		exit 2
	fi
	quick=0
	[ "${3:-}" = --quick ] && quick=1
	[ -f "$1" ] || { echo "$who: no libkq at $1" >&2; exit 2; }
	mkdir -p "$2" || exit 1
	take_args "$top" "$1" "$ba_tool" "$(cd "$2" && pwd)"
}

# fresh_tree: true, with WORKDIR's $tree replaced by a copy of $src, when
# $tree was not built from this source against this libkq (tree_built
# marks it so once it is); false when it was.
fresh_tree() {
	key="$srcdir|$libkq|$(cat "$src/.complete")"
	[ "$(cat "$tree/.key" 2>/dev/null)" = "$key" ] && return 1
	rm -rf "$tree" && cp -a "$src" "$tree" || exit 1
	return 0
}
tree_built() { echo "$key" >"$tree/.key"; }

# note_failures NAME RC LOG RUN: WORKDIR/fail-NAME, where the caller put the
# failing items a suite's run printed in LOG, sorted; a run that failed
# (status RC) without naming one is a failure of its own.  (Not the end of
# a pipeline: dash runs that in a subshell, where die would not end this.)
note_failures() {
	sort -u -o "$work/fail-$1" "$work/fail-$1"
	if [ "$2" != 0 ] && [ ! -s "$work/fail-$1" ]; then
		tail -20 "$3"
		die "$4 ended with status $2 and named no failing item (see $3)"
	fi
}

# judge WHAT KIND: the rule for a program's own suite, once the caller's
# run_suite NAME BACKEND [ITEM...] (failing items listed in WORKDIR/fail-NAME)
# has run everything as "kqueue".  Many suites have timed tests, so a
# failure counts only if it fails again on kqueue and not on epoll; one
# that passes when run again is named, as a warning.  Exits.
judge() {
	if [ ! -s "$work/fail-kqueue" ]; then
		say "PASS: $1 passes on kqueue"
		exit 0
	fi
	say "failing on kqueue:"
	sed 's/^/    /' "$work/fail-kqueue"
	# shellcheck disable=SC2046
	run_suite kqueue-again kqueue $(cat "$work/fail-kqueue")
	comm -23 "$work/fail-kqueue" "$work/fail-kqueue-again" >"$work/kqueue-flaky"
	if [ -s "$work/kqueue-flaky" ]; then
		say "WARNING: failed on kqueue once, passed when run again:"
		sed 's/^/    /' "$work/kqueue-flaky"
	fi
	if [ ! -s "$work/fail-kqueue-again" ]; then
		say "PASS: $1 passes on kqueue (on a second run for the $2 above)"
		exit 0
	fi
	# shellcheck disable=SC2046
	run_suite epoll epoll $(cat "$work/fail-kqueue-again")
	comm -23 "$work/fail-kqueue-again" "$work/fail-epoll" >"$work/kqueue-only"
	if [ -s "$work/kqueue-only" ]; then
		say "FAIL: failing on kqueue only (twice):"
		sed 's/^/    /' "$work/kqueue-only"
		exit 1
	fi
	say "PASS: every kqueue failure also fails on epoll"
	exit 0
}
