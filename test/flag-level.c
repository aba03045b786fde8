/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A READ knote without EV_CLEAR is level-triggered: while the byte stays
 * unread every collection reports it again (data 1); once drained, nothing.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	char c;
	void *ud = (void *)(uintptr_t)0xe10;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	t_write(sp[1], "x", 1);
	for (int i = 0; i < 3; i++) {
		T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 1, ud);
	}
	T_EQ(read(sp[0], &c, 1), 1);
	T_NO_EVENTS(kq);
	return 0;
}
