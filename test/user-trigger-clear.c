/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A USER knote created with EV_CLEAR and triggered by a separate change
 * with fflags NOTE_TRIGGER wakes a waiting kevent() with
 * {1, USER, EV_CLEAR, 0, 0, udata}: the control bits (NOTE_TRIGGER) are not
 * echoed, EV_ADD is not returned.  Retrieval resets the triggered state, so
 * the next get returns nothing until the next trigger.
 * FreeBSD tests/sys/kqueue/libkqueue/user.c event_wait; filt_usertouch.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);

	/* "wait": bounded, but the record must be there. */
	T_WAIT1(kq, 2000, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);

	/* A new trigger gives a new record, once. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
