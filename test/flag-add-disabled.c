/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ knote added with EV_ADD|EV_DISABLE on a socket that
 * already holds data reports nothing; EV_ENABLE then re-evaluates the filter
 * and the record is there at once with data = bytes buffered (FreeBSD
 * tests/sys/kqueue/libkqueue/read.c, disable-and-enable test).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	void *ud = (void *)(uintptr_t)0x5151;

	t_socketpair(sp);
	t_write(sp[1], "abc", 3);

	/* Created disabled, condition already true: nothing reported. */
	t_change(kq, sp[0], EVFILT_READ, EV_ADD | EV_DISABLE, 0, 0, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq);

	/* Enabling reports the pending data without any new write. */
	t_change(kq, sp[0], EVFILT_READ, EV_ENABLE, 0, 0, ud);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, ud);
	return 0;
}
