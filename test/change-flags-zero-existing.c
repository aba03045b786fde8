/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change with no action bits (flags 0) on an existing knote is
 * accepted as a modify and re-evaluates the filter at once: an EV_CLEAR knote
 * whose edge was consumed while data is still buffered is queued again.
 * FreeBSD kqueue_register evaluates f_event after every modify.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[4];

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &ud);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);

	/* Accepted: no record, no error, with or without an event list. */
	EV_SET(&ch, p[0], EVFILT_READ, 0, 0, 0, &ud);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	/* ... and the byte still buffered is reported again. */
	T_GET1(kq, p[0], EVFILT_READ, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);

	/* Change and collection in one call. */
	T_EQ(t_kevent1(kq, &ch, ev, 4), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
