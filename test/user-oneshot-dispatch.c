/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * USER|EV_ONESHOT|EV_DISPATCH, triggered: get -> one
 * record with flags EV_ONESHOT|EV_DISPATCH; one-shot wins, so the knote is
 * deleted rather than disabled: EV_DELETE -> ENOENT, and a trigger or
 * EV_ENABLE -> ENOENT.  FreeBSD kqueue_scan tests EV_ONESHOT before
 * EV_DISPATCH.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_ONESHOT | EV_DISPATCH, 0, 0,
		 &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_ONESHOT | EV_DISPATCH, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, EV_ENABLE, 0, 0, &ud), ENOENT);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud), ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
