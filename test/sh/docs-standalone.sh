#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# docs-standalone: the repository's files stand on their own.  No source
# file, test, manual page or document may cite the project's internal
# planning documents, which are not part of the repository: their file
# names, their section markers or a path into the directory that holds them.
# Every line that does is printed as FILE:LINE:TEXT.
#
# usage: sh docs-standalone.sh SRCDIR [BINDIR LIBKQ_SO_PATH C_COMPILER]
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# Checked: the tracked files when SRCDIR is a git checkout, else every file
# on disk (without build directories and .git); fuzz/corpus/ (fuzzer input,
# arbitrary bytes) and binary files are left out.
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 SRCDIR [BINDIR LIBKQ_SO_PATH C_COMPILER]" >&2
	exit 1
fi
src=$1
cd "$src" || { echo "cannot enter $src"; exit 1; }

# The patterns are assembled from pieces so that this file does not match
# itself.
spec=SPEC
sect=$(printf '\302\247')        # the section sign, in UTF-8
pats="
..${empty:-}/shared
/work${empty:-}/shared
$spec $sect
$spec.md
CA${empty:-}SES.md
(CA${empty:-}SES 
LINUX-${empty:-}MAPPING
BENCH${empty:-}MARKS.md
EXAM${empty:-}PLES.md
"

tmp=$(mktemp -d 2>/dev/null) || { echo "SKIP: mktemp -d failed"; exit 77; }
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$pats" | sed '/^$/d' >"$tmp/patterns"

if command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1 &&
   git ls-files >"$tmp/files" 2>/dev/null && [ -s "$tmp/files" ]; then
	:
else
	find . -path ./.git -prune -o -path './build*' -prune -o -type f -print |
		sed 's|^\./||' >"$tmp/files"
fi

n=0
: >"$tmp/hits"
while IFS= read -r f; do
	case "$f" in
	fuzz/corpus/*) continue ;;
	esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	# -I: binary files never match; -F: the patterns are plain strings.
	grep -H -n -I -F -f "$tmp/patterns" -- "$f" 2>/dev/null >>"$tmp/hits"
done <"$tmp/files"

echo "$n files checked"
if [ "$n" -lt 50 ]; then
	echo "FAIL: too few files found ($n)"
	exit 1
fi
if [ -s "$tmp/hits" ]; then
	echo "FAIL: lines citing the internal planning documents:"
	cat "$tmp/hits"
	exit 1
fi
echo "ok: no file cites the internal planning documents"
exit 0
