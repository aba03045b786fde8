/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers of the lifetime-close-* tests: the close of a socket libkq saw
 * made (src/births.c, src/fdtab.c "Births").  A close-on-exec socket is
 * "private" until something may have copied it; closing a private socket
 * frees its file, and the kernel removes its epoll entries, so libkq skips
 * the EPOLL_CTL_DEL.  If a copy does exist the file lives on, and only the
 * DEL removes the entry: one left behind is an orphan, keyed by the closed
 * number, that reports for a file the program no longer names.
 *
 * The kqueue's descriptor is its epoll set, so /proc/self/fdinfo/<kq>
 * lists its entries ("tfd: <fd> events: ... data: ..."); READ knotes have
 * their entries there (WRITE ones may live in a second set).
 */
#ifndef KQ_TEST_BIRTHS_H
#define KQ_TEST_BIRTHS_H

#include "../t.h"
#include "foreign.h"

#include <stdbool.h>
#include <sys/wait.h>

/* A child holding copies (fork, posix_spawn): killed and reaped by
 * birth_child_kill(), also at exit, so a failing test leaves no process
 * holding the output ctest waits on. */
static pid_t birth_child = -1;

static inline void birth_child_kill(void)
{
	if (birth_child > 0) {
		kill(birth_child, SIGKILL);
		waitpid(birth_child, NULL, 0);
	}
	birth_child = -1;
}

static inline void birth_child_set(pid_t pid)
{
	static bool registered;
	if (!registered && atexit(birth_child_kill) == 0)
		registered = true;
	birth_child = pid;
}

enum { BIRTH_ACCEPT4, BIRTH_SOCKETPAIR,
       /* or'ed in: the READ knote is deleted before the copy, so its entry
	* is parked (filter/fd.c), kept with no knote, when the close comes */
       BIRTH_PARKED = 0x10 };
/* who calls what, for birth_copied_then_closed(): the program or the
 * helper library */
enum { BIRTH_PROGRAM = 0, BIRTH_LIB_MAKES = 1, BIRTH_LIB_CLOSES = 2 };

struct birth {
	int fd;         /* the private socket */
	int peer;       /* its other end */
	int listener;   /* accept4 only (else -1): kept open, so that the
			 * number fd is the lowest free one once closed */
	const char *what;
};

/* Makes a private socket: accept4(SOCK_CLOEXEC) from a 127.0.0.1 listener,
 * or one end of socketpair(SOCK_CLOEXEC); made by the helper library
 * (built without -lkq) if in_library. */
static inline void birth_make(int how, bool in_library, struct birth *b)
{
	b->listener = -1;
	if ((how & ~BIRTH_PARKED) == BIRTH_SOCKETPAIR) {
		int sv[2], type = SOCK_STREAM | SOCK_CLOEXEC;
		int r = in_library ? foreign_socketpair(AF_UNIX, type, 0, sv)
				   : socketpair(AF_UNIX, type, 0, sv);
		if (r != 0)
			T_FAIL("socketpair(SOCK_CLOEXEC): %s", strerror(errno));
		b->fd = sv[0];
		b->peer = sv[1];
		b->what = in_library ? "socketpair in library" : "socketpair";
		return;
	}
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		T_FAIL("socket(AF_INET, SOCK_STREAM): %s", strerror(errno));
	t_loopback(&sin);
	if (bind(l, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(l, 4) != 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) != 0)
		T_FAIL("listener on 127.0.0.1: %s", strerror(errno));
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&sin, sizeof sin) != 0)
		T_FAIL("connect(127.0.0.1:%u): %s", ntohs(sin.sin_port), strerror(errno));
	int a = in_library ? foreign_accept4(l, SOCK_CLOEXEC)
			   : accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (a < 0)
		T_FAIL("accept4(SOCK_CLOEXEC): %s", strerror(errno));
	b->fd = a;
	b->peer = c;
	b->listener = l;
	b->what = in_library ? "accept4 in library" : "accept4";
}

/* How many entries of kq's epoll set are for descriptor number fd
 * (/proc/self/fdinfo/<kq>); skips the test if the kernel lists none. */
static inline int birth_entries(int kq, int fd)
{
	char path[64], buf[16384];
	size_t len = 0;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", kq);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		T_SKIP("open(%s): %s", path, strerror(errno));
	while (len < sizeof buf - 1 && (n = read(f, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	close(f);
	buf[len] = 0;

	int count = 0;
	bool any = false;
	for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		int t;
		if (sscanf(line, "tfd: %d", &t) == 1) {
			any = true;
			count += t == fd;
		}
	}
	if (!any)
		T_SKIP("%s lists no epoll entries (no \"tfd:\" lines)", path);
	return count;
}

/* The READ knote's entry is in the kqueue's epoll set (what the later
 * checks look for is there to be found). */
static inline void birth_expect_entry(int kq, int fd)
{
	int n = birth_entries(kq, fd);
	if (n != 1)
		T_FAIL("kqueue %d's epoll set has %d entries for descriptor %d, "
		       "expected 1 (its READ knote's)", kq, n, fd);
}

/* After close(fd): no entry for the number is left in the set. */
static inline void birth_expect_no_entry(int kq, int fd, const char *what)
{
	int n = birth_entries(kq, fd);
	if (n != 0)
		T_FAIL("%s: after close(%d), kqueue %d's epoll set still has %d "
		       "entr%s for it (an orphan: the file lives on in a copy and "
		       "libkq skipped its EPOLL_CTL_DEL)", what, fd, kq, n,
		       n == 1 ? "y" : "ies");
}

/* After close(fd) of a socket whose file lives on in a copy: no entry,
 * and data arriving on the file wakes nothing (no record for the closed
 * ident, no spinning kevent()). */
static inline void birth_expect_gone(int kq, int fd, int peer, const char *what)
{
	birth_expect_no_entry(kq, fd, what);
	t_write(peer, "zz", 2);
	t_wait_nothing_asleep(kq, 300);
	birth_expect_no_entry(kq, fd, what);
}

/* A new socket given the number fd (closed) is watched afresh: the old
 * knote is gone, the new one has the set's only entry for the number and
 * reports its own data exactly.  Then `old_peer` (the peer of the closed
 * socket's surviving copy, or -1) writes: nothing may be reported. */
static inline void birth_expect_reuse(int kq, int fd, int old_peer)
{
	struct kevent ev[4];
	char buf[8];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		T_FAIL("socketpair: %s", strerror(errno));
	if (sv[1] == fd) {
		int t = sv[0];
		sv[0] = sv[1];
		sv[1] = t;
	}
	if (sv[0] != fd) {   /* some lower number was free: move it there */
		T_EQ(dup2(sv[0], fd), fd);
		T_ASSERT(close(sv[0]) == 0);
		sv[0] = fd;
	}
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)0x2222);
	birth_expect_entry(kq, fd);
	T_NO_EVENTS(kq);
	t_write(sv[1], "abc", 3);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 3, (void *)0x2222);
	T_EQ(read(fd, buf, sizeof buf), 3);
	if (old_peer >= 0) {
		t_write(old_peer, "q", 1);
		t_wait_nothing_asleep(kq, 200);
	}
	T_NO_EVENTS(kq);

	/* a later close of a copied socket still makes its DEL (a skipped
	 * one must not leave the kqueue skipping them) */
	int c = dup(fd);
	T_ASSERT(c >= 0);
	T_ASSERT(close(fd) == 0);
	birth_expect_no_entry(kq, fd, "a socket at the reused number, dup()ed");
	T_ASSERT(close(c) == 0);
	T_ASSERT(close(sv[1]) == 0);
}

static inline void birth_free(struct birth *b)
{
	T_ASSERT(close(b->peer) == 0);
	if (b->listener >= 0)
		T_ASSERT(close(b->listener) == 0);
}

/* A private socket made by `how` (BIRTH_ACCEPT4, BIRTH_SOCKETPAIR), with a
 * READ knote and a report already taken, closed with close(): no entry is
 * left for the number, nothing is reported for it, EV_DELETE says EBADF,
 * and the next socket given the number is watched afresh and reports
 * exactly.  parked: the knote is deleted before the close, its entry kept
 * with no knote (filter/fd.c, parking), which the close must let go of as
 * well. */
static inline void birth_private_close_check(int how, bool parked)
{
	int kq = t_kqueue();
	struct kevent ev[4];
	struct birth b;

	birth_make(how, false, &b);
	t_change(kq, b.fd, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1111);
	birth_expect_entry(kq, b.fd);
	t_write(b.peer, "xy", 2);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], b.fd, EVFILT_READ, 0, 0, 2, (void *)0x1111);
	if (parked)
		t_change(kq, b.fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);

	int fd = b.fd;
	T_ASSERT(close(fd) == 0);
	birth_expect_no_entry(kq, fd, b.what);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);
	birth_expect_reuse(kq, fd, -1);

	birth_free(&b);
	T_ASSERT(close(kq) == 0);
}

/*
 * The common course of the copied-then-closed tests: a private socket gets
 * a READ knote, `copy` copies it one way (returns a descriptor to close at
 * the end, or -1), and close(fd) -- or the library's close -- must remove
 * the entry, since the file lives on.
 */
static inline void birth_copied_then_closed(int how, int lib,
	int (*copy)(struct birth *b), const char *how_copied)
{
	int kq = t_kqueue();
	struct kevent ev[4];
	struct birth b;
	char what[96];

	birth_make(how, (lib & BIRTH_LIB_MAKES) != 0, &b);
	snprintf(what, sizeof what, "%s, then %s%s", b.what, how_copied,
		 (how & BIRTH_PARKED) ? " (knote deleted first)" : "");
	t_change(kq, b.fd, EVFILT_READ, EV_ADD, 0, 0, (void *)0x1111);
	birth_expect_entry(kq, b.fd);
	t_write(b.peer, "x", 1);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], b.fd, EVFILT_READ, 0, 0, 1, (void *)0x1111);
	if (how & BIRTH_PARKED) {
		char byte;
		T_EQ(read(b.fd, &byte, 1), 1);
		t_change(kq, b.fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	}

	int keep = copy(&b);
	int fd = b.fd;
	T_ASSERT(((lib & BIRTH_LIB_CLOSES) ? foreign_close(fd) : close(fd)) == 0);
	birth_expect_gone(kq, fd, b.peer, what);
	birth_expect_reuse(kq, fd, b.peer);

	if (keep >= 0)
		T_ASSERT(close(keep) == 0);
	birth_free(&b);
	T_ASSERT(close(kq) == 0);
}

#endif
