#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# lighttpd.sh: a web server with a kqueue event handler, on libkq.
# lighttpd picks its event handler from its configuration
# (server.event-handler = "kqueue" | "linux-sysepoll" | ...) among those
# it was built with, and its stat cache can watch directories with a
# kqueue of its own (EVFILT_VNODE), itself polled by the server's kqueue,
# when it is built without inotify.  Debian's lighttpd source is built
# that way against libkq's headers and linked with libkq, and its own test
# suite (tests/*.t: requests, conditionals, FastCGI, SCGI, proxying, about
# 220 checks against a running server) runs with the server on kqueue.
# The server takes its listening socket from the harness (systemd socket
# activation), a descriptor libkq never saw made.  A .t file that fails is
# run again on kqueue, and one that fails twice is run with the same
# binary on epoll (linux-sysepoll, stat cache "simple"): the run passes
# iff every such file also fails on epoll.
#
# usage: sh lighttpd.sh SRCDIR LIBKQ CC WORKDIR
#   SRCDIR   libkq's source tree
#   LIBKQ    libkq's shared library in the build tree
#   CC       the C compiler to build lighttpd with
#   WORKDIR  where lighttpd's source, build and logs go (cached)
# exit: 0 pass, 1 fail, 77 skip: only when the source or perl's
#       Test::More (the suite's harness) cannot be obtained
#
# lighttpd 1.4.69's kqueue stat cache watches the parent of each directory
# it means to (it opens the directory name's dirname), so what this checks
# there is that its watches are made, polled and dropped on libkq, not that
# the cache sees a file change; that slip is lighttpd's, on FreeBSD too.
#
# Left out: PCRE2 (regex conditionals; the suite skips those checks).
# zlib and bzip2 headers are installed when missing and this runs as root;
# without them the compression checks fail on both handlers alike.
# Time on 2 cores: about 60 s to build, a few seconds for the suite.
set -u
here=$(cd "$(dirname "$0")" && pwd)

who=lighttpd
. "$here/debsrc.sh"
take_args "$@"

build() {
	if fresh_tree; then
		say "configuring lighttpd"
		# LIBS, not LDFLAGS: configure drops LDFLAGS from some checks.
		# Without inotify the stat cache's directory watches are kqueue's.
		if ! (cd "$tree" && ./configure CC="$cc" CPPFLAGS="-I$srcdir/include" \
			LIBS="$libkq -Wl,-rpath,$libdir" --without-pcre2 \
			ac_cv_header_sys_inotify_h=no) >"$work/configure.log" 2>&1; then
			tail -20 "$work/configure.log"
			die "configuring lighttpd failed (see $work/configure.log)"
		fi
		grep -q '^#define HAVE_KQUEUE 1' "$tree/config.h" ||
			die "configure did not find kqueue() in libkq (see $work/configure.log)"
		grep -q '^#define HAVE_SYS_INOTIFY_H' "$tree/config.h" &&
			die "configure still uses inotify for the stat cache"
	fi
	say "building lighttpd"
	if ! make -C "$tree" -j 2 >"$work/build.log" 2>&1 ||
	   ! make -C "$tree/tests" -j 2 fcgi-responder scgi-responder >>"$work/build.log" 2>&1; then
		tail -30 "$work/build.log"
		die "building lighttpd failed (see $work/build.log)"
	fi
	tree_built
}

# run_suite NAME BACKEND [TEST...]: the suite's .t files (all, or those
# named) with the server on BACKEND; the failing ones go to WORKDIR/fail-NAME.
run_suite() {
	name=$1
	which=$2
	shift 2
	log=$work/suite-$name.log
	t=$tree/tests
	case $which in
	kqueue) handler=kqueue; cache=kqueue ;;
	epoll)  handler=linux-sysepoll; cache=simple ;;
	esac
	t0=$(date +%s)
	(
		cd "$t" || exit 1
		export srcdir=. top_builddir=..
		sh ./prepare.sh || exit 1
		# every server configuration includes tmp/bind*.conf
		printf 'server.event-handler = "%s"\nserver.stat-cache-engine = "%s"\n' \
			"$handler" "$cache" >tmp/bind-libkq.conf
		RUNTESTS="$*" timeout 600 perl ./run-tests.pl
		rc=$?
		sh ./cleanup.sh >/dev/null
		rm -f tmp/bind-libkq.conf
		exit $rc
	) >"$log" 2>&1
	rc=$?
	# Test::Harness's summary: "./request.t   (Wstat: 2048 (exited 8) ...)"
	sed -n 's/^\.\/\([^ ]*\)\.t[[:space:]]*(Wstat.*/\1/p' "$log" >"$work/fail-$name"
	note_failures "$name" $rc "$log" "the suite on $which"
	say "$name ($which): $(sed -n 's/^Files=\([0-9]*\), Tests=\([0-9]*\),.*/\1 files, \2 checks/p' "$log")," \
	    "$(wc -l <"$work/fail-$name") failing file(s), in $(( $(date +%s) - t0 )) s"
}

fetch_source lighttpd src/fdevent_impl.c
if ! perl -MTest::More -e 1 >/dev/null 2>&1; then
	is_root || skip "perl's Test::More (the suite's harness) is missing, and not root to install it"
	apt_install perl || die "cannot install perl (see $work/apt-install.log)"
fi
if [ ! -f /usr/include/zlib.h ] || [ ! -f /usr/include/bzlib.h ]; then
	if is_root; then
		apt_install zlib1g-dev libbz2-dev || say "cannot install zlib and bzip2 headers: their checks will fail on both handlers"
	fi
fi

build
exe=$tree/src/lighttpd
ldd "$exe" | grep -q libkq || die "lighttpd does not load libkq"
nm -D "$exe" | grep -q ' U kevent' || die "lighttpd does not call kevent()"

rm -f "$work"/fail-*
run_suite kqueue kqueue
judge "lighttpd's suite" "files"
