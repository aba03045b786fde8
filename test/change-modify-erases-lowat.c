/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * On FreeBSD every change reaching an existing fd knote replaces its
 * saved fflags and data, including a bare EV_DISABLE/EV_ENABLE; so a
 * NOTE_LOWAT of 4 is erased by an EV_DISABLE change carrying fflags 0, and
 * after EV_ENABLE a single byte is reported.  Taken from FreeBSD's source:
 * the kqueue_register modify path (no touch routine for fd filters).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	int ud;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, NOTE_LOWAT, 4, &ud);
	t_write(sp[1], "x", 1);
	/* Below the low-water mark: nothing yet. */
	T_NO_EVENTS(kq);

	t_change(kq, sp[0], EVFILT_READ, EV_DISABLE, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_change(kq, sp[0], EVFILT_READ, EV_ENABLE, 0, 0, &ud);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, &ud);
	return 0;
}
