/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One descriptor watched in two kqueues (READ in kq1, READ and WRITE in
 * kq2), with events pending in both: close() removes the knotes from both
 * (FreeBSD knote_fdclose walks every kqueue of the process).  No record in
 * either, EV_DELETE -> EBADF in both; a knote on another descriptor in each
 * kqueue keeps working; the reused number can be watched afresh.
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int sp[2], o[2];
	void *u1 = (void *)0x601, *u2 = (void *)0x602, *uo = (void *)0x603;
	struct kevent ev[8];

	t_socketpair(sp);
	t_pipe(o);
	t_change(kq1, sp[0], EVFILT_READ, EV_ADD, 0, 0, u1);
	t_change(kq2, sp[0], EVFILT_READ, EV_ADD, 0, 0, u2);
	t_change(kq2, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, u2);
	t_change(kq1, o[0], EVFILT_READ, EV_ADD, 0, 0, uo);
	t_change(kq2, o[0], EVFILT_READ, EV_ADD, 0, 0, uo);
	t_write(sp[1], "ab", 2);
	T_GET1(kq1, sp[0], EVFILT_READ, 0, 0, 2, u1);
	T_EQ(t_get(kq2, ev, 8), 2);

	int x = sp[0];
	T_EQ(close(x), 0);
	T_NO_EVENTS(kq1);
	T_NO_EVENTS(kq2);
	t_change_fails(kq1, x, EVFILT_READ, EV_DELETE, NULL, EBADF);
	t_change_fails(kq2, x, EVFILT_READ, EV_DELETE, NULL, EBADF);
	t_change_fails(kq2, x, EVFILT_WRITE, EV_DELETE, NULL, EBADF);

	t_write(o[1], "o", 1);
	T_GET1(kq1, o[0], EVFILT_READ, 0, 0, 1, uo);
	T_GET1(kq2, o[0], EVFILT_READ, 0, 0, 1, uo);
	char c;
	T_EQ(read(o[0], &c, 1), 1);

	/* The number, reused, is watched afresh in kq2 only. */
	int p[2];
	t_pipe(p);
	if (p[0] != x) {
		int m = fcntl(p[0], F_DUPFD, x);
		T_EQ(m, x);
		T_EQ(close(p[0]), 0);
		p[0] = m;
	}
	t_change(kq2, x, EVFILT_READ, EV_ADD, 0, 0, u2);
	t_write(p[1], "xyz", 3);
	T_NO_EVENTS(kq1);
	T_GET1(kq2, x, EVFILT_READ, 0, 0, 3, u2);
	return 0;
}
