/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change with EV_CLEAR in its flags resets the triggered state of a
 * USER knote: a triggered level knote (no EV_CLEAR at creation, reported on
 * every get) gives nothing after the change flags = EV_CLEAR, although it was
 * queued.  The EV_CLEAR of the change is not stored (a knote's stored flags
 * never change): triggered again, the knote is level as before (flags 0,
 * reported twice).  FreeBSD filt_usertouch (EVENT_REGISTER with EV_CLEAR:
 * kn_hookid = 0); the queued knote is dropped at the scan's re-validation.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ev[8];

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);

	t_change(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(t_wait(kq, ev, 8, 50), 0);

	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);

	/* Also when the reset comes before the first retrieval. */
	t_change(kq, 2, EVFILT_USER, EV_ADD, 0, 0, &ud);
	t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	t_change(kq, 2, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	return 0;
}
