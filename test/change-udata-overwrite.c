/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every change reaching an existing knote replaces its udata unless
 * EV_KEEPUDATA is given, also one with no action bits (flags 0) or a bare
 * EV_ENABLE/EV_DISABLE: a change carrying udata NULL leaves NULL.  Expressed
 * with a READ knote on a pipe (the same holds for a USER knote).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int a, b, c;

	t_pipe(p);
	t_write(p[1], "x", 1);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, &a);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &a);

	/* flags 0, udata NULL */
	t_change(kq, p[0], EVFILT_READ, 0, 0, 0, NULL);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);

	/* EV_ENABLE, udata b */
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, &b);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &b);

	/* EV_DISABLE with udata c, then EV_ENABLE with udata NULL */
	t_change(kq, p[0], EVFILT_READ, EV_DISABLE, 0, 0, &c);
	T_NO_EVENTS(kq);
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, NULL);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
