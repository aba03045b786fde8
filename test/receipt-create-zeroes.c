/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The receipt for a successful *create* has fflags 0 and data 0 even
 * when the change carried fflags NOTE_LOWAT and data 9 (FreeBSD zeroes them
 * in the change before copying it out); the receipt for a successful
 * *modify* echoes fflags as given, data 0 (the error code).  Taken from
 * FreeBSD's source: the kqueue_register create path.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	int ud, ud2;
	struct kevent ch, ev[2];

	t_socketpair(sp);
	EV_SET(&ch, sp[0], EVFILT_READ, EV_ADD | EV_RECEIPT, NOTE_LOWAT, 9,
	       &ud);
	ch.ext[2] = 5;
	ch.ext[3] = 6;
	T_EQ(t_kevent1(kq, &ch, ev, 2), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, EV_ERROR, 0, 0, &ud);
	T_EQ(ev[0].ext[2], 5);
	T_EQ(ev[0].ext[3], 6);

	/* Modify of the existing knote: fflags echoed. */
	EV_SET(&ch, sp[0], EVFILT_READ, EV_ADD | EV_RECEIPT, NOTE_LOWAT, 5,
	       &ud2);
	T_EQ(t_kevent1(kq, &ch, ev, 2), 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, EV_ERROR, NOTE_LOWAT, 0, &ud2);
	return 0;
}
