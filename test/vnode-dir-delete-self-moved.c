/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A watched directory renamed into another directory and removed there, or
 * replaced by rename() over it, is reported NOTE_DELETE while its
 * descriptor is open, as FreeBSD does (vop_rmdir_post, and vop_rename_post
 * for the replaced target).  libkq hears of the removal from the
 * directory's parent, so after a rename it must watch the new parent; a
 * kqueue that only looks after both the rename and the rmdir happened
 * must still get NOTE_DELETE.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), late = t_kqueue();
	const char *top = vt_mkdir();
	char a[128], b[128], d1[160], d2[160], x[160], y[160];
	void *ud = (void *)0x2c;

	snprintf(a, sizeof a, "%s/a", top);
	snprintf(b, sizeof b, "%s/b", top);
	snprintf(d1, sizeof d1, "%s/d", a);
	snprintf(d2, sizeof d2, "%s/d", b);
	T_ASSERT(mkdir(a, 0700) == 0);
	T_ASSERT(mkdir(b, 0700) == 0);
	T_ASSERT(mkdir(d1, 0700) == 0);
	int dfd = open(d1, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_DELETE | NOTE_RENAME, 0, ud);
	t_change(late, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_DELETE, 0, ud);

	T_ASSERT(rename(d1, d2) == 0);
	WANT1_ONLY(kq, dfd, NOTE_RENAME, ud);
	T_ASSERT(rmdir(d2) == 0);
	WANT1_ONLY(kq, dfd, NOTE_DELETE, ud);
	WANT1_ONLY(late, dfd, NOTE_DELETE, ud);
	T_EQ(close(dfd), 0);

	/* replaced: rename() of an empty directory over the watched one */
	snprintf(x, sizeof x, "%s/x", top);
	snprintf(y, sizeof y, "%s/y", top);
	T_ASSERT(mkdir(x, 0700) == 0);
	T_ASSERT(mkdir(y, 0700) == 0);
	int xfd = open(x, O_RDONLY | O_DIRECTORY);
	T_ASSERT(xfd >= 0);
	t_change(kq, xfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_DELETE, 0, ud);
	T_ASSERT(rename(y, x) == 0);
	WANT1_ONLY(kq, xfd, NOTE_DELETE, ud);
	T_EQ(close(xfd), 0);
	T_NO_EVENTS(kq);
	return 0;
}
