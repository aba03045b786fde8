/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_DISABLE on a READ knote whose event is already pending suppresses
 * it: the next collection returns nothing (FreeBSD's scan drops disabled
 * knotes it finds on the queue).  Checked for a knote that was never
 * retrieved and for a level knote that was just reported (and so is queued
 * again).  EV_ENABLE afterwards brings both back, showing the data is still
 * there and only the disable suppressed them.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	struct kevent ev[8];
	void *ua = (void *)(uintptr_t)0xa, *ub = (void *)(uintptr_t)0xb;

	t_pipe(a);
	t_pipe(b);
	t_change(kq, b[0], EVFILT_READ, EV_ADD, 0, 0, ub);
	t_write(b[1], "bb", 2);
	T_EQ(t_get(kq, ev, 8), 1);           /* b reported once, requeued */
	T_KEVENT(&ev[0], b[0], EVFILT_READ, 0, 0, 2, ub);

	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, ua);
	t_write(a[1], "a", 1);               /* a pending, never retrieved */

	t_change(kq, a[0], EVFILT_READ, EV_DISABLE, 0, 0, ua);
	t_change(kq, b[0], EVFILT_READ, EV_DISABLE, 0, 0, ub);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq);

	t_change(kq, a[0], EVFILT_READ, EV_ENABLE, 0, 0, ua);
	t_change(kq, b[0], EVFILT_READ, EV_ENABLE, 0, 0, ub);
	T_EQ(t_get(kq, ev, 8), 2);
	int ia = ev[0].ident == (uintptr_t)a[0] ? 0 : 1;
	T_KEVENT(&ev[ia], a[0], EVFILT_READ, 0, 0, 1, ua);
	T_KEVENT(&ev[1 - ia], b[0], EVFILT_READ, 0, 0, 2, ub);
	return 0;
}
