/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A pipe holding 3 bytes whose writer has closed: READ reports EV_EOF
 * together with data 3; after the bytes are read, EV_EOF with data 0.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	void *ud = (void *)0x14;
	char buf[8];

	t_pipe(p);
	t_write(p[1], "abc", 3);
	T_ASSERT(close(p[1]) == 0);

	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, p[0], EVFILT_READ, EV_EOF, 0, 3, ud);

	T_EQ(read(p[0], buf, sizeof buf), 3);
	T_GET1(kq, p[0], EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
