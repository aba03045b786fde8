/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ on a kqueue, with USER knotes: kq2 holds 3 triggered (level)
 * USER knotes; kq1 holds an EVFILT_READ knote on kq2: get on kq1 returns one
 * record {kq2, READ, 0, 0, 3, udata} (FreeBSD filt_kqueue: data = kq_count).
 * After one of the three is deleted the count is 2; once all are gone kq1
 * reports nothing.
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int ud;

	for (uintptr_t i = 1; i <= 3; i++) {
		t_change(kq2, i, EVFILT_USER, EV_ADD, 0, 0, NULL);
		t_change(kq2, i, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	}
	t_change(kq1, kq2, EVFILT_READ, EV_ADD, 0, 0, &ud);
	T_GET1(kq1, kq2, EVFILT_READ, 0, 0, 3, &ud);

	t_change(kq2, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_GET1(kq1, kq2, EVFILT_READ, 0, 0, 2, &ud);

	t_change(kq2, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	t_change(kq2, 3, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq1);
	return 0;
}
