/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unlink() of a file's only name while the file stays open is reported as
 * NOTE_DELETE at once (FreeBSD tests/sys/kqueue/libkqueue/vnode.c
 * note_delete, ONESHOT knote: {fd, VNODE, EV_ONESHOT, NOTE_DELETE, 0,
 * udata}).  A second knote in another kqueue that also asks for NOTE_ATTRIB,
 * NOTE_LINK, NOTE_WRITE and NOTE_RENAME gets exactly NOTE_DELETE too:
 * FreeBSD posts only NOTE_DELETE to the removed vnode (vfs_subr.c
 * vop_remove_post).  The knote stays on the open, now nameless file: an
 * append is NOTE_WRITE|NOTE_EXTEND.  Linux reports the deletion of an open
 * file (IN_DELETE_SELF) only at its last close; the library has to notice
 * the link count reaching 0 instead (see docs/filters.md), which makes this
 * a Linux-specific part of the filter.
 */
#include "t_vnode.h"

#define WIDE (NOTE_DELETE | NOTE_ATTRIB | NOTE_LINK | NOTE_WRITE | NOTE_RENAME)

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	char path[128];
	void *ud = (void *)0x108, *ud2 = (void *)0x1082;
	int fd = vt_file(path, sizeof path);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_ONESHOT, NOTE_DELETE, 0, ud);
	t_change(kq2, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, WIDE, 0, ud2);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);

	T_ASSERT(unlink(path) == 0);
	WANT1(kq, fd, EV_ONESHOT, NOTE_DELETE, ud);
	T_NO_EVENTS(kq);
	WANT1(kq2, fd, EV_CLEAR, NOTE_DELETE, ud2);
	T_NO_EVENTS(kq2);

	t_write(fd, "still open", 10);
	WANT1(kq2, fd, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, ud2);
	T_NO_EVENTS(kq2);
	T_NO_EVENTS(kq);
	return 0;
}
