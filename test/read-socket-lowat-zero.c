/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ with NOTE_LOWAT and data 0 fires as soon as any data is there
 * (one byte -> {sp0, READ, 0, 0, 1, udata}), and the socket's own
 * SO_RCVLOWAT is not touched.  Before any data is written nothing is
 * asserted: FreeBSD's filt_soread compares kn_data >= 0 and may already
 * fire with data 0.
 */
#include "t.h"

static int rcvlowat(int fd)
{
	int v = -1;
	socklen_t len = sizeof v;

	T_ASSERT(getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, &len) == 0);
	return v;
}

int main(void)
{
	int kq = t_kqueue(), sp[2];
	void *ud = (void *)0x26;
	int before;

	t_socketpair(sp);
	before = rcvlowat(sp[0]);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, NOTE_LOWAT, 0, ud);
	T_EQ(rcvlowat(sp[0]), before);

	t_write(sp[1], "x", 1);
	T_WAIT1(kq, 2000, sp[0], EVFILT_READ, 0, 0, 1, ud);
	T_EQ(rcvlowat(sp[0]), before);
	return 0;
}
