/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a stream socket reports the bytes available
 * ({sp0, READ, 0, 0, 1, udata} after one byte arrives), and after the byte
 * has been read the still-queued knote is re-validated at retrieval and
 * nothing is reported.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), sp[2];
	void *ud = (void *)0x5eed;
	char c;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(sp[1], "x", 1);
	T_WAIT1(kq, 2000, sp[0], EVFILT_READ, 0, 0, 1, ud);

	/* The knote is level-triggered and requeued, but re-validated. */
	T_EQ(read(sp[0], &c, 1), 1);
	T_NO_EVENTS(kq);
	return 0;
}
