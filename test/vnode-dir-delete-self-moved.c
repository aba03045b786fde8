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
#include "t.h"

#include <ftw.h>

static char vt_dir[64];

static int vt_rm(const char *p, const struct stat *sb, int type,
		 struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(p);
	return 0;
}

static void vt_cleanup(void)
{
	if (vt_dir[0])
		nftw(vt_dir, vt_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *vt_mkdir(void)
{
	strcpy(vt_dir, "/tmp/kqvnode.XXXXXX");
	if (mkdtemp(vt_dir) == NULL)
		T_FAIL("mkdtemp: %s", strerror(errno));
	atexit(vt_cleanup);
	return vt_dir;
}

#define WANT1(kq, id, ffl, ud) want1(__LINE__, (kq), (id), (ffl), (void *)(ud))

static void want1(int line, int kq, int id, unsigned int ffl, void *ud)
{
	struct kevent ev[4];
	int n = t_wait(kq, ev, 4, 2000);

	if (n != 1) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  got", &ev[i]);
		T_FAIL("line %d: expected one record, got %d", line, n);
	}
	t_kevent_check(__FILE__, line, &ev[0], (uintptr_t)id, EVFILT_VNODE,
		       EV_CLEAR, ffl, 0, ud);
	T_EQ(t_wait(kq, ev, 4, 50), 0);
}

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
	WANT1(kq, dfd, NOTE_RENAME, ud);
	T_ASSERT(rmdir(d2) == 0);
	WANT1(kq, dfd, NOTE_DELETE, ud);
	WANT1(late, dfd, NOTE_DELETE, ud);
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
	WANT1(kq, xfd, NOTE_DELETE, ud);
	T_EQ(close(xfd), 0);
	T_NO_EVENTS(kq);
	return 0;
}
