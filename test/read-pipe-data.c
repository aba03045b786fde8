/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a pipe's read end reports the exact number of buffered bytes:
 * 3 after writing 3, and the current amount (5) after 2 more (coalesced).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0x12;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(p[1], "abc", 3);
	T_WAIT1(kq, 2000, p[0], EVFILT_READ, 0, 0, 3, ud);

	t_write(p[1], "de", 2);
	T_WAIT1(kq, 2000, p[0], EVFILT_READ, 0, 0, 5, ud);
	return 0;
}
