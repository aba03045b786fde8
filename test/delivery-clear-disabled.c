/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ|EV_CLEAR knote that is disabled when data arrives reports that
 * data when it is enabled again (EV_ENABLE re-evaluates the filter in
 * FreeBSD's kqueue_register), once (EV_CLEAR).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	void *ud = (void *)(uintptr_t)0x307;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, ud);
	t_change(kq, p[0], EVFILT_READ, EV_DISABLE, 0, 0, ud);
	t_write(p[1], "ab", 2);
	T_NO_EVENTS(kq);
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, ud);
	T_GET1(kq, p[0], EVFILT_READ, EV_CLEAR, 0, 2, ud);
	T_NO_EVENTS(kq);
	return 0;
}
