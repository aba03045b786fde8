/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An EV_DISPATCH knote (NOTE_ATTRIB) reports a touch once, {fd, VNODE,
 * EV_DISPATCH, NOTE_ATTRIB, 0, udata}, and is then disabled: a second touch
 * is not reported (FreeBSD tests/sys/kqueue/libkqueue/vnode.c dispatch).
 * EV_ENABLE (with the mask, which every change replaces) re-arms it: the
 * next touch is reported once more, then it is disabled again.  EV_DELETE of
 * the disabled knote succeeds.
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

/* Sets both file times to sec (each call a distinct value: a real change). */
static void vt_touch(int fd, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	if (futimens(fd, ts) != 0)
		T_FAIL("futimens: %s", strerror(errno));
}

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128];
	void *ud = (void *)0x124;
	int fd = vt_create(path, sizeof path, dir, "file");

	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_DISPATCH, NOTE_ATTRIB, 0, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1000000000);
	WANT1(kq, fd, EV_DISPATCH, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1000000100);
	T_NO_EVENTS(kq);

	t_change(kq, fd, EVFILT_VNODE, EV_ENABLE | EV_DISPATCH, NOTE_ATTRIB, 0,
		 ud);
	vt_touch(fd, 1000000200);
	WANT1(kq, fd, EV_DISPATCH, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	vt_touch(fd, 1000000300);
	T_NO_EVENTS(kq);
	t_change(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
