/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A FIFO opened for writing (a reader holds it open, so the open does not
 * block) is watched for NOTE_DELETE; unlink() of the FIFO's name is reported
 * as {wfd, VNODE, 0, NOTE_DELETE, 0, udata} (FreeBSD
 * tests/sys/kqueue/libkqueue/vnode.c note_delete_fifo).  The FIFO itself
 * keeps working for its open ends.
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
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], c;
	void *ud = (void *)0x109;

	snprintf(path, sizeof path, "%s/fifo", dir);
	T_ASSERT(mkfifo(path, 0600) == 0);
	int rfd = open(path, O_RDONLY | O_NONBLOCK);
	T_ASSERT(rfd >= 0);
	int wfd = open(path, O_WRONLY);
	T_ASSERT(wfd >= 0);

	t_change(kq, wfd, EVFILT_VNODE, EV_ADD, NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(unlink(path) == 0);
	WANT1(kq, wfd, 0, NOTE_DELETE, ud);

	t_write(wfd, "z", 1);
	T_EQ(read(rfd, &c, 1), 1);
	T_EQ(c, 'z');
	return 0;
}
