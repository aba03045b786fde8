/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rmdir() of a watched directory whose descriptor stays open: FreeBSD
 * reports NOTE_DELETE to the directory's own knote at once (vop_rmdir_post
 * posts it to the removed vnode), and nothing else.  Linux sends nothing to
 * the directory's own inotify watch until its last descriptor is closed,
 * so libkq learns of it from the parent directory (see filter/vnode.c).
 * The record must come while the descriptor is open, exactly once; other
 * subdirectories coming and going in the parent are not mistaken for it,
 * and a knote that did not ask for NOTE_DELETE stays silent.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kqw = t_kqueue();
	const char *top = vt_mkdir();
	char sub[128], other[128];
	void *ud = (void *)0x1132;
	struct kevent ev[4];

	int sfd = vt_mkdir_open(sub, sizeof sub, top, "s");
	snprintf(other, sizeof other, "%s/o", top);

	t_change(kq, sfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_DELETE | NOTE_WRITE | NOTE_LINK | NOTE_ATTRIB, 0, ud);
	t_change(kqw, sfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, ud);
	T_ASSERT(mkdir(other, 0700) == 0);
	T_ASSERT(rmdir(other) == 0);
	T_EQ(t_wait(kq, ev, 4, 100), 0);

	T_ASSERT(rmdir(sub) == 0);
	T_WAIT1(kq, 2000, sfd, EVFILT_VNODE, EV_CLEAR, NOTE_DELETE, 0, ud);
	T_EQ(t_wait(kq, ev, 4, 100), 0);
	T_EQ(t_wait(kqw, ev, 4, 100), 0);

	/* another directory of that name removed later is not this one */
	T_ASSERT(mkdir(sub, 0700) == 0);
	T_ASSERT(rmdir(sub) == 0);
	T_EQ(t_wait(kq, ev, 4, 100), 0);

	T_EQ(close(sfd), 0);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kqw);
	return 0;
}
