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

	vt_subdir(a, sizeof a, top, "a");
	vt_subdir(b, sizeof b, top, "b");
	int dfd = vt_mkdir_open(d1, sizeof d1, a, "d");
	snprintf(d2, sizeof d2, "%s/d", b);
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
	int xfd = vt_mkdir_open(x, sizeof x, top, "x");
	vt_subdir(y, sizeof y, top, "y");
	t_change(kq, xfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_DELETE, 0, ud);
	T_ASSERT(rename(y, x) == 0);
	WANT1_ONLY(kq, xfd, NOTE_DELETE, ud);
	T_EQ(close(xfd), 0);
	T_NO_EVENTS(kq);
	return 0;
}
