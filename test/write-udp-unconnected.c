/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on an unconnected (connectionless) UDP socket fires at once:
 * {s, WRITE, 0, 0, free space > 0, udata}.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), s;
	struct kevent ev[8];
	void *ud = (void *)0x607;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	T_ASSERT(s >= 0);
	t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	T_KEVENT_MIN(&ev[0], s, EVFILT_WRITE, 0, 0, 1, ud);
	return 0;
}
