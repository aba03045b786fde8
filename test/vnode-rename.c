/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rename() of a watched file is reported as exactly NOTE_RENAME (FreeBSD
 * tests/sys/kqueue/libkqueue/vnode.c note_rename), although NOTE_DELETE,
 * NOTE_WRITE, NOTE_ATTRIB and NOTE_LINK are requested too: FreeBSD posts
 * NOTE_RENAME to the renamed vnode and nothing else (vfs_subr.c
 * vop_rename_post); no name was removed from the object and its link count
 * did not change.  The knote follows the object, not the name: an append
 * afterwards is NOTE_WRITE|NOTE_EXTEND, and a second rename into another
 * directory is NOTE_RENAME again.
 */
#include "t_vnode.h"

#define MASK (NOTE_RENAME | NOTE_DELETE | NOTE_WRITE | NOTE_ATTRIB | NOTE_LINK)

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], path2[128], sub[128], path3[160];
	void *ud = (void *)0x107;
	int fd = vt_create(path, sizeof path, dir, "a");

	snprintf(path2, sizeof path2, "%s/b", dir);
	snprintf(sub, sizeof sub, "%s/sub", dir);
	snprintf(path3, sizeof path3, "%s/c", sub);
	T_ASSERT(mkdir(sub, 0700) == 0);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(path, path2) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_RENAME, ud);
	T_NO_EVENTS(kq);

	t_write(fd, "data", 4);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(path2, path3) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_RENAME, ud);
	T_NO_EVENTS(kq);
	return 0;
}
