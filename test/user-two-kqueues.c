/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same USER ident in two kqueues names two independent knotes (a
 * knote's identity is its kqueue, ident and filter): a trigger in kq1 is
 * reported by kq1 only, with kq1's udata; a trigger in kq2 by kq2 only;
 * deleting the knote in kq1 leaves kq2's.  libkqueue's test "multi_kqueue".
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int u1, u2;

	t_change(kq1, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &u1);
	t_change(kq2, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &u2);

	t_change(kq1, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &u1);
	T_GET1(kq1, 1, EVFILT_USER, EV_CLEAR, 0, 0, &u1);
	T_NO_EVENTS(kq2);

	t_change(kq2, 1, EVFILT_USER, 0, NOTE_TRIGGER | NOTE_FFCOPY | 0x7, 3,
		 &u2);
	T_GET1(kq2, 1, EVFILT_USER, EV_CLEAR, 0x7, 3, &u2);
	T_NO_EVENTS(kq1);

	t_change(kq1, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	t_change(kq2, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &u2);
	T_GET1(kq2, 1, EVFILT_USER, EV_CLEAR, 0x7, 0, &u2);
	T_NO_EVENTS(kq1);
	T_EQ(t_change_err(kq1, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, &u1), ENOENT);
	T_NO_EVENTS(kq2);
	return 0;
}
