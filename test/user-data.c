/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The reported data is the data of the latest change that reached the
 * knote: created (EV_CLEAR) with data 0 and triggered with data 42 -> record
 * data 42.  Any change replaces it, with or without NOTE_TRIGGER (a plain
 * modification, EV_DISABLE, EV_ENABLE), and a trigger with data 0 gives 0
 * even though the knote was created with data 9.  The full 64 bits are kept.
 * FreeBSD filt_usertouch (kn_sdata = kev->data on every EVENT_REGISTER;
 * EVENT_PROCESS reports kn_sdata).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 42, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 42, &ud);

	/* A later plain change (no trigger) replaces the data of a pending
	 * trigger. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 5, &ud);
	t_change(kq, 1, EVFILT_USER, 0, 0, 7, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 7, &ud);

	/* EV_DISABLE / EV_ENABLE changes carry data too. */
	t_change(kq, 1, EVFILT_USER, EV_DISABLE, NOTE_TRIGGER, 11, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_ENABLE, 0, 12, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 12, &ud);

	/* 64-bit and negative values. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, INT64_C(0x123456789abc),
		 &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, INT64_C(0x123456789abc), &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, -3, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, -3, &ud);

	/* Data given at creation is replaced by the trigger's 0. */
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 9, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
