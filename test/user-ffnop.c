/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_FFNOP (control bits 0) keeps the stored user bits whatever low
 * bits the change carries: created with 0x0005, triggered with
 * NOTE_TRIGGER|0x00F0 -> fflags 0x0005.  This holds for every change that
 * reaches the existing knote, also a re-EV_ADD carrying other fflags (USER
 * has a touch routine, so the generic "replace sfflags" of a modify does not
 * apply).  FreeBSD filt_usertouch (NOTE_FFNOP: break).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0x0005, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFNOP | 0x00F0, 0,
		 &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0005, 0, &ud);

	/* Re-add with different low bits, control NOP: stored bits kept. */
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0x0007, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0005, 0, &ud);

	/* Same for EV_DISABLE / EV_ENABLE changes carrying low bits. */
	t_change(kq, 1, EVFILT_USER, EV_DISABLE, 0x0100, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_ENABLE, 0x0200, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0005, 0, &ud);
	return 0;
}
