/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Overwriting bytes in place (pwrite of 16 bytes at offset 0 over a
 * 16-byte file) is reported as NOTE_WRITE without NOTE_EXTEND, although
 * NOTE_EXTEND is requested too: FreeBSD adds NOTE_EXTEND only when the
 * write ends past the old size (sys/vnode.h VOP_WRITE_POST).  A pwrite that
 * runs past the end is NOTE_WRITE|NOTE_EXTEND.  A write of 0 bytes writes
 * nothing and is not reported (VOP_WRITE_POST needs the offset to advance).
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud = (void *)0x103;
	int fd = vt_file(path, sizeof path);

	T_EQ(pwrite(fd, "AAAAAAAAAAAAAAAA", 16, 0), 16);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_EXTEND, 0, ud);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "B", 0, 0), 0);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "BBBBBBBBBBBBBBBB", 16, 0), 16);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "CCCCCCCC", 8, 12), 8);   /* bytes 12..19: grows */
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);

	T_EQ(pwrite(fd, "DDDD", 4, 4), 4);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);
	return 0;
}
