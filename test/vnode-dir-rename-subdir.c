/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Renaming a subdirectory within a watched directory is reported with
 * NOTE_WRITE and without NOTE_LINK (FreeBSD contrib/netbsd-tests t_vnode.c
 * dir_no_note_link_mv_dir_within): the subdirectory's ".." still points to
 * the same parent, so the parent's link count does not change.  NOTE_EXTEND
 * is allowed (FreeBSD may add it to entry changes made by rename), nothing
 * else.  A knote asking only for NOTE_LINK reports nothing.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], s[160], t[160];
	void *ud = (void *)0x115;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	vt_subdir(s, sizeof s, dir, "s");
	snprintf(t, sizeof t, "%s/t", dir);

	vt_watch_dir(kq, kql, dfd, NOTE_WRITE | NOTE_LINK | NOTE_EXTEND, ud);

	T_ASSERT(rename(s, t) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kql);
	return 0;
}
