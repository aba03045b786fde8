/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Setting a file's times (utimes() by path, futimens() by descriptor) is
 * reported as exactly NOTE_ATTRIB (FreeBSD
 * tests/sys/kqueue/libkqueue/vnode.c note_attrib); NOTE_WRITE and
 * NOTE_EXTEND, also requested, do not come along: FreeBSD posts NOTE_ATTRIB
 * for every successful VOP_SETATTR (vfs_subr.c vop_setattr_post).  Each
 * change sets distinct times, so it is a real change whatever the time-stamp
 * granularity.
 */
#include "t_vnode.h"

#include <sys/time.h>

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	void *ud = (void *)0x105;
	int fd = vt_file(path, sizeof path);
	struct timeval tv[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_ATTRIB | NOTE_WRITE | NOTE_EXTEND, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(utimes(path, tv) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1100000000);
	WANT1(kq, fd, EV_CLEAR, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);
	return 0;
}
