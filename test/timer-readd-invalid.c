/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A re-ADD of an existing timer with invalid data (-1) does not fail
 * the kevent() call (returns 0): FreeBSD's filt_timertouch cannot return an
 * error, so it stops the old timer, marks the knote EV_ERROR with data
 * EINVAL, and the knote is reported from the queue like an event:
 * {id, TIMER, EV_CLEAR|EV_ERROR, 0, EINVAL, new udata} (EV_CLEAR is the
 * forced flag of the relative timer; udata is replaced before the touch).
 * Afterwards the old 100 ms timer never fires again, and the knote still
 * exists (DELETE succeeds).  The library mirrors this.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ch, ev[8];
	int u1, u2;

	t_change(kq, 30, EVFILT_TIMER, EV_ADD, 0, 100, &u1);
	EV_SET(&ch, 30, EVFILT_TIMER, EV_ADD, 0, -1, &u2);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);

	T_WAIT1(kq, 1000, 30, EVFILT_TIMER, EV_CLEAR | EV_ERROR, 0, EINVAL, &u2);
	T_NO_EVENTS(kq);
	/* The old period (100 ms) would have fired 3 times by now. */
	T_EQ(t_wait(kq, ev, 8, 350), 0);

	t_change(kq, 30, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_EQ(t_change_err(kq, 30, EVFILT_TIMER, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	return 0;
}
