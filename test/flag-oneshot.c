/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ|EV_ONESHOT: one record (EV_ONESHOT in the returned flags), then
 * nothing even though the byte is still unread and more arrives; the knote
 * was deleted at retrieval, so EV_DELETE fails ENOENT (FreeBSD read.c
 * oneshot test).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	void *ud = (void *)(uintptr_t)0xe07;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(sp[1], "x", 1);
	T_GET1(kq, sp[0], EVFILT_READ, EV_ONESHOT, 0, 1, ud);
	T_NO_EVENTS(kq);

	t_write(sp[1], "y", 1);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	return 0;
}
