/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ on a kqueue descriptor.  An empty inner kqueue does
 * not fire; with three READ knotes ready in it (three pipes holding a byte)
 * the outer record is {inner, READ, 0, 0, 3, udata} (FreeBSD filt_kqueue:
 * data = kq_count).  After two pipes are drained and the inner queue is
 * scanned (dropping the stale knotes), data is 1; when all are drained and
 * scanned, the outer knote no longer fires.
 */
#include "t.h"

int main(void)
{
	int outer = t_kqueue(), inner = t_kqueue(), p[3][2];
	struct kevent ev[8];
	void *ud = (void *)0x6b;
	char c;

	for (int i = 0; i < 3; i++) {
		t_pipe(p[i]);
		t_change(inner, p[i][0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	}
	t_change(outer, inner, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(outer);

	for (int i = 0; i < 3; i++)
		t_write(p[i][1], "x", 1);
	T_WAIT1(outer, 2000, inner, EVFILT_READ, 0, 0, 3, ud);

	/* Drain two pipes; scanning the inner kqueue drops their knotes. */
	T_EQ(read(p[0][0], &c, 1), 1);
	T_EQ(read(p[1][0], &c, 1), 1);
	T_EQ(t_get(inner, ev, 8), 1);
	T_EQ(ev[0].ident, p[2][0]);
	T_GET1(outer, inner, EVFILT_READ, 0, 0, 1, ud);

	/* Drain the last one and scan: nothing pending any more. */
	T_EQ(read(p[2][0], &c, 1), 1);
	T_EQ(t_get(inner, ev, 8), 0);
	T_NO_EVENTS(outer);
	return 0;
}
