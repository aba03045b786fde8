/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue nested in another one (a READ knote on it) tells the outer one
 * of a knote that an EV_ENABLE makes pending again.  The inner kqueue
 * holds a WRITE knote with EV_DISPATCH on a writable socket: its record
 * disables it; the outer kqueue, asked again, has nothing (the inner one
 * has nothing pending); then EV_ENABLE in the inner kqueue makes the
 * knote pending at once (the socket is writable), and a thread waiting
 * on the outer kqueue must get the inner kqueue's record:
 * {inner, READ, 0, 0, 1, udata}, and the inner kqueue then the WRITE
 * record.  FreeBSD queues the knote at the enable and wakes the outer
 * kqueue.  Checked in rounds, with a 1 s wait on the outer kqueue each
 * time, with the WRITE knote alone, beside an EV_CLEAR READ knote on the
 * same socket, and beside a READ knote with EV_DISPATCH that was delivered
 * and stays disabled over unread data.
 */
#include "t.h"

static void *const UO = (void *)0x0e7;
static void *const UW = (void *)0x3717e;

/* read: 0 none, 1 an EV_CLEAR READ knote, 2 a READ knote with
 * EV_DISPATCH on unread data, delivered once and left disabled */
static void run(int read)
{
	int sv[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	int inner = t_kqueue(), outer = t_kqueue();
	if (read == 1)
		t_change(inner, sv[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL);
	if (read == 2) {
		t_write(sv[1], "abc", 3);
		t_change(inner, sv[0], EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, NULL);
		T_GET1(inner, sv[0], EVFILT_READ, EV_DISPATCH, 0, 3, NULL);
	}
	t_change(inner, sv[0], EVFILT_WRITE, EV_ADD | EV_DISPATCH, 0, 0, UW);
	t_change(outer, inner, EVFILT_READ, EV_ADD, 0, 0, UO);

	for (int round = 0; round < 5; round++) {
		T_WAIT1(outer, 1000, inner, EVFILT_READ, 0, 0, 1, UO);
		struct kevent ev[4];
		int n = t_get(inner, ev, 4);
		if (n != 1)
			T_FAIL("round %d: inner kqueue gave %d records, expected the WRITE one",
			       round, n);
		T_ASSERT(ev[0].filter == EVFILT_WRITE && ev[0].udata == UW &&
			 ev[0].flags == EV_DISPATCH && ev[0].data > 0);
		/* dispatched: nothing pending (asking the outer kqueue looks
		 * into the inner one, whose epoll set still said ready) */
		T_NO_EVENTS(outer);
		t_change(inner, sv[0], EVFILT_WRITE, EV_ENABLE, 0, 0, UW);
	}
	T_WAIT1(outer, 1000, inner, EVFILT_READ, 0, 0, 1, UO);
	close(outer);
	close(inner);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	run(0);
	run(1);
	run(2);
	return 0;
}
