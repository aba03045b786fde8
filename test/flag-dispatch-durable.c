/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checked with READ knotes (user-dispatch does it with USER knotes): an
 * EV_DISPATCH knote that was disabled by its delivery keeps watching its
 * source: data written while it is disabled gives no record, and EV_ENABLE
 * reports it.
 * (a) byte left unread, more written while disabled: enable -> data 3;
 * (b) byte read first, new bytes written while disabled: enable -> data 2,
 *     so the record comes only from what arrived while disabled.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	char c;
	void *ua = (void *)(uintptr_t)0xa, *ub = (void *)(uintptr_t)0xb;

	t_pipe(a);
	t_pipe(b);

	/* (a) */
	t_change(kq, a[0], EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, ua);
	t_write(a[1], "x", 1);
	T_GET1(kq, a[0], EVFILT_READ, EV_DISPATCH, 0, 1, ua);
	t_write(a[1], "yz", 2);
	T_NO_EVENTS(kq);
	t_change(kq, a[0], EVFILT_READ, EV_ENABLE, 0, 0, ua);
	T_GET1(kq, a[0], EVFILT_READ, EV_DISPATCH, 0, 3, ua);
	T_NO_EVENTS(kq);

	/* (b) */
	t_change(kq, b[0], EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, ub);
	t_write(b[1], "x", 1);
	T_GET1(kq, b[0], EVFILT_READ, EV_DISPATCH, 0, 1, ub);
	T_EQ(read(b[0], &c, 1), 1);
	T_NO_EVENTS(kq);
	t_write(b[1], "yz", 2);
	T_NO_EVENTS(kq);
	t_change(kq, b[0], EVFILT_READ, EV_ENABLE, 0, 0, ub);
	T_GET1(kq, b[0], EVFILT_READ, EV_DISPATCH, 0, 2, ub);
	T_NO_EVENTS(kq);
	return 0;
}
