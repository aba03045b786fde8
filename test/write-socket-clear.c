/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE|EV_CLEAR on a stream socketpair end: the first collection
 * returns the record (flags EV_CLEAR, data > 0), the second returns nothing
 * although space is still free (edge).  When the send space changes (we send
 * bytes and the peer reads them, freeing space) it fires once more.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), sp[2];
	struct kevent ev[8];
	void *ud = (void *)0x613;
	char buf[16];

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, EV_CLEAR, 0, 1, ud);
	T_NO_EVENTS(kq);

	t_write(sp[0], "0123456789", 10);
	T_EQ(read(sp[1], buf, sizeof buf), 10);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, EV_CLEAR, 0, 1, ud);
	T_NO_EVENTS(kq);
	return 0;
}
