/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Creating a subdirectory in a watched directory is reported as exactly
 * NOTE_WRITE|NOTE_LINK (FreeBSD contrib/netbsd-tests t_vnode.c
 * dir_note_link_create, dir_note_write_mkdir): FreeBSD posts the single hint
 * NOTE_WRITE|NOTE_LINK to the parent (vfs_subr.c vop_mkdir_post; the new
 * ".." is a link to the parent).  Because the whole hint is ORed in once a
 * requested bit is in it, a knote asking only for NOTE_WRITE and one asking
 * only for NOTE_LINK report NOTE_WRITE|NOTE_LINK as well.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kqw = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], sub[160];
	void *ud = (void *)0x112;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	snprintf(sub, sizeof sub, "%s/s", dir);

	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_LINK, 0, ud);
	t_change(kqw, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, ud);
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);

	T_ASSERT(mkdir(sub, 0700) == 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kq);
	WANT1(kqw, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kqw);
	WANT1(kql, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kql);
	return 0;
}
