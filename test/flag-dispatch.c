/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ|EV_DISPATCH: one record (EV_DISPATCH in the flags), then the
 * knote is disabled and silent although the byte is unread; EV_ENABLE
 * re-evaluates the filter, so the still-true condition is reported again at
 * once, after which the knote is disabled again (FreeBSD read.c dispatch
 * test; kqueue_register evaluates the filter on enable).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	void *ud = (void *)(uintptr_t)0xe11;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, ud);

	/* One record, then the knote is disabled: nothing more. */
	t_write(sp[1], "x", 1);
	T_GET1(kq, sp[0], EVFILT_READ, EV_DISPATCH, 0, 1, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq);

	/* EV_ENABLE: the unread byte is reported again. */
	t_change(kq, sp[0], EVFILT_READ, EV_ENABLE, 0, 0, ud);
	T_GET1(kq, sp[0], EVFILT_READ, EV_DISPATCH, 0, 1, ud);
	T_NO_EVENTS(kq);
	return 0;
}
