/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After an EV_DISPATCH knote delivered its record it is disabled, not
 * deleted: EV_DELETE on it succeeds (FreeBSD read.c dispatch test); after
 * that it is really gone (second EV_DELETE and EV_ENABLE fail ENOENT).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	void *ud = (void *)(uintptr_t)0xe13;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, ud);
	t_write(sp[1], "x", 1);
	T_GET1(kq, sp[0], EVFILT_READ, EV_DISPATCH, 0, 1, ud);
	T_NO_EVENTS(kq);

	T_EQ(t_change_err(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), 0);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, sp[0], EVFILT_READ, EV_ENABLE, 0, 0, ud), ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
