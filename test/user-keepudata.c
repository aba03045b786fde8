/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * USER knotes: changes carrying EV_KEEPUDATA leave the
 * stored udata alone: knote created with udata A, then
 * EV_DISABLE|EV_KEEPUDATA, a trigger with EV_KEEPUDATA (ignored: disabled),
 * EV_ENABLE|EV_KEEPUDATA and a trigger with EV_KEEPUDATA, all with udata
 * NULL -> the record carries A.  A trigger without EV_KEEPUDATA replaces it
 * (udata NULL in the record).  FreeBSD tests/sys/kqueue/libkqueue/user.c
 * disable_and_enable_keepudata, event_wait_keepudata; kqueue_register.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	void *A = (void *)(uintptr_t)0xA0A0;
	void *B = (void *)(uintptr_t)0xB0B0;

	/* EV_KEEPUDATA on disable, trigger, enable: udata A kept. */
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, A);
	t_change(kq, 1, EVFILT_USER, EV_DISABLE | EV_KEEPUDATA, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_KEEPUDATA, NOTE_TRIGGER, 0, NULL);
	T_NO_EVENTS(kq);
	t_change(kq, 1, EVFILT_USER, EV_ENABLE | EV_KEEPUDATA, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_KEEPUDATA, NOTE_TRIGGER, 0, NULL);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, A);

	/* A trigger without EV_KEEPUDATA overwrites udata. */
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	T_GET1(kq, 1, EVFILT_USER, 0, 0, 0, NULL);

	/* EV_KEEPUDATA on an EV_CLEAR knote. */
	t_change(kq, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, B);
	t_change(kq, 2, EVFILT_USER, EV_KEEPUDATA, NOTE_TRIGGER, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_GET1(kq, 2, EVFILT_USER, EV_CLEAR, 0, 0, B);
	T_NO_EVENTS(kq);

	/* EV_ADD|EV_KEEPUDATA is invalid, also on an existing knote. */
	T_EQ(t_change_err(kq, 2, EVFILT_USER, EV_ADD | EV_KEEPUDATA, 0, 0, A),
	     EINVAL);
	t_change(kq, 2, EVFILT_USER, EV_KEEPUDATA, NOTE_TRIGGER, 0, NULL);
	T_GET1(kq, 2, EVFILT_USER, EV_CLEAR, 0, 0, B);
	return 0;
}
