/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a pipe's write end; when the reader closes the knote fires
 * with EV_EOF and data 0 (FreeBSD filt_pipewrite).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[8];
	void *ud = (void *)0x604;

	t_pipe(p);
	t_change(kq, p[1], EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_EQ(ev[0].flags, 0);

	T_ASSERT(close(p[0]) == 0);
	T_WAIT1(kq, 2000, p[1], EVFILT_WRITE, EV_EOF, 0, 0, ud);
	return 0;
}
