/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shortening a file is an attribute change, not a write: FreeBSD's
 * truncate paths (ftruncate(), truncate(), open() with O_TRUNC) go through
 * VOP_SETATTR, whose post hook posts NOTE_ATTRIB.  A knote asking only
 * NOTE_ATTRIB (as entr does) therefore gets {fd, VNODE, EV_CLEAR,
 * NOTE_ATTRIB, 0, udata} for each, and nothing for a write() that follows.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128];
	void *ud = (void *)0x5311;
	int fd = vt_create(path, sizeof path, dir, "file");

	t_write(fd, "0123456789", 10);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_ATTRIB, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(ftruncate(fd, 4) == 0);
	WANT1_ONLY(kq, fd, NOTE_ATTRIB, ud);

	T_ASSERT(truncate(path, 2) == 0);
	WANT1_ONLY(kq, fd, NOTE_ATTRIB, ud);

	int t = open(path, O_WRONLY | O_TRUNC);
	T_ASSERT(t >= 0);
	WANT1_ONLY(kq, fd, NOTE_ATTRIB, ud);
	T_ASSERT(close(t) == 0);

	t_write(fd, "abc", 3);
	T_NO_EVENTS(kq);
	return 0;
}
