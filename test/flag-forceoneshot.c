/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Taken from FreeBSD's source, checked with READ knotes (user-forceoneshot
 * does it with USER knotes): EV_FORCEONESHOT on an existing
 * knote marks it one-shot and activates it at once (FreeBSD kqueue_register:
 * kn_flags |= EV_ONESHOT; KNOTE_ACTIVATE).  The record comes with EV_ONESHOT
 * in its flags and the knote is deleted at retrieval (EV_DELETE -> ENOENT).
 * (a) knote with data pending: data = bytes buffered;
 * (b) knote whose condition is false: FreeBSD activates it anyway and, since
 *     one-shot knotes are not re-validated at retrieval, returns the record
 *     with the data the filter last computed (0).
 * EV_FORCEONESHOT on an absent knote (no EV_ADD) fails ENOENT.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	void *ua = (void *)(uintptr_t)0xa, *ub = (void *)(uintptr_t)0xb;

	t_pipe(a);
	t_pipe(b);

	/* (a) */
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, ua);
	t_write(a[1], "xy", 2);
	t_change(kq, a[0], EVFILT_READ, EV_FORCEONESHOT, 0, 0, ua);
	T_GET1(kq, a[0], EVFILT_READ, EV_ONESHOT, 0, 2, ua);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, a[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);

	/* (b) */
	t_change(kq, b[0], EVFILT_READ, EV_ADD, 0, 0, ub);
	T_NO_EVENTS(kq);
	t_change(kq, b[0], EVFILT_READ, EV_FORCEONESHOT, 0, 0, ub);
	T_GET1(kq, b[0], EVFILT_READ, EV_ONESHOT, 0, 0, ub);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	t_write(b[1], "z", 1);
	T_NO_EVENTS(kq);

	/* Absent knote. */
	T_EQ(t_change_err(kq, b[0], EVFILT_READ, EV_FORCEONESHOT, 0, 0, ub),
	     ENOENT);
	return 0;
}
