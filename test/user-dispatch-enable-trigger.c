/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ENABLE and NOTE_TRIGGER in one change re-arm an EV_DISPATCH knote
 * that its delivery disabled, and trigger it: the record is delivered.
 * (a) ADD|DISPATCH: trigger; get -> record (flags EV_DISPATCH); get -> none
 *     (disabled); ENABLE+TRIGGER -> record.
 * (b) ADD|DISPATCH|CLEAR: the retrieval also reset the triggered state, so a
 *     bare EV_ENABLE reports nothing, while ENABLE+TRIGGER reports at once.
 * FreeBSD kqueue_register applies EV_ENABLE before the touch routine, then
 * evaluates the filter; libkqueue's test "enable_and_trigger_atomic".
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	/* (a) */
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_DISPATCH, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_DISPATCH, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_ENABLE, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_DISPATCH, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);

	/* (b) */
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 2, EVFILT_USER, EV_ENABLE, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 2, EVFILT_USER, EV_DISABLE, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, EV_ENABLE, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
