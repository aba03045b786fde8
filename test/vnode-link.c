/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With NOTE_LINK|NOTE_DELETE watched, link() of a second name is
 * reported as exactly NOTE_LINK (vfs_subr.c vop_link_post), and unlink()
 * of that second name as exactly NOTE_DELETE although the file keeps its
 * first name: FreeBSD posts NOTE_DELETE for every removed name
 * (vop_remove_post) and no NOTE_LINK on removal.  Removing the last name
 * is NOTE_DELETE again.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], path2[128];
	void *ud = (void *)0x110;
	int fd = vt_create(path, sizeof path, dir, "a");

	snprintf(path2, sizeof path2, "%s/b", dir);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_LINK | NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(link(path, path2) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_LINK, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(unlink(path2) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_DELETE, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(unlink(path) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_DELETE, ud);
	T_NO_EVENTS(kq);
	return 0;
}
