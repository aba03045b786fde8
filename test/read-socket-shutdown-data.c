/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The peer writes 5 bytes and shuts down its write side; READ reports
 * EV_EOF *and* data 5 (EOF does not hide buffered bytes).  After the bytes
 * are read, EV_EOF is still reported, now with data 0.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), sp[2];
	void *ud = (void *)0x5d;
	char buf[8];

	t_socketpair(sp);
	t_write(sp[1], "hello", 5);
	T_ASSERT(shutdown(sp[1], SHUT_WR) == 0);

	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_WAIT1(kq, 2000, sp[0], EVFILT_READ, EV_EOF, 0, 5, ud);

	T_EQ(read(sp[0], buf, sizeof buf), 5);
	T_GET1(kq, sp[0], EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
