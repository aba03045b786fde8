/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of a USER knote creates it untriggered (no events);
 * EV_DELETE removes it (still no events, and a second EV_DELETE fails
 * ENOENT).  A deleted knote cannot be triggered any more: a trigger change
 * without EV_ADD fails ENOENT (FreeBSD kqueue_register: no knote, no EV_ADD).
 * FreeBSD tests/sys/kqueue/libkqueue/user.c add_and_delete.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	/* EV_ADD: created untriggered. */
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);

	/* EV_DELETE: removed; a second delete and a trigger fail. */
	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL), ENOENT);
	T_NO_EVENTS(kq);

	/* The same ident can be created again afterwards. */
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
