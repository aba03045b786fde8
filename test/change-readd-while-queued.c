/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Re-adding a knote whose event is already pending (not yet collected)
 * does not reset it and does not queue it twice: one record, carrying the
 * new udata: a modification never un-triggers an already-queued event.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2], p[2];
	int a, b;

	/* Level knote on a socket. */
	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &a);
	t_write(sp[1], "xy", 2);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &b);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 2, &b);
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* EV_CLEAR knote on a pipe: one record, then nothing. */
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &a);
	t_write(p[1], "x", 1);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, &b);
	T_GET1(kq, p[0], EVFILT_READ, EV_CLEAR, 0, 1, &b);
	T_NO_EVENTS(kq);
	return 0;
}
