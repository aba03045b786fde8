/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_USER receipts, taken from FreeBSD's source: the receipt echoed for a
 * successful *create* has fflags 0 and data 0, whatever the change carried
 * (user bits, control bits, NOTE_TRIGGER, data); the receipt for a
 * *modification* echoes the change's fflags with the control bits
 * (NOTE_FFCTRLMASK operation, NOTE_TRIGGER) masked off, and data 0 (the error
 * code).  FreeBSD kqueue_register create path zeroes kev->fflags/data;
 * filt_usertouch does kev->fflags &= NOTE_FFLAGSMASK on the change it echoes.
 * The knote's own record then reports the stored bits and the last data.
 */
#include "t.h"

static void receipt(int kq, uintptr_t id, unsigned short flags,
		    unsigned int fflags, int64_t data, void *ud,
		    unsigned int want_fflags)
{
	struct kevent ch, ev[2];

	EV_SET(&ch, id, EVFILT_USER, flags | EV_RECEIPT, fflags, data, ud);
	T_EQ(t_kevent1(kq, &ch, ev, 2), 1);
	T_KEVENT(&ev[0], id, EVFILT_USER, EV_ERROR, want_fflags, 0, ud);
}

int main(void)
{
	int kq = t_kqueue();
	int ud, ud2;

	/* Creates: fflags and data zeroed in the echo. */
	receipt(kq, 1, EV_ADD, 0x123, 9, &ud, 0);
	receipt(kq, 2, EV_ADD | EV_CLEAR,
		NOTE_FFCOPY | NOTE_TRIGGER | 0x123, 9, &ud, 0);
	T_NO_EVENTS(kq);

	/* Modification: user bits echoed, control bits and data not. */
	receipt(kq, 1, 0, NOTE_FFOR | NOTE_TRIGGER | 0x456, 7, &ud2, 0x456);
	T_GET1(kq, 1, EVFILT_USER, EV_RECEIPT, 0x577, 7, &ud2);

	receipt(kq, 1, EV_ADD, NOTE_FFCOPY | 0x0F000001, 3, &ud, 0x000001);
	receipt(kq, 1, EV_DISABLE, NOTE_FFAND | 0x0F0001, 0, &ud, 0x0F0001);
	T_NO_EVENTS(kq);
	receipt(kq, 1, EV_ENABLE, NOTE_TRIGGER, 0, &ud, 0);
	T_GET1(kq, 1, EVFILT_USER, EV_RECEIPT, 0x000001, 0, &ud);
	return 0;
}
