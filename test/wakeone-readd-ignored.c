/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_WAKEONE (a libkq extension) is fixed when the knote is created (epoll
 * allows EPOLLEXCLUSIVE only at EPOLL_CTL_ADD).  Library decision
 * (documented): on an existing knote the flag is ignored, not an error.
 * Checked: EV_ADD with EV_WAKEONE on an existing READ (pipe) or WRITE
 * (socketpair) knote created without it succeeds (kevent() returns 0; with
 * EV_RECEIPT the receipt has data 0), takes the new udata, and the knote works
 * as before: level, records without EV_WAKEONE in flags.  Conversely a knote
 * created with EV_WAKEONE|EV_CLEAR keeps EV_WAKEONE (and EV_CLEAR) in its
 * records after a re-add without them.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2], sp[2], q[2];
	void *u1 = (void *)0x1601, *u2 = (void *)0x1602, *u3 = (void *)0x1603;
	struct kevent ch, ev[4];
	struct timespec z = { 0, 0 };
	char buf[8];

	t_pipe(p);
	t_socketpair(sp);
	t_pipe(q);

	/* READ created plain, re-added with EV_WAKEONE. */
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, u1);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD | EV_WAKEONE, 0, 0, u2);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD | EV_WAKEONE | EV_RECEIPT, 0, 0,
	       u2);
	T_EQ(kevent(kq, &ch, 1, ev, 4, &z), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, EV_ERROR, 0, 0, u2);
	t_write(p[1], "ab", 2);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 2, u2);
	T_EQ(t_get(kq, ev, 4), 1);   /* still level */
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 2, u2);
	T_EQ(read(p[0], buf, sizeof buf), 2);
	T_NO_EVENTS(kq);
	t_write(p[1], "c", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, u2);
	t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* WRITE created plain, re-added with EV_WAKEONE. */
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, u1);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD | EV_WAKEONE, 0, 0, u2);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, u2);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT_MIN(&ev[0], sp[0], EVFILT_WRITE, 0, 0, 1, u2);
	t_change(kq, sp[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);

	/* Created with EV_WAKEONE|EV_CLEAR, re-added plain: both kept. */
	t_change(kq, q[0], EVFILT_READ, EV_ADD | EV_WAKEONE | EV_CLEAR, 0, 0,
		 u1);
	t_change(kq, q[0], EVFILT_READ, EV_ADD, 0, 0, u3);
	t_write(q[1], "x", 1);
	T_GET1(kq, q[0], EVFILT_READ, EV_WAKEONE | EV_CLEAR, 0, 1, u3);
	T_NO_EVENTS(kq);
	t_write(q[1], "y", 1);
	T_GET1(kq, q[0], EVFILT_READ, EV_WAKEONE | EV_CLEAR, 0, 2, u3);
	T_NO_EVENTS(kq);
	return 0;
}
