/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_OPEN, NOTE_READ, NOTE_CLOSE, NOTE_CLOSE_WRITE (FreeBSD >= 11,
 * vfs_subr.c vop_open_post, vop_read_post, vop_close_post).  With an
 * EV_CLEAR knote asking for all four on a file with content, collected
 * after each step: open(O_RDONLY) -> NOTE_OPEN; read() of 4 bytes ->
 * NOTE_READ; close() of that read-only descriptor -> NOTE_CLOSE;
 * open(O_RDWR) -> NOTE_OPEN; its close() -> NOTE_CLOSE_WRITE (a descriptor
 * with write access, even if nothing was written).  The same two sequences
 * without collections in between give one record each:
 * NOTE_OPEN|NOTE_READ|NOTE_CLOSE, then NOTE_OPEN|NOTE_CLOSE_WRITE.  The
 * watched descriptor itself (opened before the knote) stays open.
 */
#include "t.h"

#include <ftw.h>

#define MASK (NOTE_OPEN | NOTE_READ | NOTE_CLOSE | NOTE_CLOSE_WRITE)

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
	char path[128], buf[4];
	void *ud = (void *)0x120;
	int w = vt_create(path, sizeof path, dir, "file");

	t_write(w, "0123456789", 10);
	T_ASSERT(close(w) == 0);
	int fd = open(path, O_RDONLY);
	T_ASSERT(fd >= 0);

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, ud);
	T_NO_EVENTS(kq);

	/* Step by step. */
	int r = open(path, O_RDONLY);
	T_ASSERT(r >= 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN, ud);
	T_NO_EVENTS(kq);
	T_EQ(read(r, buf, 4), 4);
	WANT1(kq, fd, EV_CLEAR, NOTE_READ, ud);
	T_NO_EVENTS(kq);
	T_ASSERT(close(r) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_CLOSE, ud);
	T_NO_EVENTS(kq);

	int rw = open(path, O_RDWR);
	T_ASSERT(rw >= 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN, ud);
	T_NO_EVENTS(kq);
	T_ASSERT(close(rw) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_CLOSE_WRITE, ud);
	T_NO_EVENTS(kq);

	/* The same, coalesced. */
	r = open(path, O_RDONLY);
	T_ASSERT(r >= 0);
	T_EQ(read(r, buf, 4), 4);
	T_ASSERT(close(r) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN | NOTE_READ | NOTE_CLOSE, ud);
	T_NO_EVENTS(kq);

	rw = open(path, O_RDWR);
	T_ASSERT(rw >= 0);
	T_ASSERT(close(rw) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_OPEN | NOTE_CLOSE_WRITE, ud);
	T_NO_EVENTS(kq);
	return 0;
}
