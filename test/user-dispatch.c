/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * USER|EV_DISPATCH: trigger; get -> 1 (flags
 * EV_DISPATCH); trigger; get -> 0 (disabled by the delivery); EV_ENABLE;
 * get -> 1.  With EV_DISPATCH|EV_CLEAR the delivery also resets the
 * triggered state, which shows that the trigger made while the knote was
 * disabled is what EV_ENABLE reports: with it, one record; without it,
 * none.  Disabled knotes keep their state: FreeBSD
 * filt_usertouch sets kn_hookid regardless of KN_DISABLED and EV_ENABLE
 * re-evaluates the filter; libkqueue's test "dispatch_durable".
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ev[8];

	/* Trigger, get, trigger while disabled, enable, get. */
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_DISPATCH, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_DISPATCH, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_EQ(t_get(kq, ev, 8), 0);
	t_change(kq, 1, EVFILT_USER, EV_ENABLE, 0, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_DISPATCH, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);

	/* DISPATCH|CLEAR, trigger while disabled: reported on enable. */
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFOR | 0x4, 6, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 2, EVFILT_USER, EV_ENABLE, 0, 6, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_DISPATCH | EV_CLEAR, 0x4, 6, &ud);
	T_NO_EVENTS(kq);

	/* DISPATCH|CLEAR, no trigger while disabled: nothing on enable. */
	t_change(kq, 3, EVFILT_USER, EV_ADD | EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 3, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 3, EVFILT_USER, EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 3, EVFILT_USER, EV_ENABLE, 0, 0, &ud);
	T_NO_EVENTS(kq);
	/* Enabled again: the next trigger is delivered once more. */
	t_change(kq, 3, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 3, EVFILT_USER, EV_DISPATCH | EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
