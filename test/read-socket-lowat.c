/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ with NOTE_LOWAT, data 4: three buffered bytes do not fire, the
 * fourth does ({r, READ, 0, 0, 4, udata}; the input fflags are not echoed).
 * The low-water mark belongs to the knote: the socket's own SO_RCVLOWAT is
 * unchanged by the registration and by the deliveries, and a plain READ
 * knote on the same socket in another kqueue fires at 3 bytes already.
 * Checked on an AF_UNIX socketpair and on a TCP connection over 127.0.0.1.
 */
#include "t.h"

static int rcvlowat(int fd)
{
	int v = -1;
	socklen_t len = sizeof v;

	T_ASSERT(getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, &len) == 0);
	return v;
}

static void check(int r, int w)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	void *ud = (void *)0x10a7, *ud2 = (void *)0x20a7;
	int before = rcvlowat(r);

	t_change(kq, r, EVFILT_READ, EV_ADD, NOTE_LOWAT, 4, ud);
	T_EQ(rcvlowat(r), before);
	t_change(kq2, r, EVFILT_READ, EV_ADD, 0, 0, ud2);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);

	t_write(w, "abc", 3);
	t_wait_inq(r, 3);
	T_NO_EVENTS(kq);
	T_WAIT1(kq2, 2000, r, EVFILT_READ, 0, 0, 3, ud2);
	T_EQ(rcvlowat(r), before);

	t_write(w, "d", 1);
	t_wait_inq(r, 4);
	T_WAIT1(kq, 2000, r, EVFILT_READ, 0, 0, 4, ud);
	T_EQ(rcvlowat(r), before);

	T_ASSERT(close(kq) == 0);
	T_ASSERT(close(kq2) == 0);
}

int main(void)
{
	int sp[2], r, w;

	t_socketpair(sp);
	check(sp[0], sp[1]);
	t_tcp_pair(&w, &r);
	check(r, w);
	return 0;
}
