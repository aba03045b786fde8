/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Growing a file with ftruncate() (no write involved) is reported to
 * a knote that asks only for NOTE_EXTEND: one record whose fflags contain
 * NOTE_EXTEND.  NOTE_WRITE may come along (FreeBSD ORs in the whole hint
 * the file system posts once a requested bit is in it), nothing
 * else may (the NOTE_ATTRIB of the size change is a separate hint, not
 * requested).  Shrinking the file is no extension: no record.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128];
	struct kevent ev[4];
	void *ud = (void *)0x104;
	int fd = vt_create(path, sizeof path, dir, "file");

	t_write(fd, "0123456789", 10);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_EXTEND, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(ftruncate(fd, 4096) == 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	if (!(ev[0].fflags & NOTE_EXTEND) ||
	    (ev[0].fflags & ~(unsigned)(NOTE_EXTEND | NOTE_WRITE)) != 0)
		T_FAIL("fflags 0x%x: NOTE_EXTEND (|NOTE_WRITE) expected",
		       ev[0].fflags);
	T_KEVENT(&ev[0], fd, EVFILT_VNODE, EV_CLEAR, ev[0].fflags, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(ftruncate(fd, 10) == 0);
	T_NO_EVENTS(kq);
	return 0;
}
