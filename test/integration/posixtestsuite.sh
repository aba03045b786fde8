#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# posixtestsuite.sh: libkq's replacements of the C library's signal calls,
# held to POSIX by an outside suite.  libkq exports its own sigaction,
# signal, sigwait, sigwaitinfo, sigtimedwait and vfork (and close, dup2,
# fcntl and the rest) under glibc's own symbol versions, so a program
# linked with it gets them wherever it names them, and it keeps signal
# state of its own across fork.  The Open POSIX Test Suite (Debian's
# posixtestsuite source) has conformance tests for those calls and for the
# ones around them that libkq leaves to glibc but must not disturb: the
# System V calls (sigset, sighold, sigignore, sigrelse, sigpause, which
# change dispositions behind libkq's sigaction), kill, raise, sigqueue,
# pthread_kill, pthread_cancel (glibc's cancellation is a signal), the
# masks, sigsuspend, fork and pthread_atfork.  That is 673 programs and 17
# scripts: 16 run 4 more programs with bad signal numbers, one only points
# at two of the programs.
#
# Each program is compiled once, with the suite's own flags less -Werror
# (glibc now marks sigset, sighold and the other System V calls deprecated:
# the very tests of those calls would not build), and linked twice: as it
# is ("plain"), and with libkq named before the C library, so that its
# symbols come first in the lookup ("libkq").  Every program runs in both
# builds, one after the other, two programs at a time, each under a timeout
# (some of the suite's tests block for good when what they test is
# broken).  The test fails iff some program's result differs between the
# builds: its exit status class (PASS, FAIL, UNRESOLVED, UNSUPPORTED,
# UNTESTED, another status, killed by a signal), HUNG (killed at the
# timeout), or NOT-BUILT.
#
# Many of these tests are timed: a signal expected within a sleep, a
# thread cancelled or a child reaped in time, a queue filled up to a
# per-user limit that a program running beside it also uses.  So a program
# whose results differ runs up to twice more in each build, alone.  A
# difference counts only when the libkq build never gave a result the plain
# build gave (and the other way round): stable.  One whose results overlap
# is listed as flaky with all its results, and does not fail the run.
#
# usage: sh posixtestsuite.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler
#   WORKDIR  where the suite's source, objects, builds and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# Time on 2 cores: about 5.5 minutes from scratch, 2.5 of them to compile
# and link; the objects are kept, so a later run links again (20 s) and
# runs (3 minutes).
set -u
here=$(cd "$(dirname "$0")" && pwd)
self=$here/$(basename "$0")
who=posix-suite
. "$here/debsrc.sh"

# Seconds a program may run.  The slowest that finish take 11 s (sleeps
# waiting for signals that must not come); one that needs twice that is
# blocked, and waiting longer would only tell the same.
tmo=20

# run_one BUILD ITEM ROUND: ITEM (IFACE/N-M, a program, or IFACE/N-M.sh, a
# script) run in BUILD's tree, its output in WORKDIR/logs/BUILD/ITEM.ROUND;
# prints its result.
run_one() {
	log=$work/logs/$1/$2.$3
	mkdir -p "${log%/*}" || exit 1
	case $2 in
	*.sh) set -- "$1" sh "$src/conformance/interfaces/$2" ;;
	*)
		set -- "$1" "$work/$1/conformance/interfaces/$2.test"
		if [ ! -x "$2" ]; then
			echo "not built" >"$log"
			echo NOT-BUILT
			return
		fi ;;
	esac
	pre=""
	[ "$1" = libkq ] && [ -n "$asan" ] && pre="LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0"
	# The suite's scripts name their programs from the top of the tree,
	# and fork/7-1 finds its message catalogue source there.  The
	# dispositions a test starts with are the defaults (env
	# --default-signal), whatever started this one ignored (nohup's
	# SIGHUP, a background job's SIGINT and SIGQUIT): tests of SIG_DFL
	# would otherwise measure the caller.  -k: a hung test may well
	# handle SIGTERM.  Two subshells: the shell that reports a program
	# killed by a signal ("Segmentation fault") writes into the log.
	# shellcheck disable=SC2086
	( (cd "$work/$1" && shift && exec env $pre timeout -k 2 "$tmo" env $dflt "$@") ) \
		</dev/null >"$log" 2>&1
	rc=$?
	case $rc in
	0) echo PASS ;;
	1) echo FAIL ;;
	2) echo UNRESOLVED ;;
	4) echo UNSUPPORTED ;;
	5) echo UNTESTED ;;
	# 137: timeout sent SIGKILL too (the program had outlived SIGTERM)
	124|137) echo HUNG ;;
	*)
		sig=""
		[ $rc -gt 128 ] && sig=$(kill -l $((rc - 128)) 2>/dev/null)
		if [ -n "$sig" ]; then
			echo "SIG$sig"
		else
			echo "EXIT$rc"
		fi ;;
	esac
}

# sh posixtestsuite.sh --pair WORKDIR SRC ASAN ITEM: ITEM run in the plain
# build, then in the libkq build (never both at once: the suite's fork
# tests use named semaphores, queues and shared memory objects whose names
# are fixed), its results appended to WORKDIR/results.  xargs runs these
# two at a time; a job of the shell's own (&) would start each program
# with SIGINT and SIGQUIT ignored.
dflt=""
env --default-signal true 2>/dev/null && dflt=--default-signal
if [ "${1:-}" = --pair ]; then
	work=$2 src=$3 asan=$4
	p=$(run_one plain "$5" 1)
	k=$(run_one libkq "$5" 1)
	echo "$5 $p $k" >>"$work/results"
	exit 0
fi

take_args "$@"
fetch_source posixtestsuite conformance/interfaces/sigaction/1-1.c
asan=$(asan_runtime)
t_start=$(date +%s)

ifaces="sigaction signal sigwait sigwaitinfo sigtimedwait sigset sighold
	sigignore sigrelse sigpause kill raise pthread_kill pthread_cancel
	sigqueue sigsuspend sigprocmask pthread_sigmask fork pthread_atfork"

# The programs to run (N-M.c), those the scripts run (N-core-buildonly.c,
# built, not run by themselves) and the scripts (N-M.sh); testfrmw.c is
# included by the tests that use it.
: >"$work/items"
: >"$work/progs"
for i in $ifaces; do
	d=$src/conformance/interfaces/$i
	[ -d "$d" ] || die "the source has no conformance/interfaces/$i"
	ls "$d" | sed -n "s|^\([0-9]*-[0-9]*\)\.c\$|$i/\1|p; s|^\([0-9]*-[0-9]*\.sh\)\$|$i/\1|p" |
		sort -V >>"$work/items"
	ls "$d" | sed -n "s|^\([0-9]*-[0-9]*\)\.c\$|$i/\1|p; s|^\([0-9]*-core-buildonly\)\.c\$|$i/\1|p" \
		>>"$work/progs"
done
nprogs=$(wc -l <"$work/progs")
say "$(wc -l <"$work/items") items: $(grep -cv '\.sh$' "$work/items") programs and" \
    "$(grep -c '\.sh$' "$work/items") scripts, $(echo "$ifaces" | wc -w) interfaces"

# The objects are kept across runs for this source, compiler and libkq
# source tree; the links depend on libkq's file, so a rebuilt libkq is
# linked again.
cflags="-O2 -Wall -std=gnu99 -D_POSIX_C_SOURCE=200112L -D_GNU_SOURCE"
key="$(cat "$src/.complete")|$cc|$cflags|$srcdir|$libkq"
if [ "$(cat "$work/.key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$work/obj" "$work/plain" "$work/libkq" "$work/.key"
fi
{
	echo "SRC = $src/conformance/interfaces"
	printf 'all:'
	sed 's|.*| plain/conformance/interfaces/&.test libkq/conformance/interfaces/&.test|' \
		"$work/progs" | tr -d '\n'
	echo
	echo ".SECONDARY:"
	echo "obj/%.o: \$(SRC)/%.c"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s %s -I%s -c $< -o $@\n' "$cc" "$cflags" "$src/include"
	echo "plain/conformance/interfaces/%.test: obj/%.o"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s $< -o $@ -lpthread -lrt\n' "$cc"
	echo "libkq/conformance/interfaces/%.test: obj/%.o $libkq"
	printf '\t@mkdir -p $(@D)\n'
	# --no-as-needed: libkq stays NEEDED, and first, even for a program
	# that glibc would serve alone
	printf '\t%s $< -o $@ -Wl,--no-as-needed %s -Wl,-rpath,%s -lpthread -lrt\n' \
		"$cc" "$libkq" "$libdir"
} >"$work/Makefile"
say "building $nprogs programs, twice"
(cd "$work" && make -k -j2 -f Makefile all) >"$work/build.log" 2>&1
echo "$key" >"$work/.key"
t_built=$(date +%s)
for b in plain libkq; do
	mkdir -p "$work/$b/conformance/interfaces/fork" &&
		cp "$src/conformance/interfaces/fork/messcat_src.txt" \
			"$work/$b/conformance/interfaces/fork/" || exit 1
	n=0
	while read -r p; do
		[ -x "$work/$b/conformance/interfaces/$p.test" ] && n=$((n + 1))
	done <"$work/progs"
	eval "built_$b=$n"
	say "$b: $n of $nprogs programs built"
done
# A suite that mostly does not build here would pass by comparing nothing.
[ "$built_plain" -ge $((nprogs * 95 / 100)) ] ||
	die "only $built_plain of $nprogs programs built (see $work/build.log)"

# libkq's sigaction must be the one a libkq program calls, not glibc's.
probe=$work/libkq/conformance/interfaces/sigaction/1-1.test
ldd "$work/plain/conformance/interfaces/sigaction/1-1.test" | grep -q libkq &&
	die "the plain build loads libkq"
(cd "$work/libkq" && LD_DEBUG=bindings LD_DEBUG_OUTPUT=$work/bindings timeout "$tmo" "$probe") \
	>/dev/null 2>&1
grep -q "to $libdir/libkq[^ ]* .*symbol \`sigaction'" "$work/bindings".* ||
	die "sigaction in a program linked with libkq is not libkq's (see $work/bindings.*)"
rm -f "$work/bindings".*
say "the libkq build's sigaction binds to libkq"

say "running every item in both builds, two at a time, ${tmo} s at most each"
rm -rf "$work/logs" "$work/results"
: >"$work/results"
xargs -P 2 -n 1 sh "$self" --pair "$work" "$src" "$asan" <"$work/items"
t_ran=$(date +%s)
sort -V -o "$work/results" "$work/results"
[ "$(wc -l <"$work/results")" = "$(wc -l <"$work/items")" ] ||
	die "$(wc -l <"$work/results") results for $(wc -l <"$work/items") items (see $work/results)"

say "results (first run)        plain  libkq"
awk '{ p[$2]++; k[$3]++; c[$2]; c[$3] }
	END { for (r in c) printf "    %-22s %5d  %5d\n", r, p[r], k[r] }' "$work/results" | sort

same=$(awk '$2 == $3 && $2 != "PASS" { printf " %s (%s)", $1, $2 }' "$work/results")
[ -n "$same" ] && say "not passing, the same in both builds:$same"

# Each differing item up to twice more in each build, alone.
awk '$2 != $3' "$work/results" >"$work/differ"
: >"$work/stable"
: >"$work/flaky"
while read -r item p k; do
	# a result both builds gave settles it: no need for a third run
	for r in 2 3; do
		p="$p $(run_one plain "$item" $r)"
		k="$k $(run_one libkq "$item" $r)"
		common=$(for x in $p; do for y in $k; do [ "$x" = "$y" ] && echo "$x"; done; done)
		[ -n "$common" ] && break
	done
	if [ -z "$common" ]; then
		echo "$item plain: $p; libkq: $k" >>"$work/stable"
	else
		echo "$item plain: $p; libkq: $k" >>"$work/flaky"
	fi
done <"$work/differ"
t_end=$(date +%s)

if [ -s "$work/flaky" ]; then
	say "differed once, but not every time (flaky, not counted):"
	sed 's/^/    /' "$work/flaky"
fi
say "time: build $((t_built - t_start)) s, run $((t_ran - t_built)) s," \
    "reruns $((t_end - t_ran)) s, $((t_end - t_start)) s in all"
if [ ! -s "$work/stable" ]; then
	say "PASS: every result is the same with libkq as without" \
	    "($(wc -l <"$work/results") items)"
	exit 0
fi
say "FAIL: results that differ with libkq, in all three runs of each build:"
while read -r item rest; do
	echo "    $item $rest"
	for b in plain libkq; do
		echo "      $b's output ($work/logs/$b/$item.1):"
		tail -5 "$work/logs/$b/$item.1" | sed 's/^/        /'
	done
done <"$work/stable"
exit 1
