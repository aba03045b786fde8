/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Renaming a subdirectory within a watched directory is reported with
 * NOTE_WRITE and without NOTE_LINK (FreeBSD contrib/netbsd-tests t_vnode.c
 * dir_no_note_link_mv_dir_within): the subdirectory's ".." still points to
 * the same parent, so the parent's link count does not change.  NOTE_EXTEND
 * is allowed (FreeBSD may add it to entry changes made by rename), nothing
 * else.  A knote asking only for NOTE_LINK reports nothing.
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

/*
 * Waits at most 2 s; exactly one record must come: {fd, VNODE, EV_CLEAR,
 * fflags, 0, udata} where fflags holds every bit of need and otherwise
 * only bits of allow.
 */
#define WANTDIR(kq, id, need, allow, ud) \
	wantdir(__LINE__, (kq), (id), (need), (allow), (void *)(ud))

static void wantdir(int line, int kq, int id, unsigned int need,
		    unsigned int allow, void *ud)
{
	struct kevent ev[4];
	int n = t_wait(kq, ev, 4, 2000);

	if (n != 1) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  got", &ev[i]);
		T_FAIL("line %d: expected one record, got %d", line, n);
	}
	if ((ev[0].fflags & need) != need ||
	    (ev[0].fflags & ~(need | allow)) != 0) {
		t_print_kevent("  got", &ev[0]);
		T_FAIL("line %d: fflags 0x%x, need 0x%x, allowed besides 0x%x",
		       line, ev[0].fflags, need, allow);
	}
	t_kevent_check(__FILE__, line, &ev[0], (uintptr_t)id, EVFILT_VNODE,
		       EV_CLEAR, ev[0].fflags, 0, ud);
}

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], s[160], t[160];
	void *ud = (void *)0x115;

	snprintf(dir, sizeof dir, "%s/d", top);
	snprintf(s, sizeof s, "%s/s", dir);
	snprintf(t, sizeof t, "%s/t", dir);
	T_ASSERT(mkdir(dir, 0700) == 0);
	T_ASSERT(mkdir(s, 0700) == 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);

	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_LINK | NOTE_EXTEND, 0, ud);
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(s, t) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kql);
	return 0;
}
