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

/* Waits at most 2 s; exactly one record must come and equal the given one. */
#define WANT1(kq, id, fl, ffl, ud) \
	want1(__LINE__, (kq), (id), (fl), (ffl), (void *)(ud))

static void want1(int line, int kq, int id, unsigned short fl,
		  unsigned int ffl, void *ud)
{
	struct kevent ev[4];
	int n = t_wait(kq, ev, 4, 2000);

	if (n != 1) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  got", &ev[i]);
		T_FAIL("line %d: expected one record, got %d", line, n);
	}
	t_kevent_check(__FILE__, line, &ev[0], (uintptr_t)id, EVFILT_VNODE,
		       fl, ffl, 0, ud);
}

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], sub[160];
	void *ud = (void *)0x113;

	snprintf(dir, sizeof dir, "%s/d", top);
	snprintf(sub, sizeof sub, "%s/s", dir);
	T_ASSERT(mkdir(dir, 0700) == 0);
	T_ASSERT(mkdir(sub, 0700) == 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);

	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_LINK, 0, ud);
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rmdir(sub) == 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kq);
	WANT1(kql, dfd, EV_CLEAR, NOTE_WRITE | NOTE_LINK, ud);
	T_NO_EVENTS(kql);
	return 0;
}
