#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# license-spdx: the project is BSD-2-Clause; LICENSE says so and every source
# file carries an SPDX-License-Identifier line naming it.
#
# usage: sh license-spdx.sh SRCDIR ...
# exit:  0 pass, 1 fail, 77 skip (reason printed)
src=$1
cd "$src" || exit 1
tag='SPDX-License-Identifier: BSD-2-Clause'
fail=0
if ! grep -q 'BSD 2-Clause License' LICENSE 2>/dev/null; then
	echo "LICENSE missing or not BSD-2-Clause"
	fail=1
fi
# Tracked files when this is a git checkout, else everything on disk.
if command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1; then
	list=$(git ls-files)
else
	list=$(find . -type f ! -path './build*' | sed 's|^\./||')
fi
n=0
for f in $list; do
	case "$f" in
	fuzz/corpus/*|docs/perf/*) continue ;;
	*.c|*.h|*.cpp|*.map|*.sh|*.cmake|*.in|*.2|*CMakeLists.txt|Makefile|.ci/run) ;;
	*) continue ;;
	esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	if ! head -3 "$f" | grep -q "$tag"; then
		echo "no SPDX line in the first three lines: $f"
		fail=1
	fi
done
echo "$n source files checked"
[ "$n" -gt 100 ] || { echo "too few source files found ($n)"; fail=1; }
exit $fail
