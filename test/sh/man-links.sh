#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# man-links: names documented in another page are installed as links to it,
# so that `man EV_SET` shows kevent(2), as on FreeBSD.
#
# usage: sh man-links.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# The link pages are the files of SRCDIR/man whose only line besides
# comments is `.so manN/PAGE.N`; EV_SET.2 (-> kevent.2) must be one of them.
# `cmake --install BINDIR --prefix TMP`, then for each link NAME.S:
#   1. TMP's mandir has manS/NAME.S and the page it leads to;
#   2. groff, run in the mandir as man(1) runs it, resolves the .so: it
#      formats NAME.S without a warning, and the text's NAME section lists
#      NAME;
#   3. when man(1) is installed, `man -M MANDIR -w S NAME` finds a page and
#      `man -M MANDIR S NAME` shows the NAME section listing NAME.
# Without groff, 2 is skipped, unless KQ_REQUIRE_TOOLS=1 (.ci/run, which
# installs groff-base), which makes it a failure.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 2 "SRCDIR BINDIR [LIBKQ_SO_PATH C_COMPILER]" "$@"
kq_need_cmake
kq_tmpdir manlinks

links=""
for p in "$SRCDIR"/man/*.[1-9]; do
	[ -f "$p" ] || continue
	body=$(grep -v -e '^\.\\"' -e '^[[:space:]]*$' "$p")
	case $body in
	.so\ *) links="$links ${p##*/}" ;;
	esac
done
case " $links " in
*" EV_SET.2 "*) ;;
*) fail "man/EV_SET.2 is missing or not a .so link page (links:$links)" ;;
esac

if ! cmake --install "$BINDIR" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1; then
	cat "$TMP/install.log"
	echo "FAIL: cmake --install $BINDIR --prefix $TMP/prefix failed"
	exit 1
fi
k=$(find "$TMP/prefix" -path '*/man2/kevent.2' | sed -n 1p)
if [ -z "$k" ]; then
	echo "FAIL: kevent.2 was not installed"
	exit 1
fi
MANDIR=${k%/man2/kevent.2}

have_groff=false
if command -v groff >/dev/null 2>&1; then
	have_groff=true
elif [ "${KQ_REQUIRE_TOOLS:-}" = 1 ]; then
	fail "groff is not installed (KQ_REQUIRE_TOOLS=1)"
else
	echo "note: groff is not installed: the .so links are not formatted (apt-get install groff-base)"
fi
have_man=false
command -v man >/dev/null 2>&1 && have_man=true

# Whether the NAME section of formatted text on stdin lists $1.
names() {
	awk '/^NAME/ { on = 1; next } on && /^[A-Z]/ { exit } on' |
	    grep -Eq "(^|[[:space:],])$1([[:space:],]|$)"
}

for l in $links; do
	name=${l%.*}
	sec=${l##*.}
	target=$(grep '^\.so ' "$SRCDIR/man/$l" | sed 's/^\.so //')
	if [ ! -f "$MANDIR/man$sec/$l" ]; then
		fail "$l is not installed in $MANDIR/man$sec"
		continue
	fi
	if [ ! -f "$MANDIR/$target" ]; then
		fail "$l leads to $target, which is not installed in $MANDIR"
		continue
	fi
	echo "ok: $l installed, leading to $target"

	if $have_groff; then
		# man(1) formats from the top of the manual tree, where
		# "man2/kevent.2" resolves.
		if ! (cd "$MANDIR" && LC_ALL=C groff -ww -mdoc -Tascii -P-cbou \
		    "man$sec/$l") >"$TMP/out" 2>"$TMP/err" || [ -s "$TMP/err" ]; then
			cat "$TMP/err"
			fail "$l: groff -mdoc in $MANDIR failed or warned"
		elif ! names "$name" <"$TMP/out"; then
			fail "$l: groff's text has no NAME section listing $name"
		else
			echo "ok: $l: groff resolves .so $target, NAME lists $name"
		fi
	fi
	if $have_man; then
		found=$(man -M "$MANDIR" -w "$sec" "$name" 2>/dev/null)
		if [ -z "$found" ]; then
			fail "man -M $MANDIR -w $sec $name finds nothing"
		elif ! LC_ALL=C MANWIDTH=80 MAN_KEEP_FORMATTING= man -M "$MANDIR" \
		    "$sec" "$name" 2>"$TMP/err" | names "$name"; then
			cat "$TMP/err"
			fail "man -M $MANDIR $sec $name shows no NAME section listing $name"
		else
			echo "ok: man $sec $name shows ${found##*/}"
		fi
	fi
done
$have_man || echo "note: man(1) is not installed; man $links not tried"
exit $status
