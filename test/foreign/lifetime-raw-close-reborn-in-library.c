/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket closed by a raw system call (as libuv closes) leaves its knotes
 * with libkq.  A shared library built without -lkq then makes a socketpair
 * that gets the number: its socketpair() is libkq's too, so the birth
 * releases the old knotes as FreeBSD's close would have.  EV_DELETE of
 * them fails with ENOENT, no record carries the old udata, and the new
 * socket is watched afresh.
 */
#include "births.h"

int main(void)
{
	int kq = t_kqueue(), sp[2], q[2];
	void *uold = (void *)0x1, *unew = (void *)0x2;

	t_socketpair(sp);
	int x = sp[0];
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, uold);
	t_change(kq, x, EVFILT_WRITE, EV_ADD, 0, 0, uold);
	t_write(sp[1], "old", 3);
	T_EQ(foreign_raw_close(x), 0);
	T_EQ(foreign_raw_close(sp[1]), 0);

	T_EQ(foreign_socketpair(AF_UNIX, SOCK_STREAM, 0, q), 0);
	T_EQ(q[0], x);
	t_change_fails(kq, x, EVFILT_READ, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, x, EVFILT_WRITE, EV_DELETE, NULL, ENOENT);
	T_NO_EVENTS(kq);
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, unew);
	T_NO_EVENTS(kq);
	t_write(q[1], "hello", 5);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 5, unew);
	T_EQ(close(q[0]), 0);
	T_EQ(close(q[1]), 0);
	return 0;
}
