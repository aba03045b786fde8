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

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	snprintf(a, sizeof a, "%s/a", dir);
	snprintf(b, sizeof b, "%s/b", dir);
	vt_new_file(a);

	vt_watch_dir(kq, kql, dfd, NOTE_WRITE | NOTE_LINK | NOTE_EXTEND, ud);

	T_ASSERT(rename(a, b) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kql);
	return 0;
}
