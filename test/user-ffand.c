/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_FFAND ands the change's user bits into the stored ones: a knote
 * created with fflags 0x000F and triggered with NOTE_FFAND|0x0003 reports
 * fflags 0x0003.  The control operation is applied by any change, also one
 * without NOTE_TRIGGER: the (level) knote then reports the new bits.
 * FreeBSD filt_usertouch (EVENT_REGISTER).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0x000F, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFAND | 0x0003, 0,
		 &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0003, 0, &ud);

	/* FFAND without a trigger, on the still triggered knote. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_FFAND | 0x0006, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0002, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_FFAND, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);
	return 0;
}
