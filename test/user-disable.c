/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A disabled USER knote is not reported when
 * triggered; after EV_ENABLE and a trigger one get returns one record for
 * it.  For a level knote (ident 1) that get holds exactly one record; for an
 * EV_CLEAR knote (ident 2) the trigger made while disabled and the one after
 * enabling coalesce into that single record and nothing follows.  A knote
 * created with EV_ADD|EV_DISABLE (ident 3) behaves the same.
 * FreeBSD tests/sys/kqueue/libkqueue/user.c disable_and_enable.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ev[8];

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 3, EVFILT_USER, EV_ADD | EV_CLEAR | EV_DISABLE, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, EV_DISABLE, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, EV_DISABLE, 0, 0, &ud);

	/* Disabled: triggers give nothing. */
	for (uintptr_t i = 1; i <= 3; i++)
		t_change(kq, i, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_wait(kq, ev, 8, 50), 0);

	/* EV_ENABLE, then a trigger. */
	t_change(kq, 1, EVFILT_USER, EV_ENABLE, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);

	t_change(kq, 2, EVFILT_USER, EV_ENABLE, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);

	t_change(kq, 3, EVFILT_USER, EV_ENABLE, 0, 0, &ud);
	t_change(kq, 3, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 3, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
