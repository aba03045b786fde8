/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Closing the peer of a stream socketpair makes READ fire with EV_EOF
 * and data 0 (nothing buffered, no socket error so fflags 0).  The record
 * stays level-triggered: it is reported again on the next collection.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), sp[2];
	void *ud = (void *)0xe0f;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(close(sp[1]) == 0);
	T_WAIT1(kq, 2000, sp[0], EVFILT_READ, EV_EOF, 0, 0, ud);

	T_GET1(kq, sp[0], EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
