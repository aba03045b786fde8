/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_FFOR ors the change's user bits into the stored ones: created
 * with 0x0001, triggered with NOTE_FFOR|0x0010 -> fflags 0x0011.  A further
 * FFOR without a trigger adds bits to the (level, still triggered) knote.
 * FreeBSD filt_usertouch.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0x0001, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFOR | 0x0010, 0,
		 &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0011, 0, &ud);

	t_change(kq, 1, EVFILT_USER, 0, NOTE_FFOR | 0x800000, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x800011, 0, &ud);
	return 0;
}
