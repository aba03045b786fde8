/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_RECEIPT given at creation is stored with the knote and reappears
 * in its event records; a later change without EV_RECEIPT produces no
 * receipt (receipts follow the change's flags, not the stored ones).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[4];

	t_pipe(p);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD | EV_RECEIPT, 0, 0, &ud);
	T_EQ(t_kevent1(kq, &ch, ev, 4), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, EV_ERROR, 0, 0, &ud);

	/* A modify without EV_RECEIPT on an idle knote: no record at all. */
	EV_SET(&ch, p[0], EVFILT_READ, EV_ENABLE, 0, 0, &ud);
	T_EQ(t_kevent1(kq, &ch, ev, 4), 0);

	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, EV_RECEIPT, 0, 1, &ud);
	return 0;
}
