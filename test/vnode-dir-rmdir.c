/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Removing a subdirectory of a watched directory is reported as exactly
 * NOTE_WRITE|NOTE_LINK (FreeBSD contrib/netbsd-tests t_vnode.c
 * dir_note_link_delete, dir_note_write_rmdir): FreeBSD posts the single hint
 * NOTE_WRITE|NOTE_LINK to the parent (vfs_subr.c vop_rmdir_post; the
 * subdirectory's ".." link goes), so a knote asking only for NOTE_LINK
 * reports NOTE_WRITE|NOTE_LINK too (the whole hint is ORed in once a
 * requested bit is in it).
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], sub[160];
	void *ud = (void *)0x113;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	vt_subdir(sub, sizeof sub, dir, "s");

	vt_watch_dir(kq, kql, dfd, NOTE_WRITE | NOTE_LINK, ud);

	T_ASSERT(rmdir(sub) == 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kq);
	WANT1(kql, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kql);
	return 0;
}
