/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A USER knote without EV_CLEAR stays triggered (level): after one
 * trigger every collection reports it again, with the same record, until it
 * is deleted.  Another trigger while it is queued does not add a second
 * record.  FreeBSD filt_user returns the triggered state (kn_hookid), which
 * only EV_CLEAR resets; the scan re-queues a non-CLEAR knote.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, &ud);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);

	for (int i = 0; i < 3; i++) {
		T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);
	}
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &ud);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, &ud);
	T_WAIT1(kq, 1000, 1, EVFILT_USER, 0, 0, 0, &ud);

	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
