/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a TCP socket that is not connected does not fire (FreeBSD
 * filt_sowrite: PR_CONNREQUIRED and not SS_ISCONNECTED -> 0), neither fresh
 * nor bound; Linux epoll reports such a socket as OUT|HUP, which the library
 * must suppress.  Once the socket connects, the same knote fires with
 * data > 0 and no EV_EOF.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), s;
	struct sockaddr_in sin, me;
	struct kevent ev[8];
	void *ud = (void *)0x608;

	s = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(s >= 0);
	t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_loopback(&me);
	T_ASSERT(bind(s, (struct sockaddr *)&me, sizeof me) == 0);
	T_NO_EVENTS(kq);

	(void)t_inet_socket(SOCK_STREAM, 4, &sin);   /* listener, kept open */
	T_NO_EVENTS(kq);

	T_ASSERT(connect(s, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT_MIN(&ev[0], s, EVFILT_WRITE, 0, 0, 1, ud);
	return 0;
}
