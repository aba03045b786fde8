/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_FORCEONESHOT on an existing, untriggered
 * USER knote marks it one-shot and activates it at once (FreeBSD
 * kqueue_register: kn_flags |= EV_ONESHOT; KNOTE_ACTIVATE); the one-shot
 * record is delivered without re-validation, carrying EV_ONESHOT (plus the
 * stored EV_CLEAR, if any) and the udata of the change, and the knote is
 * deleted at retrieval (EV_DELETE and triggers -> ENOENT).  On an absent
 * knote EV_FORCEONESHOT fails ENOENT.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	void *A = (void *)(uintptr_t)0xA0A0;
	void *B = (void *)(uintptr_t)0xB0B0;

	/* Level knote. */
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, A);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_FORCEONESHOT, 0, 0, A);
	T_GET1(kq, 1, EVFILT_USER, EV_ONESHOT, 0, 0, A);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, A), ENOENT);

	/* EV_CLEAR knote, udata replaced by the forcing change. */
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, A);
	t_change(kq, 2, EVFILT_USER, EV_FORCEONESHOT, 0, 0, B);
	T_GET1(kq, 2, EVFILT_USER, EV_CLEAR | EV_ONESHOT, 0, 0, B);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);

	/* Absent knote. */
	T_EQ(t_change_err(kq, 3, EVFILT_USER, EV_FORCEONESHOT, 0, 0, A), ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
