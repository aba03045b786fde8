/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_FFCOPY replaces the stored user bits: created with 0x00FF,
 * triggered with NOTE_FFCOPY|0x0100 -> fflags 0x0100.  FFCOPY with no bits
 * clears them.  FreeBSD filt_usertouch.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0x00FF, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFCOPY | 0x0100, 0,
		 &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0x0100, 0, &ud);

	t_change(kq, 1, EVFILT_USER, 0, NOTE_FFCOPY, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);
	return 0;
}
