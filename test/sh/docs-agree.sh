#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# docs-agree: the manual pages and the documents say what the code has and
# does, wherever a script can check it.
#
# usage: sh docs-agree.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# 1. Names.  For every page in SRCDIR/man (not the one-line .so link pages),
#    each name in NAME (.Nm) and each function in SYNOPSIS (.Fn, .Fo) is
#    either exported by LIBKQ_SO_PATH (nm -D --defined-only) or a macro
#    defined in include/sys/event.h (EV_SET, EV_WAKEONE); each .Fd #define
#    in SYNOPSIS is defined there; each .In header exists under include/.
# 2. Constants.  Every EV_*, NOTE_*, EVFILT_* and KQUEUE_* name a page gives
#    with .Dv is defined in include/sys/event.h.
# 3. Flags of kqueuex(2) and kqueue1(2).  Each flag in the DESCRIPTION list
#    of the page must be defined (compiled with <sys/event.h> and
#    <fcntl.h>); a flag whose entry says EINVAL is refused, the others
#    accepted, and the ERRORS entry for EINVAL names exactly the accepted
#    ones.  A program built with C_COMPILER against LIBKQ_SO_PATH then calls
#    the function with each flag, with all accepted flags together and with
#    a bit no page documents, and must get what the page says: a descriptor,
#    or -1 with EINVAL.
# 4. Stale text.  No page or document says what the code no longer does:
#    the old "not yet done" fork text (the code gives the fork child none of
#    its parent's kqueues, test fork-child-kq-gone), or release history,
#    which belongs in CHANGELOG.md.  And the measured rate of the duplicate
#    EV_CLEAR record ("one per N records") is stated in docs/differences.md
#    only; other pages refer to it.
# Every mismatch is printed; the test fails if there is any.
#
# KQ_DOCS_AGREE_MANDIR and KQ_DOCS_AGREE_HEADER, when set, replace
# SRCDIR/man and SRCDIR/include/sys/event.h (to try the test on a planted
# mismatch).
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"
MANDIR=${KQ_DOCS_AGREE_MANDIR:-$SRCDIR/man}
HEADER=${KQ_DOCS_AGREE_HEADER:-$SRCDIR/include/sys/event.h}
INCDIR=$(dirname "$(dirname "$HEADER")")

if ! command -v nm >/dev/null 2>&1; then
	echo "SKIP: nm (binutils) is not installed"
	exit 77
fi
if [ ! -f "$SO" ] || [ ! -f "$HEADER" ]; then
	echo "FAIL: $SO or $HEADER does not exist"
	exit 1
fi

# A sanitizer build's library needs the program built with the same.
kq_sanitize

kq_tmpdir docs-agree
nfail=0
fail() {
	echo "FAIL: $*"
	status=1
	nfail=$((nfail + 1))
}
# done_part TEXT: "ok: TEXT" if this part found no mismatch.
mark=0
done_part() {
	if [ $nfail -eq $mark ]; then
		echo "ok: $*"
	else
		echo "FAIL: $((nfail - mark)) mismatch(es) in: $*"
	fi
	mark=$nfail
}

# The library's exported names, without their symbol versions.
nm -D --defined-only "$SO" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' |
	sort -u >"$TMP/exports"
# The header's macros.
sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
	"$HEADER" | sort -u >"$TMP/macros"
if [ ! -s "$TMP/exports" ] || [ ! -s "$TMP/macros" ]; then
	fail "no exported symbols in $SO or no macros in $HEADER"
	exit 1
fi
exported() { grep -qx "$1" "$TMP/exports"; }
defined() { grep -qx "$1" "$TMP/macros"; }

# section PAGE NAME: the lines of section .Sh NAME of PAGE.
section() {
	awk -v s="$2" '/^\.Sh / { on = ($2 == s); next } on' "$1"
}

pages=""
for p in "$MANDIR"/*.[1-9]; do
	[ -f "$p" ] || continue
	# A link page: its only request besides comments is .so.
	if ! grep -v '^\.\\"' "$p" | grep -qv '^\.so '; then
		continue
	fi
	pages="$pages $p"
done
if [ -z "$pages" ]; then
	fail "no manual pages in $MANDIR"
	exit 1
fi

# --- 1. names in NAME and SYNOPSIS -----------------------------------------
n=0
for p in $pages; do
	page=$(basename "$p")
	{
		section "$p" NAME | sed -n 's/^\.Nm[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/Nm \1/p'
		section "$p" SYNOPSIS |
			sed -n 's/^\.F[no][[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/Fn \1/p'
		section "$p" SYNOPSIS |
			sed -n 's/^\.Fd[[:space:]]\{1,\}#define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/Fd \1/p'
		section "$p" SYNOPSIS | sed -n 's/^\.In[[:space:]]\{1,\}\([^[:space:]]*\).*/In \1/p'
	} >"$TMP/names"
	while read -r kind name; do
		n=$((n + 1))
		case $kind in
		Nm | Fn)
			if exported "$name"; then
				:
			elif defined "$name"; then
				:
			else
				fail "$page: $name (.$kind) is neither exported by $(basename "$SO") nor a macro in <sys/event.h>"
			fi
			;;
		Fd)
			defined "$name" ||
				fail "$page: SYNOPSIS shows #define $name, which <sys/event.h> does not define"
			;;
		In)
			[ -f "$INCDIR/$name" ] ||
				fail "$page: SYNOPSIS includes <$name>, which is not under include/"
			;;
		esac
	done <"$TMP/names"
done
[ $n -gt 0 ] || fail "found no names in the NAME and SYNOPSIS sections"
done_part "1. $n names of NAME and SYNOPSIS checked against the exports and <sys/event.h>"

# --- 2. constants ----------------------------------------------------------
n=0
for p in $pages; do
	page=$(basename "$p")
	grep -E '^\.(Dv|It Dv|Fd #define)[[:space:]]' "$p" |
		grep -oE '(EV|NOTE|EVFILT|KQUEUE)_[A-Z0-9_]+' | sort -u >"$TMP/dv"
	while read -r name; do
		n=$((n + 1))
		defined "$name" ||
			fail "$page: documents $name (.Dv), which <sys/event.h> does not define"
	done <"$TMP/dv"
done
[ $n -gt 0 ] || fail "found no EV_/NOTE_/EVFILT_/KQUEUE_ constants in the pages"
done_part "2. $n documented constants are defined in <sys/event.h>"

# --- 3. kqueuex and kqueue1 flags ------------------------------------------
# flags PAGE: "NAME accepted|refused" for each .It Dv entry of the first
# list in DESCRIPTION; refused when the entry mentions EINVAL.
flags() {
	section "$1" DESCRIPTION | awk '
	/^\.Bl/ { depth++; if (depth == 1) lists++; next }
	/^\.El/ { if (depth == 1 && name != "") print name, verdict; depth--; name = ""; next }
	lists != 1 || depth != 1 { next }
	/^\.It Dv / { if (name != "") print name, verdict; name = $3; verdict = "accepted"; next }
	/^\.It/ { if (name != "") print name, verdict; name = ""; next }
	/EINVAL/ { if (name != "") verdict = "refused" }'
}
# einval PAGE: the constants named in the ERRORS entry for EINVAL.
einval() {
	section "$1" ERRORS | awk '
	/^\.It / { on = ($0 ~ /EINVAL/); next }
	/^\.El/ { on = 0 }
	on && /^\.Dv / { print $2 }' | sort -u
}

cat >"$TMP/flags.c" <<'EOF'
#include <sys/event.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
EOF
echo 'int main(void) { int fd; (void)fd;' >"$TMP/body"
: >"$TMP/expect"
# call FUNCTION LABEL ARGUMENT: a line of the program that calls FUNCTION
# and prints "FUNCTION LABEL accepted|refused|error".
call() {
	printf '\terrno = 0; fd = %s(%s);\n' "$1" "$3"
	printf '\tprintf("%s %s %%s\\n", fd >= 0 ? "accepted" : errno == EINVAL ? "refused" : "error");\n' "$1" "$2"
	printf '\tif (fd >= 0) close(fd);\n'
} >>"$TMP/body"
nflags=0
for fn in kqueuex kqueue1; do
	p=$MANDIR/$fn.2
	if [ ! -f "$p" ]; then
		fail "$fn.2 is missing"
		continue
	fi
	flags "$p" >"$TMP/$fn.flags"
	if [ ! -s "$TMP/$fn.flags" ]; then
		fail "$fn.2: no flag list (.It Dv NAME) in DESCRIPTION"
		continue
	fi
	awk '$2 == "accepted" { print $1 }' "$TMP/$fn.flags" | sort -u >"$TMP/$fn.acc"
	einval "$p" >"$TMP/$fn.err"
	if ! cmp -s "$TMP/$fn.acc" "$TMP/$fn.err"; then
		fail "$fn.2: the flags DESCRIPTION accepts ($(tr '\n' ' ' <"$TMP/$fn.acc"| sed 's/ $//')) are not those ERRORS exempts from EINVAL ($(tr '\n' ' ' <"$TMP/$fn.err" | sed 's/ $//'))"
	fi
	all=""
	while read -r name verdict; do
		nflags=$((nflags + 1))
		echo "#ifndef $name" >>"$TMP/flags.c"
		echo "#error $fn.2 documents $name, which is not defined" >>"$TMP/flags.c"
		echo "#endif" >>"$TMP/flags.c"
		[ "$verdict" = accepted ] && all="$all | $name"
		call "$fn" "$name" "$name"
		echo "$fn $name $verdict" >>"$TMP/expect"
	done <"$TMP/$fn.flags"
	if [ -n "$all" ]; then
		call "$fn" all-accepted "0 $all"
		echo "$fn all-accepted accepted" >>"$TMP/expect"
	fi
	# A bit that no page documents: ERRORS promises EINVAL.
	call "$fn" undocumented-bit 0x40000000
	echo "$fn undocumented-bit refused" >>"$TMP/expect"
done
echo 'return 0; }' >>"$TMP/body"
cat "$TMP/body" >>"$TMP/flags.c"
if [ $nflags -gt 0 ]; then
	# shellcheck disable=SC2086
	if ! "$CC" $SAN -I"$INCDIR" -o "$TMP/flags" "$TMP/flags.c" "$SO" \
	    >"$TMP/cc.log" 2>&1; then
		cat "$TMP/cc.log"
		fail "the program calling kqueuex/kqueue1 with the documented flags does not build"
	elif ! LD_LIBRARY_PATH=$(dirname "$SO")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	    "$TMP/flags" >"$TMP/got" 2>&1; then
		cat "$TMP/got"
		fail "the program calling kqueuex/kqueue1 failed"
	else
		while read -r fn name want; do
			got=$(awk -v f="$fn" -v n="$name" '$1 == f && $2 == n { print $3 }' "$TMP/got")
			if [ "$got" = "$want" ]; then
				echo "ok: $fn($name): $got, as $fn.2 says"
			else
				fail "$fn($name): $fn.2 says $want, the library: ${got:-nothing}"
			fi
		done <"$TMP/expect"
	fi
fi
done_part "3. $nflags documented kqueuex/kqueue1 flags checked"

# --- 4. stale text ---------------------------------------------------------
# Pieces joined so that this file does not match itself.
stale="Not yet${empty:-} done
until libkq${empty:-} handles
still sees its${empty:-} parent's kqueues
must not use kqueues${empty:-} it inherited
this ses${empty:-}sion
since ver${empty:-}sion
in this ver${empty:-}sion"
docs=""
for f in $pages "$SRCDIR"/README.md "$SRCDIR"/docs/*.md; do
	[ -f "$f" ] && docs="$docs $f"
done
printf '%s\n' "$stale" >"$TMP/stale"
# shellcheck disable=SC2086
if grep -n -i -F -f "$TMP/stale" $docs >"$TMP/hits"; then
	sed "s|^$SRCDIR/||" "$TMP/hits"
	fail "stale or historical text (history goes to CHANGELOG.md)"
fi
# The rate of the duplicate EV_CLEAR record: only in docs/differences.md.
rate='one (record )?(per|in) ([0-9][0-9,.]*|[a-z]+ (million|thousand))'
# shellcheck disable=SC2086
grep -n -i -E "$rate" $docs | grep -v '/docs/differences\.md:' >"$TMP/rate"
if [ -s "$TMP/rate" ]; then
	sed "s|^$SRCDIR/||" "$TMP/rate"
	fail "a measured rate stated outside docs/differences.md (refer to it instead)"
fi
if ! grep -q -i -E "$rate" "$SRCDIR/docs/differences.md"; then
	fail "docs/differences.md does not state the duplicate EV_CLEAR record's rate"
fi
done_part "4. no stale fork or release-history text; one place for the measured rate"

exit $status
