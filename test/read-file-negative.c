/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a regular file of 10 bytes whose offset is 15 (beyond the
 * end) fires with the negative data size - offset = -5 (FreeBSD
 * filt_vfsread fires whenever size != offset).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), fd;
	void *ud = (void *)0x20;

	fd = t_tmp_file(NULL);
	t_write(fd, "0123456789", 10);
	T_EQ(lseek(fd, 15, SEEK_SET), 15);

	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, -5, ud);
	return 0;
}
