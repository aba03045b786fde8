/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ|EV_CLEAR: two writes give one record with data 2 and
 * EV_CLEAR in the flags; reading one byte leaves one buffered but produces no
 * further record (FreeBSD read.c clear test); a new write is a new
 * activation: one record whose data is the current total (2).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	char c;
	void *ud = (void *)(uintptr_t)0xe08;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, ud);

	/* Two writes give one record with data 2; reading does not re-arm. */
	t_write(sp[1], "a", 1);
	t_write(sp[1], "b", 1);
	T_GET1(kq, sp[0], EVFILT_READ, EV_CLEAR, 0, 2, ud);
	T_NO_EVENTS(kq);
	T_EQ(read(sp[0], &c, 1), 1);
	T_NO_EVENTS(kq);

	/* A new write re-arms the edge: data 2 (the bytes unread). */
	t_write(sp[1], "c", 1);
	T_GET1(kq, sp[0], EVFILT_READ, EV_CLEAR, 0, 2, ud);
	T_NO_EVENTS(kq);
	return 0;
}
