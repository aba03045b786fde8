/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change with EV_KEEPUDATA on an existing knote leaves its udata as
 * stored, whatever udata the change carries (here NULL): with EV_ENABLE, with
 * EV_DISABLE then EV_ENABLE, and alone.  Expressed with a READ knote on a pipe
 * (the same holds for a USER knote).  EV_KEEPUDATA exists in FreeBSD >= 12.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int a;

	t_pipe(p);
	t_write(p[1], "x", 1);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, &a);

	t_change(kq, p[0], EVFILT_READ, EV_ENABLE | EV_KEEPUDATA, 0, 0, NULL);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &a);

	t_change(kq, p[0], EVFILT_READ, EV_DISABLE | EV_KEEPUDATA, 0, 0, NULL);
	T_NO_EVENTS(kq);
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE | EV_KEEPUDATA, 0, 0, NULL);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &a);

	t_change(kq, p[0], EVFILT_READ, EV_KEEPUDATA, 0, 0, NULL);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &a);
	return 0;
}
