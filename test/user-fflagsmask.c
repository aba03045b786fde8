/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Only the low 24 bits (NOTE_FFLAGSMASK) of a change are user bits; the
 * upper 8 (NOTE_FFCTRLMASK operation, NOTE_TRIGGER and the unused control
 * bits) are never stored or reported: NOTE_FFCOPY|0x0F000001 (which includes
 * NOTE_TRIGGER) -> fflags 0x000001.  Likewise NOTE_FFOR with all of bits
 * 24..29 set adds only its low bits, and FFCOPY of the full mask reports
 * exactly 0x00FFFFFF.  FreeBSD event.h, filt_usertouch
 * (kev->fflags &= NOTE_FFLAGSMASK).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_FFCOPY | 0x0F000001, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x000001, 0, &ud);

	t_change(kq, 1, EVFILT_USER, 0, NOTE_FFOR | 0x3F000002, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x000003, 0, &ud);

	t_change(kq, 1, EVFILT_USER, 0,
		 NOTE_FFCOPY | NOTE_TRIGGER | NOTE_FFLAGSMASK, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, NOTE_FFLAGSMASK, 0, &ud);
	return 0;
}
