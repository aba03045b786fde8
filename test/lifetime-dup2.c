/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dup2(other, X) and dup3(other, X, flags) close X first, so X's knotes
 * (READ and WRITE) are gone: no record from the old or the new file, and
 * EV_DELETE {X, READ} fails with ENOENT (X is open, without a knote).  This
 * holds also when "other" is a dup of X's own file (FreeBSD still closes
 * X: the knote dies).  dup2(X, X) closes nothing and keeps the
 * knote; a dup2() that fails (bad old descriptor) closes nothing either.
 */
#include "t.h"

enum how { DUP2, DUP3, DUP2_SAME_FILE };

static void replaced(enum how how)
{
	int kq = t_kqueue(), a[2], b[2];
	void *u = (void *)0x401, *uw = (void *)0x402;
	struct kevent ev[8];

	t_socketpair(a);
	t_pipe(b);
	int x = a[0];
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, u);
	t_change(kq, x, EVFILT_WRITE, EV_ADD, 0, 0, uw);
	t_write(a[1], "a", 1);
	T_EQ(t_get(kq, ev, 8), 2);

	int src, keep = -1;
	if (how == DUP2_SAME_FILE) {
		src = dup(x);
		T_ASSERT(src >= 0);
		keep = src;
	} else {
		src = b[0];
		t_write(b[1], "bb", 2);
	}
	if (how == DUP3)
		T_EQ(dup3(src, x, O_CLOEXEC), x);
	else
		T_EQ(dup2(src, x), x);

	T_NO_EVENTS(kq);
	if (how == DUP2_SAME_FILE)
		t_write(a[1], "c", 1);   /* a's socket lives on as x */
	t_write(b[1], "d", 1);
	T_NO_EVENTS(kq);
	t_change_fails(kq, x, EVFILT_READ, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, x, EVFILT_WRITE, EV_DELETE, NULL, ENOENT);

	T_EQ(close(x), 0);
	if (keep >= 0)
		T_EQ(close(keep), 0);
	T_EQ(close(a[1]), 0);
	T_EQ(close(b[0]), 0);
	T_EQ(close(b[1]), 0);
	T_EQ(close(kq), 0);
}

static void not_closed(void)
{
	int kq = t_kqueue(), p[2], q[2];
	void *u = (void *)0x403;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, u);

	/* dup2(X, X): X stays as it is. */
	T_EQ(dup2(p[0], p[0]), p[0]);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, u);

	/* A failing dup2 (old descriptor not open) does not close X. */
	t_pipe(q);
	int bad = q[0];
	T_EQ(close(q[0]), 0);
	T_ERRNO(dup2(bad, p[0]), EBADF);
	T_ERRNO(dup3(bad, p[0], 0), EBADF);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, u);
	T_EQ(close(q[1]), 0);
	T_EQ(close(kq), 0);
}

int main(void)
{
	replaced(DUP2);
	replaced(DUP3);
	replaced(DUP2_SAME_FILE);
	not_closed();
	return 0;
}
