/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket closed by a raw system call (libuv closes so) leaves its knotes
 * with libkq; the next socket() or accept4() given the number releases them,
 * as the close would have on FreeBSD: EV_DELETE of the old knote on the new
 * socket fails with ENOENT, no record carries the old udata, and the new
 * socket is watched afresh.
 */
#include "t.h"

static void check_reborn(int kq, int x, int newfd, int peer)
{
	void *unew = (void *)0x2;
	T_EQ(newfd, x);
	t_change_fails(kq, x, EVFILT_READ, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, x, EVFILT_WRITE, EV_DELETE, NULL, ENOENT);
	T_NO_EVENTS(kq);
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, unew);
	T_NO_EVENTS(kq);
	t_write(peer, "hello", 5);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 5, unew);
}

int main(void)
{
	int kq = t_kqueue();
	void *uold = (void *)0x1;
	int sp[2], q[2];

	/* socketpair(), then socketpair() again at the number */
	t_socketpair(sp);
	int x = sp[0];
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, uold);
	t_change(kq, x, EVFILT_WRITE, EV_ADD, 0, 0, uold);
	t_write(sp[1], "old", 3);
	t_raw_close(x);
	t_raw_close(sp[1]);
	t_socketpair(q);
	check_reborn(kq, x, q[0], q[1]);
	T_EQ(close(q[0]), 0);
	T_EQ(close(q[1]), 0);

	/* a TCP connection accepted at the number */
	int c, s;
	t_tcp_pair(&c, &s);
	struct sockaddr_in sin;
	int lsn = t_inet_socket(SOCK_STREAM, 4, &sin);
	int c2 = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(c2 >= 0);
	x = s;
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, uold);
	t_write(c, "old", 3);
	t_raw_close(x);
	T_EQ(connect(c2, (struct sockaddr *)&sin, sizeof sin), 0);
	int a = accept4(lsn, NULL, NULL, SOCK_CLOEXEC);
	if (a != x)
		T_FAIL("the accepted socket is %d, not the lowest free number %d", a, x);
	check_reborn(kq, x, a, c2);
	return 0;
}
