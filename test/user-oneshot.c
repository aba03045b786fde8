/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An EV_ONESHOT USER knote (ident 2) is reported once after a trigger,
 * with flags EV_ONESHOT, then deleted: the next get is empty, another trigger
 * fails ENOENT and EV_DELETE fails ENOENT.  Untriggered, it is not reported.
 * FreeBSD tests/sys/kqueue/libkqueue/user.c oneshot.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_ONESHOT, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, EV_ONESHOT, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud), ENOENT);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);
	return 0;
}
