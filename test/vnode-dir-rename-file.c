/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Renaming a plain file within a watched directory is reported with
 * NOTE_WRITE and without NOTE_LINK (FreeBSD contrib/netbsd-tests t_vnode.c
 * dir_no_note_link_rename, dir_note_write_rename): FreeBSD posts NOTE_WRITE
 * to the directory (vfs_subr.c vop_rename_post); NOTE_EXTEND, which FreeBSD
 * may add for rename-driven entry changes, is allowed, nothing else.  A
 * knote asking only for NOTE_LINK reports nothing.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], a[160], b[160];
	void *ud = (void *)0x114;

	snprintf(dir, sizeof dir, "%s/d", top);
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	T_ASSERT(mkdir(dir, 0700) == 0);
	int fd = open(a, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0);
	T_ASSERT(close(fd) == 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);

	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_LINK | NOTE_EXTEND, 0, ud);
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(a, b) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kql);
	return 0;
}
