/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a pty master fires when the slave side writes; data = bytes
 * readable on the master (>= 1; the exact count is up to the line
 * discipline's output processing).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), m, s;
	struct kevent ev[8];
	void *ud = (void *)0x25;

	t_pty(&m, &s);

	t_change(kq, m, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(s, "abc", 3);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT_MIN(&ev[0], m, EVFILT_READ, 0, 0, 1, ud);
	return 0;
}
