#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# header-standards: <sys/event.h> compiles without a warning under every C
# and C++ standard a program may use, with both gcc and clang.
#
# usage: sh header-standards.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# Compilers: C_COMPILER, and gcc and clang when C_COMPILER is not that one
# (told apart by __clang__ and __GNUC__, so that cc counts as the compiler
# it is); for C++ the C++ compiler of each (g++ for gcc, clang++ for clang).
# A compiler that is not installed is left out with a note saying so
# (apt-get install clang adds clang and clang++), unless KQ_REQUIRE_TOOLS=1
# is set (.ci/run, which installs clang): then a missing gcc, clang or C++
# compiler is a failure.  A -std a compiler does not know is noted, not
# failed.
# Each file is compiled with -Wall -Wextra -Werror -pedantic (and -Wundef,
# -Wshadow, -Wstrict-prototypes for C) against SRCDIR/include, with no
# feature-test macro, with -D_GNU_SOURCE and with -D_POSIX_C_SOURCE=200809L:
#   hdr.c      the header on its own, every interface used (EV_SET, the
#              four calls with a struct timespec timeout, the flags, the
#              version macros and functions), and on
#              LP64 the FreeBSD layout of struct kevent (64 bytes, fields at
#              0, 8, 10, 12, 16, 24, 32) checked at compile time;
#              -std=c89 c99 c11 c17, and as C++;
#   readme.c   the README's example program, taken from README.md (the
#              first ```c block): -std=c99 c11 c17; with -std=c89 without
#              -pedantic, since it prints a long long;
#   prog.cc    a C++ program: -std=c++98 c++11 c++14 c++17 c++20.
# readme.c (-std=c99) and prog.cc (-std=c++98) are also linked with
# LIBKQ_SO_PATH, with every C compiler and its C++ compiler, and must run
# and exit 0.  In a sanitizer build (KQ_SANITIZE in BINDIR's cache) only
# C_COMPILER links: the library needs that compiler's sanitizer runtime.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"
INC=$SRCDIR/include

kq_tmpdir hdr

# --- the sources -------------------------------------------------------------
awk '/^```c[[:space:]]*$/ { if (!done) f = 1; next }
     /^```/ { if (f) done = 1; f = 0; next }
     f' "$SRCDIR/README.md" >"$TMP/readme.c"
if ! grep -q 'sys/event.h' "$TMP/readme.c"; then
	echo "FAIL: no C example including <sys/event.h> found in README.md"
	exit 1
fi

cat >"$TMP/hdr.c" <<'EOF'
#include <sys/event.h>
#include <stddef.h>

#if defined(__LP64__)
#define KQ_CHECK(name, cond) typedef char name[(cond) ? 1 : -1]
KQ_CHECK(kevent_size, sizeof(struct kevent) == 64);
KQ_CHECK(kevent_ident, offsetof(struct kevent, ident) == 0);
KQ_CHECK(kevent_filter, offsetof(struct kevent, filter) == 8);
KQ_CHECK(kevent_flags, offsetof(struct kevent, flags) == 10);
KQ_CHECK(kevent_fflags, offsetof(struct kevent, fflags) == 12);
KQ_CHECK(kevent_data, offsetof(struct kevent, data) == 16);
KQ_CHECK(kevent_udata, offsetof(struct kevent, udata) == 24);
KQ_CHECK(kevent_ext, offsetof(struct kevent, ext) == 32);
#endif

int use_header(int fd);

int use_header(int fd)
{
	static const int filters[] = { EVFILT_READ, EVFILT_WRITE, EVFILT_AIO,
		EVFILT_VNODE, EVFILT_PROC, EVFILT_SIGNAL, EVFILT_TIMER,
		EVFILT_PROCDESC, EVFILT_FS, EVFILT_LIO, EVFILT_USER,
		EVFILT_SENDFILE, EVFILT_EMPTY };
	static const unsigned int notes[] = { NOTE_FFNOP, NOTE_FFAND,
		NOTE_FFOR, NOTE_FFCOPY, NOTE_FFCTRLMASK, NOTE_FFLAGSMASK,
		NOTE_TRIGGER, NOTE_LOWAT, NOTE_FILE_POLL, NOTE_DELETE,
		NOTE_WRITE, NOTE_EXTEND, NOTE_ATTRIB, NOTE_LINK, NOTE_RENAME,
		NOTE_REVOKE, NOTE_OPEN, NOTE_CLOSE, NOTE_CLOSE_WRITE,
		NOTE_READ, NOTE_EXIT, NOTE_FORK, NOTE_EXEC, NOTE_PCTRLMASK,
		NOTE_PDATAMASK, NOTE_TRACK, NOTE_TRACKERR, NOTE_CHILD,
		NOTE_SECONDS, NOTE_MSECONDS, NOTE_USECONDS, NOTE_NSECONDS,
		NOTE_ABSTIME };
	static const unsigned short flags[] = { EV_ADD, EV_DELETE, EV_ENABLE,
		EV_DISABLE, EV_FORCEONESHOT, EV_KEEPUDATA, EV_ONESHOT,
		EV_CLEAR, EV_RECEIPT, EV_DISPATCH, EV_WAKEONE, EV_SYSFLAGS,
		EV_DROP, EV_FLAG1, EV_FLAG2, EV_EOF, EV_ERROR };
	struct kevent ch[2];
	struct timespec ts;
	int kq;

	ts.tv_sec = 1;
	ts.tv_nsec = 0;
	kq = kqueuex(KQUEUE_CLOEXEC) + kqueue1(0) + kqueue() +
	    (KQUEUE_CPONFORK == 2) + EVFILT_SYSCOUNT;
	EV_SET(&ch[0], fd, filters[0], flags[0] | EV_CLEAR, notes[0], 0, NULL);
	EV_SET(&ch[1], 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFCOPY, 0, &ch[0]);
	if (libkq_version_number() < LIBKQ_VERSION_NUMBER ||
	    libkq_version()[0] != LIBKQ_VERSION_STRING[0] ||
	    LIBKQ_VERSION_MAJOR + LIBKQ_VERSION_MINOR + LIBKQ_VERSION_PATCH < 0)
		return -1;
	return kevent(kq, ch, 2, ch, 2, &ts) + kevent(kq, NULL, 0, NULL, 0, NULL);
}
EOF

cat >"$TMP/prog.cc" <<'EOF'
#include <sys/event.h>
#include <cstdio>
#include <unistd.h>

namespace {
struct Queue {
	int fd;
	Queue() : fd(kqueue()) {}
	~Queue() { if (fd >= 0) close(fd); }
};
}

int main()
{
	Queue q;
	struct kevent ch[2], ev;
	struct timespec ts = { 5, 0 };
	int token = 42;

	if (q.fd < 0) {
		std::perror("kqueue");
		return 1;
	}
	EV_SET(&ch[0], 7, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &token);
	EV_SET(&ch[1], 7, EVFILT_USER, 0, NOTE_TRIGGER, 0, &token);
	if (kevent(q.fd, ch, 2, 0, 0, 0) != 0 ||
	    kevent(q.fd, 0, 0, &ev, 1, &ts) != 1) {
		std::perror("kevent");
		return 1;
	}
	if (ev.ident != 7 || ev.filter != EVFILT_USER ||
	    static_cast<int *>(ev.udata) != &token) {
		std::fprintf(stderr, "unexpected event\n");
		return 1;
	}
	std::printf("C++: EVFILT_USER event received\n");
	return 0;
}
EOF

# --- compilers ------------------------------------------------------------------
# What a compiler is, from its predefined macros: gcc, clang or other.
kind() {
	k=$(printf '#if defined(__clang__)\nclang\n#elif defined(__GNUC__)\ngcc\n#else\nother\n#endif\n' |
	    "$1" -E -P -x c - 2>/dev/null | tr -d '[:space:]')
	echo "${k:-other}"
}
# The C++ compiler that goes with a C compiler: gcc -> g++, clang -> clang++
# (next to it, with the same suffix, such as clang-14 -> clang++-14).
cxx_for() {
	case ${1##*/} in
	*clang*) c=$(printf '%s' "$1" | sed 's/clang\([^/]*\)$/clang++\1/') ;;
	*gcc*) c=$(printf '%s' "$1" | sed 's/gcc\([^/]*\)$/g++\1/') ;;
	*)
		case $(kind "$1") in
		clang) c=clang++ ;;
		gcc) c=g++ ;;
		*) c=c++ ;;
		esac ;;
	esac
	command -v "$c" 2>/dev/null
}
# A tool that is missing: a note, or with KQ_REQUIRE_TOOLS=1 a failure.
missing() {
	if [ "${KQ_REQUIRE_TOOLS:-}" = 1 ]; then
		fail "$1 (KQ_REQUIRE_TOOLS=1)"
	else
		echo "note: $1; not checked"
	fi
}
CCS=$CC
cc_kind=$(kind "$CC")
for want in gcc clang; do
	[ "$cc_kind" = "$want" ] && continue
	if other=$(command -v $want 2>/dev/null) && [ "$(kind "$other")" = "$want" ]; then
		CCS="$CCS $other"
	else
		case $want in
		clang) missing "clang is not installed (apt-get install clang adds it)" ;;
		*) missing "$want is not installed" ;;
		esac
	fi
done

CWARN="-Wall -Wextra -Werror -pedantic -Wundef -Wshadow -Wstrict-prototypes"
XWARN="-Wall -Wextra -Werror -pedantic -Wundef -Wshadow"
n=0

# compile COMPILER STD DEFINE FILE [LANGUAGE] [WARNINGS]
compile() {
	c_cc=$1 c_std=$2 c_def=$3 c_file=$4 c_lang=${5:-} c_warn=${6:-$CWARN}
	case $c_lang:$c_file in
	c++:*|*.cc) c_probe=c++ ;;
	*) c_probe=c ;;
	esac
	# A standard this compiler does not know is noted, not failed.
	if ! printf 'int x;\n' | "$c_cc" -std="$c_std" -x $c_probe -c -o /dev/null - \
	    >/dev/null 2>&1; then
		echo "note: $c_cc does not know -std=$c_std"
		return 0
	fi
	n=$((n + 1))
	# shellcheck disable=SC2086
	if ! "$c_cc" -std="$c_std" $c_def ${c_lang:+-x $c_lang} $c_warn -I"$INC" \
	    -c -o "$TMP/out.o" "$TMP/$c_file" >"$TMP/cc.log" 2>&1; then
		cat "$TMP/cc.log"
		fail "$c_cc -std=$c_std ${c_def:-(no macro)} ${c_lang:+-x $c_lang }$c_warn: $c_file"
	fi
}

for cc in $CCS; do
	cxx=$(cxx_for "$cc")
	for def in "" -D_GNU_SOURCE -D_POSIX_C_SOURCE=200809L; do
		for std in c89 c99 c11 c17; do
			compile "$cc" $std "$def" hdr.c
		done
		for std in c99 c11 c17; do
			compile "$cc" $std "$def" readme.c
		done
		compile "$cc" c89 "$def" readme.c "" "-Wall -Wextra -Werror"
		if [ -z "$cxx" ]; then
			continue
		fi
		for std in c++98 c++11 c++14 c++17 c++20; do
			compile "$cxx" $std "$def" hdr.c c++ "$XWARN"
			compile "$cxx" $std "$def" prog.cc "" "$XWARN"
		done
	done
	[ -n "$cxx" ] || missing "no C++ compiler found for $cc ($(kind "$cc")), so C++ with it"
	echo "ok: $cc ($(kind "$cc"))${cxx:+ and $cxx}: $n compilations so far"
done
[ $status -eq 0 ] && echo "ok: $n compilations without a warning"

# --- link and run ------------------------------------------------------------------
if [ ! -f "$SO" ]; then
	fail "$SO does not exist"
	exit 1
fi
# A sanitizer build's library needs the sanitizer runtime in the program.
kq_sanitize
LIBDIR=$(dirname "$SO")
run() {    # NAME COMPILER STD SOURCE
	# shellcheck disable=SC2086
	if ! "$2" -std="$3" $SAN -Wall -Wextra -Werror -I"$INC" -o "$TMP/$1" \
	    "$TMP/$4" -L"$LIBDIR" -lkq >"$TMP/link.log" 2>&1; then
		cat "$TMP/link.log"
		fail "$1: $2 -std=$3 $4 -lkq did not build"
		return
	fi
	if LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	    "$TMP/$1" >"$TMP/$1.out" 2>&1; then
		echo "ok: $1 ($2 -std=$3) ran: $(cat "$TMP/$1.out")"
	else
		cat "$TMP/$1.out"
		fail "$1 ($2 -std=$3) failed"
	fi
}
for cc in $CCS; do
	if [ -n "$SAN" ] && [ "$cc" != "$CC" ]; then
		echo "note: sanitizer build: not linking with $cc"
		continue
	fi
	k=$(kind "$cc")
	run "readme-$k" "$cc" c99 readme.c
	cxx=$(cxx_for "$cc")
	if [ -n "$cxx" ]; then
		run "cxx-$k" "$cxx" c++98 prog.cc
	fi
done
exit $status
