/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checked with a READ knote (user-disable does it with USER knotes): data that
 * arrives while the knote is disabled produces no record; EV_ENABLE then
 * reports it with data = everything buffered meanwhile (FreeBSD: a disabled
 * knote stays attached to its source, EV_ENABLE re-evaluates the filter).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	void *ud = (void *)(uintptr_t)0xe03;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	/* Disabled, then data arrives: nothing. */
	t_change(kq, p[0], EVFILT_READ, EV_DISABLE, 0, 0, ud);
	t_write(p[1], "x", 1);
	T_NO_EVENTS(kq);
	t_write(p[1], "yz", 2);
	T_NO_EVENTS(kq);

	/* Enable: one record carrying all the bytes written meanwhile. */
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, ud);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, ud);

	/* Level knote, enabled again: reported again until drained. */
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, ud);
	char buf[8];
	T_EQ(read(p[0], buf, sizeof buf), 3);
	T_NO_EVENTS(kq);
	return 0;
}
