#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# install-consumer: an installed libkq can be used by a FreeBSD-style program.
#
# usage: sh install-consumer.sh SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER
# exit:  0 pass, 1 fail, 77 skip (reason printed)
#
# 1. `cmake --install BINDIR --prefix TMP` into a fresh temporary directory;
#    TMP/include/kqueue/sys/event.h, TMP/lib*/libkq.so (+ libkq.so.0),
#    libkq.a, pkgconfig/libkq.pc (Cflags -I${includedir}/kqueue, Libs -lkq)
#    and cmake/libkq/libkqConfig.cmake must exist.
# 2. A small program (#include <sys/event.h>, kqueue() + kevent() on a pipe)
#    is built three ways and each binary must run and exit 0:
#    a. with the flags of libkq.pc: through pkg-config when it is installed,
#       otherwise parsed from the file with sed;
#    b. with a CMake project doing find_package(libkq REQUIRED) and linking
#       libkq::kq (and libkq::kq_static), CMAKE_PREFIX_PATH=TMP;
#    c. statically against TMP's libkq.a with -pthread.
#    Programs run with LD_LIBRARY_PATH = TMP's libdir.
# 3. libkq.pc names the prefix it was installed under as a plain path: its
#    prefix= line is TMP itself, and pkg-config's flags are -I TMP/include/
#    kqueue and -L TMP's libdir, with no "." or ".." component (no
#    ${pcfiledir}/../.. paths).  Installed again with DESTDIR=TMP/stage and
#    --prefix /usr, its prefix is /usr and `pkg-config --libs` prints -lkq
#    and at most a clean -L/usr/lib... (pkg-config drops system library
#    directories).  Without pkg-config only the prefix= lines are checked.
# The temporary directory is removed on exit.
set -u
. "$(dirname "$0")/lib/common.sh"

kq_args 4 "SRCDIR BINDIR LIBKQ_SO_PATH C_COMPILER" "$@"
kq_need_cmake
kq_tmpdir install

PREFIX=$TMP/prefix
WORK=$TMP/work
mkdir -p "$WORK" || exit 1

# If the build uses sanitizers (KQ_SANITIZE), the consumers need them too.
kq_sanitize

# --- 1. install -----------------------------------------------------------
if ! cmake --install "$BINDIR" --prefix "$PREFIX" >"$TMP/install.log" 2>&1; then
	cat "$TMP/install.log"
	echo "FAIL: cmake --install $BINDIR --prefix $PREFIX failed"
	exit 1
fi

[ -f "$PREFIX/include/kqueue/sys/event.h" ] ||
	fail "include/kqueue/sys/event.h not installed"

LIBDIR=""
for d in "$PREFIX"/lib*; do
	if [ -e "$d/libkq.so" ]; then
		LIBDIR=$d
		break
	fi
done
if [ -z "$LIBDIR" ]; then
	echo "installed files:"
	(cd "$PREFIX" && find . -type f -o -type l)
	echo "FAIL: no $PREFIX/lib*/libkq.so"
	exit 1
fi
[ -e "$LIBDIR/libkq.so.0" ] || fail "$LIBDIR/libkq.so.0 (SONAME link) missing"
[ -f "$LIBDIR/libkq.a" ] || fail "$LIBDIR/libkq.a missing"
PC=$LIBDIR/pkgconfig/libkq.pc
CONFIG=$LIBDIR/cmake/libkq/libkqConfig.cmake
[ -f "$CONFIG" ] || fail "$CONFIG missing"
if [ ! -f "$PC" ]; then
	fail "$PC missing"
else
	grep '^Cflags:' "$PC" | grep -F -e '-I${includedir}/kqueue' >/dev/null ||
		fail "libkq.pc: Cflags lacks -I\${includedir}/kqueue"
	grep '^Libs:' "$PC" | grep -E -e '-lkq([[:space:]]|$)' >/dev/null ||
		fail "libkq.pc: Libs lacks -lkq"
fi
if [ $status -ne 0 ]; then
	exit 1
fi
echo "ok: installed into $PREFIX (libdir ${LIBDIR#"$PREFIX"/})"

# --- the consumer: plain FreeBSD code -------------------------------------
cat >"$WORK/consumer.c" <<'EOF'
#include <sys/types.h>
#include <sys/event.h>
#include <sys/time.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	struct kevent ch, ev;
	struct timespec timeout = { 2, 0 };
	int kq, p[2], n;

	if (pipe(p) != 0 || (kq = kqueue()) < 0) {
		perror("pipe/kqueue");
		return 1;
	}
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	if (write(p[1], "x", 1) != 1)
		return 1;
	n = kevent(kq, &ch, 1, &ev, 1, &timeout);
	if (n != 1 || ev.ident != (uintptr_t)p[0] ||
	    ev.filter != EVFILT_READ || (ev.flags & EV_ERROR) ||
	    ev.data != 1) {
		fprintf(stderr, "consumer: kevent returned %d, ident %d "
		    "filter %d flags %#x data %lld\n", n, (int)ev.ident,
		    ev.filter, ev.flags, (long long)ev.data);
		return 1;
	}
	close(kq);
	close(p[0]);
	close(p[1]);
	printf("consumer: pipe readable, data %lld\n", (long long)ev.data);
	return 0;
}
EOF

# run NAME BINARY: run with TMP's libdir and check exit 0.
run() {
	if LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$2" \
	    >"$WORK/$1.out" 2>&1; then
		echo "ok: $1: $(cat "$WORK/$1.out")"
	else
		cat "$WORK/$1.out"
		fail "$1: $2 exited non-zero"
	fi
}

# --- 2a. pkg-config (or the .pc file read by hand) ------------------------
# (KQ_NO_PKG_CONFIG=1 in the environment forces the fallback.)
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
	how="pkg-config"
	flags=$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config \
	    --cflags --libs libkq) || {
		fail "pkg-config --cflags --libs libkq failed"
		flags=""
	}
else
	# No pkg-config: expand the variables of libkq.pc ourselves.
	how="libkq.pc parsed with sed, pkg-config not used"
	pcvar() {
		sed -n "s/^$1=//p" "$PC" | sed -n 1p
	}
	pcexpand() {
		printf '%s\n' "$1" | sed \
		    -e "s|[\$]{prefix}|$PREFIX|g" \
		    -e "s|[\$]{exec_prefix}|$pc_exec_prefix|g" \
		    -e "s|[\$]{libdir}|$pc_libdir|g" \
		    -e "s|[\$]{includedir}|$pc_includedir|g"
	}
	pc_exec_prefix=""
	pc_libdir=""
	pc_includedir=""
	pc_exec_prefix=$(pcexpand "$(pcvar exec_prefix)")
	pc_libdir=$(pcexpand "$(pcvar libdir)")
	pc_includedir=$(pcexpand "$(pcvar includedir)")
	flags="$(pcexpand "$(sed -n 's/^Cflags:[[:space:]]*//p' "$PC")") \
$(pcexpand "$(sed -n 's/^Libs:[[:space:]]*//p' "$PC")")"
fi
echo "consumer flags ($how): $flags"
# $flags is split into words on purpose.
# shellcheck disable=SC2086
if $CC $SAN -o "$WORK/consumer-pc" "$WORK/consumer.c" $flags \
    >"$WORK/pc.log" 2>&1; then
	run libkq.pc-flags "$WORK/consumer-pc"
else
	cat "$WORK/pc.log"
	fail "building with the libkq.pc flags failed"
fi

# --- 3. libkq.pc's paths are plain ---------------------------------------
# has_dots TEXT: true if a path in TEXT has a "." or ".." component.
has_dots() {
	case " $1 " in
	*/../* | */./* | */..[[:space:]]* | */.[[:space:]]*) return 0 ;;
	esac
	return 1
}
pcprefix=$(sed -n 's/^prefix=//p' "$PC")
if [ "$pcprefix" = "$PREFIX" ]; then
	echo "ok: libkq.pc: prefix=$pcprefix (the install prefix)"
else
	fail "libkq.pc: prefix=$pcprefix, not the install prefix $PREFIX"
fi
if [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
	if has_dots "$flags"; then
		fail "pkg-config --cflags --libs libkq has a . or .. component: $flags"
	else
		case " $flags " in
		*" -I$PREFIX/include/kqueue "*) ;;
		*) fail "pkg-config --cflags libkq lacks -I$PREFIX/include/kqueue: $flags" ;;
		esac
		case " $flags " in
		*" -L$LIBDIR "*) echo "ok: pkg-config --cflags --libs libkq: $flags" ;;
		*) fail "pkg-config --libs libkq lacks -L$LIBDIR: $flags" ;;
		esac
	fi
fi
STAGE=$TMP/stage
if ! DESTDIR=$STAGE cmake --install "$BINDIR" --prefix /usr \
    >"$TMP/install-usr.log" 2>&1; then
	cat "$TMP/install-usr.log"
	fail "DESTDIR=$STAGE cmake --install $BINDIR --prefix /usr failed"
else
	upc=$(find "$STAGE/usr" -path '*/pkgconfig/libkq.pc' | sed -n 1p)
	if [ -z "$upc" ]; then
		fail "no libkq.pc installed under $STAGE/usr"
	elif [ "$(sed -n 's/^prefix=//p' "$upc")" != /usr ]; then
		fail "${upc#"$STAGE"}: $(grep '^prefix=' "$upc"), not prefix=/usr"
	elif [ -z "${KQ_NO_PKG_CONFIG:-}" ] && command -v pkg-config >/dev/null 2>&1; then
		# As a user of the installed /usr tree sees it: the file's own
		# directory on the search path, nothing redefined.
		ulibs=$(PKG_CONFIG_PATH=$(dirname "$upc") pkg-config --libs libkq) ||
			fail "pkg-config --libs libkq failed for the /usr install"
		ucflags=$(PKG_CONFIG_PATH=$(dirname "$upc") pkg-config --cflags libkq)
		if has_dots "$ulibs $ucflags"; then
			fail "/usr install: pkg-config gives a . or .. component: $ucflags $ulibs"
		else
			bad=""
			for w in $ulibs; do
				case $w in
				-lkq | -L/usr/lib | -L/usr/lib/* | -L/usr/lib64) ;;
				*) bad="$bad $w" ;;
				esac
			done
			if [ -n "$bad" ]; then
				fail "/usr install: pkg-config --libs libkq gives$bad (expected -lkq and at most -L/usr/lib...): $ulibs"
			else
				echo "ok: /usr install: pkg-config --libs libkq: $ulibs; --cflags: $ucflags"
			fi
		fi
	else
		echo "ok: /usr install: libkq.pc has prefix=/usr"
	fi
fi

# --- 2b. CMake find_package ----------------------------------------------
if command -v ninja >/dev/null 2>&1; then
	GEN=Ninja
elif command -v make >/dev/null 2>&1; then
	GEN="Unix Makefiles"
else
	GEN=""
	echo "FAIL: neither ninja nor make available for the CMake consumer"
	status=1
fi
if [ -n "$GEN" ]; then
	mkdir -p "$WORK/cmake-src"
	cp "$WORK/consumer.c" "$WORK/cmake-src/consumer.c"
	kq_consumer_cmake "$WORK/cmake-src" consumer.c libkq_consumer
	if cmake -S "$WORK/cmake-src" -B "$WORK/cmake-build" -G "$GEN" \
	    -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_C_COMPILER="$CC" \
	    -DCMAKE_C_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" \
	    >"$WORK/cmake.log" 2>&1 &&
	    cmake --build "$WORK/cmake-build" >>"$WORK/cmake.log" 2>&1; then
		echo "ok: CMake consumer built (find_package(libkq), generator $GEN)"
		found=$(sed -n 's/^libkq_DIR:[A-Z]*=//p' \
		    "$WORK/cmake-build/CMakeCache.txt")
		case $found in
		"$PREFIX"/*) ;;
		*) fail "find_package(libkq) used $found, not the install in $PREFIX" ;;
		esac
		run cmake-libkq::kq "$WORK/cmake-build/prog"
		run cmake-libkq::kq_static "$WORK/cmake-build/prog_static"
	else
		cat "$WORK/cmake.log"
		fail "the CMake consumer (find_package(libkq), generator $GEN) did not build"
	fi
fi

# --- 2c. static, against libkq.a ------------------------------------------
# shellcheck disable=SC2086
if $CC $SAN -I"$PREFIX/include/kqueue" -o "$WORK/consumer-static" \
    "$WORK/consumer.c" "$LIBDIR/libkq.a" -pthread >"$WORK/static.log" 2>&1; then
	run static-libkq.a "$WORK/consumer-static"
	# kevent must come from the archive, not from libkq.so.
	if command -v nm >/dev/null 2>&1 &&
	    ! nm "$WORK/consumer-static" | grep ' T kevent$' >/dev/null; then
		fail "the static consumer does not contain kevent itself"
	fi
else
	cat "$WORK/static.log"
	fail "linking statically against libkq.a failed"
fi

exit $status
