/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a regular file fires at once with data 0 (FreeBSD
 * filt_vfswrite: always ready, although the manual says vnodes are not
 * supported), and keeps firing (level).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), fd;
	void *ud = (void *)0x609;

	fd = t_tmp_file(NULL);
	t_write(fd, "0123456789", 10);

	t_change(kq, fd, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_WRITE, 0, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_WRITE, 0, 0, 0, ud);
	return 0;
}
