/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ|EV_DISPATCH|EV_CLEAR: one record, then silence; EV_ENABLE
 * re-evaluates the filter (FreeBSD kqueue_register), so the byte that is
 * still buffered is reported again although EV_CLEAR reset the state at the
 * first retrieval.  After that second record the knote is disabled again.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	void *ud = (void *)(uintptr_t)0xe14;
	const unsigned short fl = EV_DISPATCH | EV_CLEAR;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD | fl, 0, 0, ud);
	t_write(sp[1], "x", 1);
	T_GET1(kq, sp[0], EVFILT_READ, fl, 0, 1, ud);
	T_NO_EVENTS(kq);

	t_change(kq, sp[0], EVFILT_READ, EV_ENABLE, 0, 0, ud);
	T_GET1(kq, sp[0], EVFILT_READ, fl, 0, 1, ud);
	T_NO_EVENTS(kq);
	return 0;
}
