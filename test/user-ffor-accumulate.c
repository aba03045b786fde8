/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two triggers of an EV_CLEAR knote, NOTE_FFOR 0x1 then NOTE_FFOR 0x2,
 * before retrieval give one record with fflags 0x3.
 * The user bits are the knote's stored state: retrieval with EV_CLEAR resets
 * the triggered state but not the stored bits, so the next plain trigger
 * (NOTE_FFNOP) reports 0x3 again.  FreeBSD filt_usertouch EVENT_PROCESS
 * reports kn_sfflags and on EV_CLEAR resets only kn_hookid, kn_data and
 * kn_fflags (macOS filt_userprocess does the same): the fflags reported are
 * the stored user bits.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFOR | 0x1, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFOR | 0x2, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0x3, 0, &ud);
	T_NO_EVENTS(kq);

	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0x3, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
