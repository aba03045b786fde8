/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ADD {1, TIMER, 0, 0, 1000} succeeds (kevent returns 0, no record
 * even with room in the event list); DELETE succeeds, leaves no events, the
 * deleted timer never fires, and a second DELETE fails with ENOENT.
 * FreeBSD tests/sys/kqueue timer.c (add/del).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ch, ev[8];

	/* ADD: no record, even with room for one. */
	EV_SET(&ch, 1, EVFILT_TIMER, EV_ADD, 0, 1000, NULL);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	T_NO_EVENTS(kq);

	/* Same with an event list: no record for a successful ADD. */
	EV_SET(&ch, 2, EVFILT_TIMER, EV_ADD, 0, 1000, NULL);
	T_EQ(t_kevent1(kq, &ch, ev, 8), 0);

	/* DELETE: no events, and a second DELETE fails. */
	EV_SET(&ch, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 1, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	t_change(kq, 2, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);

	/* A deleted short timer never reports. */
	t_change(kq, 3, EVFILT_TIMER, EV_ADD, 0, 20, NULL);
	t_change(kq, 3, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_EQ(t_wait(kq, ev, 8, 150), 0);
	T_EQ(t_change_err(kq, 3, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
