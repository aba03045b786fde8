/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Growing a file with ftruncate() (no write involved) is reported to
 * a knote that asks only for NOTE_EXTEND: one record whose fflags contain
 * NOTE_EXTEND.  NOTE_WRITE may come along (FreeBSD ORs in the whole hint
 * the file system posts once a requested bit is in it), nothing
 * else may (the NOTE_ATTRIB of the size change is a separate hint, not
 * requested).  Shrinking the file is no extension: no record.
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

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128];
	struct kevent ev[4];
	void *ud = (void *)0x104;
	int fd = vt_create(path, sizeof path, dir, "file");

	t_write(fd, "0123456789", 10);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_EXTEND, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(ftruncate(fd, 4096) == 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	if (!(ev[0].fflags & NOTE_EXTEND) ||
	    (ev[0].fflags & ~(unsigned)(NOTE_EXTEND | NOTE_WRITE)) != 0)
		T_FAIL("fflags 0x%x: NOTE_EXTEND (|NOTE_WRITE) expected",
		       ev[0].fflags);
	T_KEVENT(&ev[0], fd, EVFILT_VNODE, EV_CLEAR, ev[0].fflags, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(ftruncate(fd, 10) == 0);
	T_NO_EVENTS(kq);
	return 0;
}
