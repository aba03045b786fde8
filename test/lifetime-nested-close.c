/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kq2 has a READ knote on fd X with data pending, so kq2 is readable;
 * kq1 watches kq2 with EVFILT_READ and reports {kq2, READ, 0, 0, 1}.  After
 * close(X) the knote and its queued event are gone, kq2's queued count
 * drops to 0 (FreeBSD knote_drop, filt_kqueue), so kq1 reports nothing and
 * kq2 reports nothing.  When another knote of kq2 becomes ready, kq1 reports
 * kq2 again with data 1 (the dropped knote is not counted).
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int sp[2], o[2];
	void *u = (void *)0x801, *uk = (void *)0x802, *uo = (void *)0x803;

	t_socketpair(sp);
	t_pipe(o);
	t_change(kq2, sp[0], EVFILT_READ, EV_ADD, 0, 0, u);
	t_change(kq2, o[0], EVFILT_READ, EV_ADD, 0, 0, uo);
	t_change(kq1, kq2, EVFILT_READ, EV_ADD, 0, 0, uk);
	T_NO_EVENTS(kq1);

	t_write(sp[1], "abc", 3);
	T_WAIT1(kq1, 2000, kq2, EVFILT_READ, 0, 0, 1, uk);
	/* Level: still there, kq2 not drained. */
	T_GET1(kq1, kq2, EVFILT_READ, 0, 0, 1, uk);

	T_EQ(close(sp[0]), 0);
	T_NO_EVENTS(kq1);
	T_NO_EVENTS(kq2);
	T_NO_EVENTS(kq1);

	t_write(o[1], "o", 1);
	T_WAIT1(kq1, 2000, kq2, EVFILT_READ, 0, 0, 1, uk);
	T_GET1(kq2, o[0], EVFILT_READ, 0, 0, 1, uo);
	return 0;
}
