/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Only requested notes are ever reported.  FreeBSD's filt_vfsvnode ORs a
 * hint into the knote only when the knote asked for some of it, and each
 * operation posts its own hint: the write NOTE_WRITE|NOTE_EXTEND, the chmod
 * NOTE_ATTRIB, the unlink NOTE_DELETE.  So a knote asking NOTE_DELETE |
 * NOTE_RENAME (what FreeBSD's tail -F registers) on a file that is written,
 * chmod'ed and unlinked, all before it is collected, gives exactly
 * {fd, VNODE, EV_CLEAR, NOTE_DELETE, 0, udata}.  Linux may report the chmod
 * and the unlink as one inotify event; what libkq reads from it must still
 * be kept apart.  A knote asking only NOTE_RENAME on the same file is not
 * activated at all.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128];
	void *ud = (void *)0x5301, *ud2 = (void *)0x5302;
	int fd = vt_create(path, sizeof path, dir, "file");
	int fd2 = open(path, O_RDONLY);

	T_ASSERT(fd2 >= 0);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_DELETE | NOTE_RENAME, 0, ud);
	t_change(kq2, fd2, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_RENAME, 0,
		 ud2);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);

	t_write(fd, "0123456789", 10);
	T_ASSERT(chmod(path, 0640) == 0);
	T_ASSERT(unlink(path) == 0);

	WANT1_ONLY(kq, fd, NOTE_DELETE, ud);
	T_NO_EVENTS(kq2);
	return 0;
}
