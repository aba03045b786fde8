#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# posixtestsuite.sh: libkq's replacements of the C library's signal calls,
# held to POSIX by an outside suite.  libkq exports its own sigaction,
# signal, siginterrupt, sigset, sigignore, sysv_signal (and its other
# names), sigwait, sigwaitinfo, sigtimedwait and vfork (and close, dup2,
# fcntl and the rest) under glibc's own symbol versions, so a program
# linked with it gets them wherever it names them, and it keeps signal
# state of its own across fork.  The Open POSIX Test Suite (Debian's
# posixtestsuite source) has conformance tests for those calls and for the
# ones around them that libkq leaves to glibc but must not disturb: the
# System V calls that change masks (sighold, sigrelse, sigpause), kill,
# raise, sigqueue, pthread_kill, pthread_cancel (glibc's cancellation is a
# signal), the masks, sigsuspend, fork and pthread_atfork.  That is 673
# programs and 17 scripts: 16 run 4 more programs with bad signal numbers,
# one only points at two of the programs.
#
# Each program is compiled once, with the suite's own flags less -Werror
# (glibc now marks sigset, sighold and the other System V calls deprecated:
# the very tests of those calls would not build), and linked three times:
# as it is ("plain"); with libkq named before the C library, so that its
# symbols come first in the lookup ("libkq"); and as that with one more
# object ("watched"), whose constructor opens a kqueue before main and
# watches with EVFILT_SIGNAL (EV_ADD, EV_CLEAR) every signal from 1 to 31
# but SIGKILL and SIGSTOP, and SIGRTMIN to SIGRTMIN+3.  Unwatched, a
# signal's disposition is glibc's business: libkq's sigaction is glibc's
# call.  Watched, libkq's handler stands in the kernel and the program's
# disposition is kept aside, shown to its sigaction queries and carried out
# by that handler (SIG_IGN, SIG_DFL by hand, SA_SIGINFO, SA_RESETHAND),
# and the sigwait family's takings are accounted for: the watched build
# holds that machinery to the whole suite.  Its kqueue is close-on-exec,
# and a fork child has none (as on FreeBSD), so a child runs on its own
# dispositions again.  Every program runs in the three builds, one after
# the other, two programs at a time, each under a timeout (some of the
# suite's tests block for good when what they test is broken).  The test
# fails iff some program's result in the libkq or the watched build
# differs from its result in the plain one: its exit status class (PASS,
# FAIL, UNRESOLVED, UNSUPPORTED, UNTESTED, another status, killed by a
# signal), HUNG (killed at the timeout), or NOT-BUILT.
#
# Many of these tests are timed: a signal expected within a sleep, a
# thread cancelled or a child reaped in time, a queue filled up to a
# per-user limit that a program running beside it also uses.  So a program
# whose results differ runs up to twice more, alone, in the plain build
# and in each build that differed.  A difference counts only when that
# build never gave a result the plain build gave (and the other way
# round): stable.  One whose results overlap is listed as flaky with all
# its results, and does not fail the run.  A test whose result hangs on a
# race of its own is built from a corrected copy instead (see "fixed").
#
# usage: sh posixtestsuite.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler
#   WORKDIR  where the suite's source, objects, builds and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source cannot be obtained
#
# Time on 2 cores: about 7 minutes from scratch, 2.3 of them to compile
# and link; the objects are kept, so a later run links the libkq and
# watched builds again (40 s) if libkq was rebuilt, and runs (3.7 minutes,
# and half a minute more for each program that needs its reruns).
set -u
here=$(cd "$(dirname "$0")" && pwd)
self=$here/$(basename "$0")
who=posix-suite
. "$here/debsrc.sh"

# Seconds a program may run.  The slowest that finish take 11 s (sleeps
# waiting for signals that must not come); one that needs twice that is
# blocked, and waiting longer would only tell the same.
tmo=20

# The builds each compared with the plain one.
builds="libkq watched"

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
	[ "$1" != plain ] && [ -n "$asan" ] && pre="LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0"
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

# sh posixtestsuite.sh --item WORKDIR SRC ASAN ITEM: ITEM run in the plain
# build, then in each of the others (never two at once: the suite's fork
# tests use named semaphores, queues and shared memory objects whose names
# are fixed), its results appended to WORKDIR/results.  xargs runs these
# two at a time; a job of the shell's own (&) would start each program
# with SIGINT and SIGQUIT ignored.
dflt=""
env --default-signal true 2>/dev/null && dflt=--default-signal
if [ "${1:-}" = --item ]; then
	work=$2 src=$3 asan=$4
	line=$5
	for b in plain $builds; do
		line="$line $(run_one "$b" "$5" 1)"
	done
	echo "$line" >>"$work/results"
	exit 0
fi

# shared "R..." "R...": true when the two lists of results have one in common.
shared() {
	for x in $1; do
		for y in $2; do
			[ "$x" = "$y" ] && return 0
		done
	done
	return 1
}

take_args "$@"
fetch_source posixtestsuite conformance/interfaces/sigaction/1-1.c
asan=$(asan_runtime)
t_start=$(date +%s)

# fork first: its 11-1 blocks until the timeout in every build (the child's
# thread waits for the stdout lock its parent held at the fork), a minute
# for the three, which the other runner spends on the rest instead of the
# run ending on it.
ifaces="fork pthread_atfork sigaction signal sigwait sigwaitinfo sigtimedwait
	sigset sighold sigignore sigrelse sigpause kill raise pthread_kill
	pthread_cancel sigqueue sigsuspend sigprocmask pthread_sigmask"

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

# The watched build's object: before main, a kqueue watching the signals
# with EVFILT_SIGNAL, kept open, so that libkq's handler stands in the
# kernel for each of them and the program's dispositions are the kept ones
# from main on.  SIGKILL and SIGSTOP cannot be caught; 32 and 33 are
# glibc's; four real-time signals stand for the rest.  The kqueue is
# close-on-exec (an exec'd program makes its own) and a fork child has
# none (libkq, as FreeBSD); errno is as it was, nothing printed.
cat >"$work/kqwatch.c.new" <<'EOF'
#include <errno.h>
#include <signal.h>
#include <sys/event.h>

__attribute__((constructor)) static void kqwatch(void)
{
	struct kevent ch[40];
	int n = 0, e = errno;
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			EV_SET(&ch[n++], s, EVFILT_SIGNAL, EV_ADD | EV_CLEAR, 0, 0, 0);
	for (int s = SIGRTMIN; s <= SIGRTMIN + 3; s++)
		EV_SET(&ch[n++], s, EVFILT_SIGNAL, EV_ADD | EV_CLEAR, 0, 0, 0);
	int kq = kqueuex(KQUEUE_CLOEXEC);
	if (kq >= 0)
		kevent(kq, ch, n, NULL, 0, NULL);
	errno = e;
}
EOF
# Its check, linked as the watched programs are: the kernel has a handler
# (libkq's) for every watched signal and for no other, sigaction() shows
# the program the default it started with, and libkq's descriptors (the
# kqueue's and the signal ones) are open and close-on-exec.
cat >"$work/kqwatch-probe.c.new" <<'EOF'
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	unsigned long long caught = 0, want = 0;
	char line[256];
	int bad = 0;
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "SigCgt: %llx", &caught) == 1)
			break;
	for (int s = 1; s <= SIGRTMIN + 4; s++) {
		struct sigaction sa;
		if ((s < 32 && s != SIGKILL && s != SIGSTOP) ||
		    (s >= SIGRTMIN && s <= SIGRTMIN + 3))
			want |= 1ULL << (s - 1);
		if ((s < 32 || s >= SIGRTMIN) && (sigaction(s, NULL, &sa) != 0 ||
		    sa.sa_handler != SIG_DFL || (sa.sa_flags & SA_SIGINFO))) {
			printf("sigaction(%d) does not show SIG_DFL\n", s);
			bad = 1;
		}
	}
	if (caught != want) {
		printf("SigCgt %llx, watched %llx\n", caught, want);
		bad = 1;
	}
	if (f)
		fclose(f);
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int kqs = 0;
	while (d && (de = readdir(d))) {
		char path[300], to[100];
		snprintf(path, sizeof path, "/proc/self/fd/%s", de->d_name);
		ssize_t n = readlink(path, to, sizeof to - 1);
		to[n > 0 ? n : 0] = 0;
		if (strncmp(to, "anon_inode:", 11) != 0)
			continue;
		kqs += strcmp(to, "anon_inode:[eventpoll]") == 0;
		if (!(fcntl(atoi(de->d_name), F_GETFD) & FD_CLOEXEC)) {
			printf("descriptor %s (%s) is not close-on-exec\n", de->d_name, to);
			bad = 1;
		}
	}
	if (kqs == 0) {
		printf("no kqueue open\n");
		bad = 1;
	}
	return bad;
}
EOF
for f in kqwatch kqwatch-probe; do
	cmp -s "$work/$f.c.new" "$work/$f.c" || mv "$work/$f.c.new" "$work/$f.c" || exit 1
	rm -f "$work/$f.c.new"
done

# Items whose result is decided by a race in the test itself, built from a
# corrected copy (WORKDIR/fixed) so that what they test is still held to
# the same rule in every build.
#   sigpause/3-1: main sends the signal, then sets "sem" to say the thread
#   is still working, and waits until the thread sets it back.  If the
#   woken thread runs first (on a 2-CPU machine it often preempts main on
#   main's own CPU) and finishes before that store, main waits for good: a
#   hang that comes and goes with scheduling, with or without libkq
#   (pinned to one CPU, half the plain runs hang).  The copy sets "sem"
#   before sending the signal.
fixed=sigpause/3-1
mkdir -p "$work/fixed/sigpause" || exit 1
sed '/^[[:space:]]*sem = INTHREAD;[[:space:]]*$/d
	/^[[:space:]]*if *(pthread_kill(new_th, SIGTOTEST)/i\
	sem = INTHREAD;' \
	"$src/conformance/interfaces/sigpause/3-1.c" >"$work/fixed/sigpause/3-1.c.new" || exit 1
# The correction must have found its two lines, in the right order.
awk '/sem = INTHREAD;/ { s = NR } /pthread_kill\(new_th/ { k = NR }
	END { exit !(s && k && s < k) }' "$work/fixed/sigpause/3-1.c.new" &&
	[ "$(grep -c 'sem = INTHREAD;' "$work/fixed/sigpause/3-1.c.new")" = 1 ] ||
	die "sigpause/3-1.c is not as expected: cannot correct its race"
cmp -s "$work/fixed/sigpause/3-1.c.new" "$work/fixed/sigpause/3-1.c" ||
	mv "$work/fixed/sigpause/3-1.c.new" "$work/fixed/sigpause/3-1.c" || exit 1
rm -f "$work/fixed/sigpause/3-1.c.new"

# The objects are kept across runs for this source, compiler and libkq
# source tree; the links depend on libkq's file, so a rebuilt libkq is
# linked again.
cflags="-O2 -Wall -std=gnu99 -D_POSIX_C_SOURCE=200112L -D_GNU_SOURCE"
key="$(cat "$src/.complete")|$cc|$cflags|$srcdir|$libkq"
if [ "$(cat "$work/.key" 2>/dev/null)" != "$key" ]; then
	rm -rf "$work/obj" "$work/plain" "$work/libkq" "$work/watched" "$work/.key"
fi
{
	echo "SRC = $src/conformance/interfaces"
	printf 'all: watched/kqwatch-probe'
	sed 's|.*| plain/conformance/interfaces/&.test libkq/conformance/interfaces/&.test watched/conformance/interfaces/&.test|' \
		"$work/progs" | tr -d '\n'
	echo
	echo ".SECONDARY:"
	echo "obj/%.o: \$(SRC)/%.c"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s %s -I%s -c $< -o $@\n' "$cc" "$cflags" "$src/include"
	for f in $fixed; do
		echo "obj/$f.o: fixed/$f.c"
		printf '\t@mkdir -p $(@D)\n'
		printf '\t%s %s -I%s -I%s -c $< -o $@\n' "$cc" "$cflags" "$src/include" \
			"$src/conformance/interfaces/${f%%/*}"
	done
	for f in kqwatch kqwatch-probe; do
		echo "obj/$f.o: $f.c"
		printf '\t@mkdir -p $(@D)\n'
		printf '\t%s -O2 -Wall -std=gnu11 -I%s -c $< -o $@\n' "$cc" "$srcdir/include"
	done
	echo "plain/conformance/interfaces/%.test: obj/%.o"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s $< -o $@ -lpthread -lrt\n' "$cc"
	# --no-as-needed: libkq stays NEEDED, and first, even for a program
	# that glibc would serve alone
	echo "libkq/conformance/interfaces/%.test: obj/%.o $libkq"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s $< -o $@ -Wl,--no-as-needed %s -Wl,-rpath,%s -lpthread -lrt\n' \
		"$cc" "$libkq" "$libdir"
	echo "watched/conformance/interfaces/%.test: obj/%.o obj/kqwatch.o $libkq"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s $< obj/kqwatch.o -o $@ -Wl,--no-as-needed %s -Wl,-rpath,%s -lpthread -lrt\n' \
		"$cc" "$libkq" "$libdir"
	echo "watched/kqwatch-probe: obj/kqwatch-probe.o obj/kqwatch.o $libkq"
	printf '\t@mkdir -p $(@D)\n'
	printf '\t%s $< obj/kqwatch.o -o $@ -Wl,--no-as-needed %s -Wl,-rpath,%s\n' \
		"$cc" "$libkq" "$libdir"
} >"$work/Makefile"
say "building $nprogs programs, three times"
(cd "$work" && make -k -j2 -f Makefile all) >"$work/build.log" 2>&1
echo "$key" >"$work/.key"
t_built=$(date +%s)
for b in plain $builds; do
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
# And the watched build must watch, or it would only repeat the libkq one.
pre=""
[ -n "$asan" ] && pre="LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0"
# shellcheck disable=SC2086
env $pre timeout "$tmo" env $dflt "$work/watched/kqwatch-probe" >"$work/kqwatch-probe.log" 2>&1 ||
	die "the watched build's constructor does not watch as it should:" \
	    "$(head -3 "$work/kqwatch-probe.log")"
say "the watched build's programs start with every signal watched"

say "running every item in the $(echo plain $builds | wc -w) builds, two at a time," \
    "${tmo} s at most each"
rm -rf "$work/logs" "$work/results"
: >"$work/results"
xargs -P 2 -n 1 sh "$self" --item "$work" "$src" "$asan" <"$work/items"
t_ran=$(date +%s)
sort -V -o "$work/results" "$work/results"
[ "$(wc -l <"$work/results")" = "$(wc -l <"$work/items")" ] ||
	die "$(wc -l <"$work/results") results for $(wc -l <"$work/items") items (see $work/results)"

say "results (first run)        plain  libkq  watched"
awk '{ p[$2]++; k[$3]++; w[$4]++; c[$2]; c[$3]; c[$4] }
	END { for (r in c) printf "    %-22s %5d  %5d  %7d\n", r, p[r], k[r], w[r] }' \
	"$work/results" | sort

same=$(awk '$2 == $3 && $2 == $4 && $2 != "PASS" { printf " %s (%s)", $1, $2 }' "$work/results")
[ -n "$same" ] && say "not passing, the same in every build:$same"

# Each item whose results differ runs up to twice more, alone, in the
# plain build and in each build that differed from it.  A result that a
# build and the plain build have both given settles that build: it runs
# no more.
awk '$2 != $3 || $2 != $4' "$work/results" >"$work/differ"
: >"$work/stable"
: >"$work/flaky"
while read -r item p k w; do
	open_libkq=0 open_watched=0
	[ "$k" != "$p" ] && open_libkq=1
	[ "$w" != "$p" ] && open_watched=1
	first_libkq=$open_libkq first_watched=$open_watched
	for r in 2 3; do
		p="$p $(run_one plain "$item" $r)"
		[ $open_libkq = 1 ] && k="$k $(run_one libkq "$item" $r)"
		[ $open_watched = 1 ] && w="$w $(run_one watched "$item" $r)"
		[ $open_libkq = 1 ] && shared "$p" "$k" && open_libkq=0
		[ $open_watched = 1 ] && shared "$p" "$w" && open_watched=0
		[ $open_libkq = 0 ] && [ $open_watched = 0 ] && break
	done
	if [ $first_libkq = 1 ]; then
		if [ $open_libkq = 1 ]; then
			echo "$item libkq plain: $p; libkq: $k" >>"$work/stable"
		else
			echo "$item libkq plain: $p; libkq: $k" >>"$work/flaky"
		fi
	fi
	if [ $first_watched = 1 ]; then
		if [ $open_watched = 1 ]; then
			echo "$item watched plain: $p; watched: $w" >>"$work/stable"
		else
			echo "$item watched plain: $p; watched: $w" >>"$work/flaky"
		fi
	fi
done <"$work/differ"
t_end=$(date +%s)

if [ -s "$work/flaky" ]; then
	say "differed once, but not every time (flaky, not counted):"
	sed 's/^\([^ ]*\) \([^ ]*\) /    \1 (\2) /' "$work/flaky"
fi
say "time: build $((t_built - t_start)) s, run $((t_ran - t_built)) s," \
    "reruns $((t_end - t_ran)) s, $((t_end - t_start)) s in all"
if [ ! -s "$work/stable" ]; then
	say "PASS: every result is the same with libkq, and with every signal" \
	    "watched, as without ($(wc -l <"$work/results") items)"
	exit 0
fi
say "FAIL: results that differ from the plain build's, in all three runs of each:"
while read -r item b rest; do
	echo "    $item ($b) $rest"
	for x in plain "$b"; do
		echo "      $x's output ($work/logs/$x/$item.1):"
		tail -5 "$work/logs/$x/$item.1" | sed 's/^/        /'
	done
done <"$work/stable"
exit 1
