#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# man-linux-notes: the LINUX NOTES of kevent(2) mirror docs/differences.md.
#
# usage: sh man-linux-notes.sh SRCDIR [BINDIR LIBKQ_SO_PATH C_COMPILER]
# exit:  0 pass, 1 fail
#
# docs/differences.md is the reference list of where libkq departs from
# FreeBSD; man/kevent.2 repeats it for users under LINUX NOTES.  To keep the
# two in step, every "## Heading" of differences.md (backquotes removed) must
# appear as a ".Ss Heading" subsection inside the LINUX NOTES section of
# kevent.2, and every such subsection must still be a heading there.  When
# this fails after a change to differences.md, add (or rename) the matching
# subsection in man/kevent.2 and describe the new points there.
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 SRCDIR [BINDIR LIBKQ_SO_PATH C_COMPILER]" >&2
	exit 1
fi
DIFF=$1/docs/differences.md
PAGE=$1/man/kevent.2
for f in "$DIFF" "$PAGE"; do
	if [ ! -f "$f" ]; then
		echo "FAIL: $f does not exist"
		exit 1
	fi
done

headings=$(sed -n 's/^## *//p' "$DIFF" | tr -d '`' | sed 's/[[:space:]]*$//')
subsections=$(awk '
	/^\.Sh / { in_notes = ($0 == ".Sh LINUX NOTES") ; next }
	in_notes && /^\.Ss / { sub(/^\.Ss[[:space:]]+/, ""); print }
' "$PAGE" | sed 's/[[:space:]]*$//')

if [ -z "$subsections" ]; then
	echo "FAIL: $PAGE has no .Ss subsections under .Sh LINUX NOTES"
	exit 1
fi

status=0
n=0
while IFS= read -r h; do
	[ -n "$h" ] || continue
	n=$((n + 1))
	if ! printf '%s\n' "$subsections" | grep -Fqx -e "$h"; then
		echo "FAIL: docs/differences.md has '## $h' but man/kevent.2 LINUX NOTES has no '.Ss $h'"
		status=1
	fi
done <<EOF
$headings
EOF
while IFS= read -r s; do
	[ -n "$s" ] || continue
	if ! printf '%s\n' "$headings" | grep -Fqx -e "$s"; then
		echo "FAIL: man/kevent.2 LINUX NOTES has '.Ss $s', which is no longer a heading of docs/differences.md"
		status=1
	fi
done <<EOF
$subsections
EOF
[ $status -eq 0 ] && echo "ok: all $n sections of docs/differences.md are mirrored in kevent(2) LINUX NOTES"
exit $status
