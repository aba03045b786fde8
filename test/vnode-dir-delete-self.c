/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPEC 6.6 NOTE_DELETE for a directory (companion of H08 and H13): FreeBSD
 * reports rmdir() of a watched directory whose descriptor stays open to the
 * directory's own knote as NOTE_DELETE at once (vop_rmdir_post).
 *
 * Deviation from FreeBSD [LX-DEV], documented in docs/differences.md: Linux
 * sends nothing to the removed directory's own inotify watch until its last
 * descriptor is closed (IN_DELETE_SELF then; no IN_ATTRIB either), and the
 * knote dies with that close.  Checked: no record while the descriptor is
 * open, nothing is left behind, and the knote is still there (EV_DELETE
 * works), so a program at least never sees a wrong record.
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

/* A private directory under /tmp, removed with its contents at exit. */
static const char *vt_mkdir(void)
{
	strcpy(vt_dir, "/tmp/kqvnode.XXXXXX");
	if (mkdtemp(vt_dir) == NULL)
		T_FAIL("mkdtemp: %s", strerror(errno));
	atexit(vt_cleanup);
	return vt_dir;
}


int main(void)
{
	int kq = t_kqueue();
	const char *top = vt_mkdir();
	char sub[128];
	void *ud = (void *)0x1132;

	snprintf(sub, sizeof sub, "%s/s", top);
	T_ASSERT(mkdir(sub, 0700) == 0);
	int sfd = open(sub, O_RDONLY | O_DIRECTORY);
	T_ASSERT(sfd >= 0);

	t_change(kq, sfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_DELETE | NOTE_WRITE | NOTE_LINK | NOTE_ATTRIB, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rmdir(sub) == 0);
	struct kevent ev[4];
	T_EQ(t_wait(kq, ev, 4, 200), 0);
	t_change(kq, sfd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
