/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A UDP socket connected to a closed port on 127.0.0.1 sends
 * one datagram; the ICMP port-unreachable that comes back leaves a pending
 * socket error, which makes READ fire (FreeBSD filt_soread: so_error ->
 * fire) without EV_EOF: {s, READ, 0, 0, 0, udata}.  The program's own
 * getsockopt(SO_ERROR) then returns ECONNREFUSED (the library must not
 * swallow it), and once the program has consumed the error nothing fires.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), tmp, s, err = -1;
	struct sockaddr_in sin;
	socklen_t len;
	void *ud = (void *)0x22;

	/* Find a free port: bind, note it, close. */
	tmp = t_inet_socket(SOCK_DGRAM, 0, &sin);
	T_ASSERT(close(tmp) == 0);

	s = socket(AF_INET, SOCK_DGRAM, 0);
	T_ASSERT(s >= 0);
	T_ASSERT(connect(s, (struct sockaddr *)&sin, sizeof sin) == 0);
	t_change(kq, s, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_EQ(send(s, "x", 1, 0), 1);
	T_WAIT1(kq, 1000, s, EVFILT_READ, 0, 0, 0, ud);

	len = sizeof err;
	T_ASSERT(getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
	T_EQ(err, ECONNREFUSED);
	T_NO_EVENTS(kq);
	return 0;
}
