/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD on an existing knote is a modify that replaces udata: the
 * record after the re-add carries the new udata.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	int a, b;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &a);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &b);
	t_write(sp[1], "x", 1);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, &b);

	/* And back again, to NULL, while the knote is ready. */
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
