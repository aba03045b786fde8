/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With NOTE_LINK|NOTE_DELETE watched, link() of a second name is
 * reported as exactly NOTE_LINK (vfs_subr.c vop_link_post), and unlink()
 * of that second name as exactly NOTE_DELETE although the file keeps its
 * first name: FreeBSD posts NOTE_DELETE for every removed name
 * (vop_remove_post) and no NOTE_LINK on removal.  Removing the last name
 * is NOTE_DELETE again.
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

/* Creates (empty, mode 0600) and opens O_RDWR the file dir/name. */
static int vt_create(char *path, size_t size, const char *dir,
		     const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		T_FAIL("open(%s): %s", path, strerror(errno));
	return fd;
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
