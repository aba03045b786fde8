/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rename() of a watched file is reported as exactly NOTE_RENAME (FreeBSD
 * tests/sys/kqueue/libkqueue/vnode.c note_rename), although NOTE_DELETE,
 * NOTE_WRITE, NOTE_ATTRIB and NOTE_LINK are requested too: FreeBSD posts
 * NOTE_RENAME to the renamed vnode and nothing else (vfs_subr.c
 * vop_rename_post); no name was removed from the object and its link count
 * did not change.  The knote follows the object, not the name: an append
 * afterwards is NOTE_WRITE|NOTE_EXTEND, and a second rename into another
 * directory is NOTE_RENAME again.
 */
#include "t.h"

#include <ftw.h>

#define MASK (NOTE_RENAME | NOTE_DELETE | NOTE_WRITE | NOTE_ATTRIB | NOTE_LINK)

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
	char path[128], path2[128], sub[128], path3[160];
	void *ud = (void *)0x107;
	int fd = vt_create(path, sizeof path, dir, "a");

	snprintf(path2, sizeof path2, "%s/b", dir);
	snprintf(sub, sizeof sub, "%s/sub", dir);
	snprintf(path3, sizeof path3, "%s/c", sub);
	T_ASSERT(mkdir(sub, 0700) == 0);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(path, path2) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_RENAME, ud);
	T_NO_EVENTS(kq);

	t_write(fd, "data", 4);
	WANT1(kq, fd, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(path2, path3) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_RENAME, ud);
	T_NO_EVENTS(kq);
	return 0;
}
