/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_DELETE of a READ knote whose event is pending drops the event:
 * the next collection returns nothing, and the knote is really gone (a second
 * EV_DELETE fails ENOENT, new data produces nothing).  Checked for a knote
 * never retrieved and for a level knote that was just reported (queued
 * again).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	void *ua = (void *)(uintptr_t)0xa, *ub = (void *)(uintptr_t)0xb;

	t_pipe(a);
	t_pipe(b);
	t_change(kq, b[0], EVFILT_READ, EV_ADD, 0, 0, ub);
	t_write(b[1], "bb", 2);
	T_GET1(kq, b[0], EVFILT_READ, 0, 0, 2, ub);

	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, ua);
	t_write(a[1], "a", 1);

	t_change(kq, a[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	t_change(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);

	T_EQ(t_change_err(kq, a[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	t_write(a[1], "a", 1);
	t_write(b[1], "b", 1);
	T_NO_EVENTS(kq);
	return 0;
}
