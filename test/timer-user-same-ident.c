/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * <5, EVFILT_USER> and <5, EVFILT_TIMER> are independent knotes (the
 * key is ident AND filter): triggering USER 5 reports only the USER record,
 * the (long, 60 s) TIMER 5 reports nothing; deleting one leaves the other;
 * a firing TIMER 5 does not trigger USER 5.
 * Skipped if the library does not know EVFILT_USER yet (ADD -> EINVAL).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8];
	int uu, tu;

	int err = t_change_err(kq, 5, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &uu);
	if (err == EINVAL)
		T_SKIP("EVFILT_USER not available (ADD -> EINVAL)");
	T_EQ(err, 0);
	t_change(kq, 5, EVFILT_TIMER, EV_ADD, 0, 60000, &tu);
	T_NO_EVENTS(kq);

	t_change(kq, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, &uu);
	int n = t_get(kq, ev, 8);
	for (int i = 0; i < n; i++)
		t_print_kevent("  got", &ev[i]);
	T_EQ(n, 1);
	T_KEVENT(&ev[0], 5, EVFILT_USER, EV_CLEAR, 0, 0, &uu);
	T_NO_EVENTS(kq);

	/* Deleting the timer leaves the USER knote, and vice versa. */
	t_change(kq, 5, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	t_change(kq, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, &uu);
	T_GET1(kq, 5, EVFILT_USER, EV_CLEAR, 0, 0, &uu);

	t_change(kq, 5, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 10, &tu);
	T_WAIT1(kq, 1000, 5, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, &tu);
	T_NO_EVENTS(kq);

	t_change(kq, 5, EVFILT_TIMER, EV_ADD, 0, 60000, &tu);
	t_change(kq, 5, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_EQ(t_change_err(kq, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL), ENOENT);
	t_change(kq, 5, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
