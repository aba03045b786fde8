/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a regular file of 10 bytes at offset 0 fires with
 * data = size - offset = 10; after lseek to 4 it reports 6 (recomputed).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), fd;
	void *ud = (void *)0x17;

	fd = t_tmp_file(NULL);
	t_write(fd, "0123456789", 10);
	T_EQ(lseek(fd, 0, SEEK_SET), 0);

	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 10, ud);

	T_EQ(lseek(fd, 4, SEEK_SET), 4);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 6, ud);
	return 0;
}
