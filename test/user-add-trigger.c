/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_TRIGGER given in the same change as the EV_ADD that creates
 * the knote does not trigger it (FreeBSD filt_userattach tests the output
 * fflags, which the create path has just zeroed), neither for an EV_CLEAR
 * knote nor for a level one; a separate trigger is needed and works.
 * The record after that separate (NOTE_FFNOP) trigger has fflags 0: libkq
 * reports the stored user bits with the control bits zero.  (FreeBSD's
 * create path stores the creating fflags unmasked in kn_sfflags, so FreeBSD
 * itself would report 0x01000000 here; libkq's documented contract keeps
 * only the user bits.)
 * NOTE_TRIGGER with EV_ADD on an *existing* knote is a modification and does
 * trigger (filt_usertouch).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ev[8];

	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, NOTE_TRIGGER, 0, &ud);
	t_change(kq, 2, EVFILT_USER, EV_ADD, NOTE_TRIGGER, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_wait(kq, ev, 8, 50), 0);

	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);

	/* Re-add of the existing level knote 2 with NOTE_TRIGGER triggers. */
	t_change(kq, 2, EVFILT_USER, EV_ADD, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 2, EVFILT_USER, 0, 0, 0, &ud);
	return 0;
}
