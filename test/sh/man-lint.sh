#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# man-lint: every manual page in man/ formats without a single warning.
#
# usage: sh man-lint.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# For each SRCDIR/man/*.[1-9]:
#   0. a link page, whose only line besides comments is `.so manN/PAGE.N`
#      (EV_SET.2 -> kevent.2, as FreeBSD links it), must lead to a page
#      SRCDIR/man/PAGE.N whose NAME section lists the link's name (.Nm);
#      the rest is checked on that page (test/sh/man-links.sh checks the
#      installed links);
#   1. its .Dt (mdoc) or .TH (man) line names the page as its file does
#      (kevent.2 -> "KEVENT 2");
#   2. the formatter reports nothing: `groff -ww -z -mdoc` (or -man for a
#      man(7) page), or, without groff, `mandoc -T lint -W warning`;
#   3. if man(1) is installed, `man -l PAGE` renders it, with a NAME
#      section, and writes nothing to stderr (this is what a user runs).
# With neither groff nor mandoc the test is skipped, unless the environment
# has KQ_REQUIRE_TOOLS=1 (.ci/run sets it, and installs groff-base when
# neither formatter is present), which turns the skip into a failure.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 1 "SRCDIR [BINDIR LIBKQ_SO_PATH C_COMPILER]" "$@"

pages=""
for p in "$SRCDIR"/man/*.[1-9]; do
	[ -f "$p" ] && pages="$pages $p"
done
if [ -z "$pages" ]; then
	echo "FAIL: no manual pages in $SRCDIR/man"
	exit 1
fi

if command -v groff >/dev/null 2>&1; then
	tool=groff
elif command -v mandoc >/dev/null 2>&1; then
	tool=mandoc
else
	if [ "${KQ_REQUIRE_TOOLS:-}" = 1 ]; then
		echo "FAIL: neither groff nor mandoc is installed (KQ_REQUIRE_TOOLS=1)"
		exit 1
	fi
	echo "SKIP: neither groff nor mandoc is installed (apt-get install groff-base)"
	exit 77
fi
have_man=false
command -v man >/dev/null 2>&1 && have_man=true

status=0

for p in $pages; do
	name=${p##*/}
	base=${name%.*}
	sec=${name##*.}
	want="$(printf '%s' "$base" | tr '[:lower:]' '[:upper:]') $sec"

	body=$(grep -v -e '^\.\\"' -e '^[[:space:]]*$' "$p")
	case $body in
	.so\ *)
		target=${body#.so }
		tpage=$SRCDIR/man/${target##*/}
		if [ "$(printf '%s\n' "$body" | wc -l)" -ne 1 ]; then
			fail "$name: a .so link page must hold nothing else"
		elif [ ! -f "$tpage" ]; then
			fail "$name: .so $target: no page ${target##*/} in man/"
		elif ! sed -n '/^\.Sh NAME/,/^\.Sh /p' "$tpage" |
		    grep -Eq "^\.Nm $base( ,)?\$"; then
			fail "$name: ${target##*/} does not name $base in its NAME section"
		else
			echo "ok: $name: link to ${target##*/}, which names $base"
		fi
		continue
		;;
	esac

	# mdoc pages start with .Dd/.Dt, man(7) pages with .TH.
	if grep -q '^\.Dt[[:space:]]' "$p"; then
		macros=-mdoc
		title=$(sed -n 's/^\.Dt[[:space:]]*//p' "$p" | sed -n 1p)
	else
		macros=-man
		title=$(sed -n 's/^\.TH[[:space:]]*//p' "$p" | sed -n 1p |
		    awk '{ gsub(/"/, ""); print $1, $2 }')
	fi
	case "$title" in
	"$want"|"$want "*) ;;
	*) fail "$name: title line says '$title', expected '$want'" ;;
	esac

	if [ "$tool" = groff ]; then
		out=$(groff -ww -z "$macros" "$p" 2>&1)
		rc=$?
		how="groff -ww -z $macros"
	else
		out=$(mandoc -T lint -W warning "$p" 2>&1)
		rc=0    # mandoc exits non-zero for warnings; the output says it
		how="mandoc -T lint -W warning"
	fi
	if [ $rc -ne 0 ] || [ -n "$out" ]; then
		printf '%s\n' "$out"
		fail "$name: $how reported problems (exit $rc)"
	else
		echo "ok: $name: $how: no warnings"
	fi

	if $have_man; then
		# LC_ALL=C: no locale complaints from man-db, plain ASCII output.
		err=$(LC_ALL=C MANWIDTH=80 man -l "$p" 2>&1 >"${TMPDIR:-/tmp}/man-lint.$$")
		rc=$?
		rendered=$(cat "${TMPDIR:-/tmp}/man-lint.$$")
		rm -f "${TMPDIR:-/tmp}/man-lint.$$"
		if [ $rc -ne 0 ] || [ -n "$err" ]; then
			printf '%s\n' "$err"
			fail "$name: man -l exited $rc or wrote to stderr"
		elif ! printf '%s\n' "$rendered" | grep -q '^NAME'; then
			fail "$name: man -l output has no NAME section"
		else
			echo "ok: $name: man -l renders $(printf '%s\n' "$rendered" | wc -l) lines"
		fi
	fi
done
$have_man || echo "note: man(1) is not installed; man -l not tried"
exit $status
