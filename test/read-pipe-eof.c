/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Closing the only writer of an empty pipe makes READ on the read end
 * fire with EV_EOF and data 0.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0x13;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(close(p[1]) == 0);
	T_WAIT1(kq, 2000, p[0], EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
