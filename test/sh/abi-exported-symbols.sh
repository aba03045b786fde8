#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# abi-exported-symbols: libkq exports exactly its public interface.
#
# usage: sh abi-exported-symbols.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# libkq.so must define (nm -D --defined-only) exactly these dynamic symbols:
#   kqueue kqueuex kqueue1 kevent             the BSD interface
#   libkq_version libkq_version_number        libkq's version (libkq_version(3))
#   close dup2 dup3 close_range closefrom getsockopt connect sigaction signal
#   read readv recv recvfrom recvmsg write writev send sendto sendmsg
#   __read_chk __recv_chk __recvfrom_chk
#   siginterrupt sigtimedwait sigwaitinfo sigwait
#   sigset sigignore __sysv_signal sysv_signal bsd_signal ssignal
#   socket socketpair accept accept4 setsockopt dup fcntl fcntl64 fclose
#   recvmmsg sendmmsg splice sendfile, sendfile64 (64-bit only)
#   setrlimit setrlimit64 prlimit prlimit64 (64-bit only)
#   posix_spawn posix_spawnp (libkq.so only)
#   vfork (x86-64 only)
#                                             deliberate interposers, so that
#                                             knotes die with their descriptor
#                                             (docs/differences.md)
# plus the version node LIBKQ_0 (an absolute 'A' symbol), which is ignored.
# Anything else (a leaked helper, a global variable) fails, and all expected
# names must be present.
#
# A build configured with KQ_LIBC_REPLACEMENTS=OFF (read from
# BINDIR/CMakeCache.txt) replaces no C library function: it must export the
# BSD interface and the version query alone, define no version of the C
# library's (GLIBC_*), and neither its libkq.a nor the link options it gives
# programs (libkq.pc's Libs.private) may name a C library function.
#
# libkq.a must sit next to it (BINDIR/src/libkq.a); its global defined symbols
# (nm -g --defined-only) must include the names above, and anything else
# must be an internal name starting with kq_ (internals are hidden in the
# shared library, but in a static archive they share the program's
# namespace, hence the prefix rule).  Compiler-generated names that are not C
# identifiers (they contain a '.', e.g. DW.ref.__gcc_personality_v0) are
# ignored.
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 SRCDIR BINDIR LIBKQ_SO_PATH [C_COMPILER]" >&2
	exit 1
fi
BINDIR=$2
SO=$3

BSD="kevent kqueue kqueue1 kqueuex libkq_version libkq_version_number"
REPLACEMENTS=ON
if [ -f "$BINDIR/CMakeCache.txt" ] &&
   grep -Eiq '^KQ_LIBC_REPLACEMENTS:[A-Z]*=(OFF|0|NO|FALSE|N|IGNORE)$' "$BINDIR/CMakeCache.txt"; then
	REPLACEMENTS=OFF
fi
if [ $REPLACEMENTS = ON ]; then
	EXPECTED="$BSD __read_chk __recv_chk __recvfrom_chk close close_range closefrom connect dup2 dup3 getsockopt sigaction signal read readv recv recvfrom recvmsg send sendmsg sendto siginterrupt sigtimedwait sigwait sigwaitinfo write writev socket socketpair accept accept4 setsockopt dup fcntl fcntl64 fclose recvmmsg sendmmsg splice sendfile posix_spawn posix_spawnp system popen pclose sigset sigignore __sysv_signal sysv_signal bsd_signal ssignal"
	# Only in libkq.so: the C library's own function is found at run time there.
	SHARED_ONLY="posix_spawn posix_spawnp"
	case $(uname -m) in
	x86_64 | amd64) EXPECTED="$EXPECTED vfork" ;;
	esac
	[ "$(getconf LONG_BIT)" = 64 ] &&
		EXPECTED="$EXPECTED sendfile64 setrlimit setrlimit64 prlimit prlimit64"
else
	echo "KQ_LIBC_REPLACEMENTS=OFF: expecting the BSD interface and the version query only"
	EXPECTED=$BSD
	SHARED_ONLY=""
fi

if ! command -v nm >/dev/null 2>&1; then
	echo "SKIP: nm (binutils) is not installed"
	exit 77
fi

status=0

is_expected() {
	for e in $EXPECTED; do
		[ "$1" = "$e" ] && return 0
	done
	return 1
}

# --- shared library -------------------------------------------------------
if [ ! -f "$SO" ]; then
	echo "FAIL: shared library $SO does not exist"
	exit 1
fi

# Lines are "address type name[@version]"; drop the version suffix.
dyn=$(nm -D --defined-only "$SO") || { echo "FAIL: nm -D $SO failed"; exit 1; }
dyn=$(printf '%s\n' "$dyn" | awk 'NF >= 3 { print $2, $3 }' | sed 's/@.*//')

unexpected=""
found=""
while read -r type name; do
	[ -n "$name" ] || continue
	# version definitions: libkq's own, and the C library's versions
	# the replacements are also exported under (src/export.h), which a
	# build without them must not define
	if [ "$type" = "A" ]; then
		case $name in
		LIBKQ_0) continue ;;
		GLIBC_*) [ $REPLACEMENTS = ON ] && continue ;;
		esac
	fi
	if is_expected "$name"; then
		found="$found $name"
	else
		unexpected="$unexpected $name($type)"
	fi
done <<EOF
$dyn
EOF

if [ -n "$unexpected" ]; then
	echo "FAIL: $SO exports unexpected symbols:$unexpected"
	status=1
fi
missing=""
for e in $EXPECTED; do
	case " $found " in
	*" $e "*) ;;
	*) missing="$missing $e" ;;
	esac
done
if [ -n "$missing" ]; then
	echo "FAIL: $SO does not export:$missing"
	status=1
fi
[ $status -eq 0 ] && echo "ok: $SO exports exactly:$found"

# Every replacement of a C library function is exported twice: as the
# default name@@LIBKQ_0 (what programs and libraries linked with libkq
# record) and under the C library's own version (what code built without
# libkq records), so both kinds of reference reach libkq.
vers=$(nm -D --defined-only --with-symbol-versions "$SO" 2>/dev/null | awk 'NF >= 3 { print $3 }')
for e in $EXPECTED; do
	case " $BSD " in *" $e "*) continue ;; esac
	if ! printf '%s\n' "$vers" | grep -qx "$e@@LIBKQ_0"; then
		echo "FAIL: $SO lacks $e@@LIBKQ_0"
		status=1
	fi
	if ! printf '%s\n' "$vers" | grep -q "^$e@GLIBC_"; then
		echo "FAIL: $SO lacks $e under the C library's version ($e@GLIBC_*)"
		status=1
	fi
done

# --- static archive -------------------------------------------------------
AR=""
for cand in "$(dirname "$SO")/libkq.a" "$BINDIR/src/libkq.a"; do
	if [ -f "$cand" ]; then
		AR=$cand
		break
	fi
done
if [ -z "$AR" ]; then
	echo "FAIL: libkq.a not found next to $SO or in $BINDIR/src"
	exit 1
fi

# Archive member headers ("foo.c.o:") and blank lines have fewer fields.
st=$(nm -g --defined-only "$AR" 2>&1) || { echo "FAIL: nm -g $AR failed: $st"; exit 1; }
st=$(printf '%s\n' "$st" | awk 'NF >= 3 { print $2, $3 }')

bad=""
sfound=""
nsyms=0
while read -r type name; do
	[ -n "$name" ] || continue
	nsyms=$((nsyms + 1))
	case $name in
	kq_*) continue ;;
	# Compiler-generated, not C identifiers, cannot clash with C names:
	# DW.ref.__gcc_personality_v0 (weak, from -fexceptions, used for
	# pthread_cleanup_push), __x86.get_pc_thunk.* (i386 PIC).
	*.*) continue ;;
	esac
	if is_expected "$name"; then
		sfound="$sfound $name"
		continue
	fi
	bad="$bad $name($type)"
done <<EOF
$st
EOF

smissing=""
for e in $EXPECTED; do
	case " $SHARED_ONLY " in *" $e "*) continue ;; esac
	case " $sfound " in
	*" $e "*) ;;
	*) smissing="$smissing $e" ;;
	esac
done
if [ -n "$smissing" ]; then
	echo "FAIL: $AR does not define:$smissing"
	status=1
fi

if [ -n "$bad" ]; then
	echo "FAIL: $AR defines global symbols that are neither public nor kq_*:$bad"
	status=1
else
	echo "ok: $AR: all $nsyms global symbols are public names or kq_*"
fi

# --- link options for programs linked with libkq.a ---------------------------
# libkq.pc's Libs.private (configured as BINDIR/pkgconfig/libkq.pc.in; the
# CMake target kq_static gets the same options) exports the replaced names
# from a static program, and names nothing when there are none.
PC=$BINDIR/pkgconfig/libkq.pc.in
if [ -f "$PC" ]; then
	libs=$(sed -n 's/^Libs.private:[[:space:]]*//p' "$PC")
	if [ $REPLACEMENTS = ON ]; then
		case $libs in
		*"--export-dynamic-symbol=close"*) echo "ok: libkq.pc exports the replaced names from static programs" ;;
		*) echo "FAIL: libkq.pc's Libs.private lacks --export-dynamic-symbol=close: $libs"
		   status=1 ;;
		esac
	elif [ "$libs" != "-lpthread" ]; then
		echo "FAIL: libkq.pc's Libs.private is '$libs', expected '-lpthread' alone"
		status=1
	else
		echo "ok: libkq.pc's Libs.private names no C library function"
	fi
fi
exit $status
