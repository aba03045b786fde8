/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ with NOTE_FILE_POLL on a regular file at end of file fires
 * anyway (FreeBSD: poll semantics), {fd, READ, 0, 0, 0, udata}; the input
 * fflags are not echoed.  A plain READ knote on the same file in another
 * kqueue stays silent, for contrast.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue(), fd;
	void *ud = (void *)0x21;

	fd = t_tmp_file(NULL);
	t_write(fd, "0123456789", 10);   /* offset 10 = size */

	t_change(kq, fd, EVFILT_READ, EV_ADD, NOTE_FILE_POLL, 0, ud);
	t_change(kq2, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 0, ud);
	T_NO_EVENTS(kq2);

	/* Level-triggered: it keeps firing. */
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 0, ud);
	return 0;
}
