/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The flags chosen at creation (EV_CLEAR here) are kept when the knote is
 * re-added without them, and a knote created level-triggered stays level when
 * re-added with EV_CLEAR.  Taken from FreeBSD's source: the kqueue_register
 * modify path leaves kn_flags alone.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	int ua, ub;
	char buf[4];

	/* Created EV_CLEAR, re-added without: still edge. */
	t_pipe(a);
	t_change(kq, a[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &ua);
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	t_write(a[1], "x", 1);
	t_write(a[1], "y", 1);
	T_GET1(kq, a[0], EVFILT_READ, EV_CLEAR, 0, 2, &ua);
	T_EQ(read(a[0], buf, 1), 1);
	T_NO_EVENTS(kq);
	t_change(kq, a[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* Created level, re-added with EV_CLEAR: still level. */
	t_pipe(b);
	t_change(kq, b[0], EVFILT_READ, EV_ADD, 0, 0, &ub);
	t_change(kq, b[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &ub);
	t_write(b[1], "x", 1);
	T_GET1(kq, b[0], EVFILT_READ, 0, 0, 1, &ub);
	T_GET1(kq, b[0], EVFILT_READ, 0, 0, 1, &ub);
	return 0;
}
