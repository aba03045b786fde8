/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a connected stream socketpair end fires at once with
 * data = free space in the send buffer (> 0), flags 0, fflags 0; it is
 * level-triggered, so it fires again on the next collection.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), sp[2];
	struct kevent ev[8];
	void *ud = (void *)0x601;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, ud);
	return 0;
}
