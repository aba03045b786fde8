/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on an AF_UNIX stream listener (read-tcp-listen does TCP): data = number
 * of connections waiting in accept(), as on FreeBSD (filt_solisten is the same
 * for every protocol).  Two clients connect -> data 2; accept one -> data 1;
 * accept the other -> no events.  (Linux FIONREAD fails on UNIX listeners; the
 * library must find the backlog length another way.)
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), l, c1, c2, a1, a2;
	struct sockaddr_un sun;
	void *ud = (void *)0x0115;

	l = t_unix_listener(16, &sun);

	t_change(kq, l, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	c1 = socket(AF_UNIX, SOCK_STREAM, 0);
	c2 = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(c1 >= 0 && c2 >= 0);
	T_ASSERT(connect(c1, (struct sockaddr *)&sun, sizeof sun) == 0);
	T_ASSERT(connect(c2, (struct sockaddr *)&sun, sizeof sun) == 0);

	T_WAIT1(kq, 2000, l, EVFILT_READ, 0, 0, 2, ud);

	a1 = accept(l, NULL, NULL);
	T_ASSERT(a1 >= 0);
	T_GET1(kq, l, EVFILT_READ, 0, 0, 1, ud);

	a2 = accept(l, NULL, NULL);
	T_ASSERT(a2 >= 0);
	T_NO_EVENTS(kq);
	return 0;
}
