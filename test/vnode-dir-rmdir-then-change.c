/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After a subdirectory of a watched directory is removed (reported as
 * NOTE_WRITE|NOTE_LINK, the subdirectory's ".." link going), a later change
 * to the watched directory itself must be reported for what it is: a chmod
 * gives NOTE_ATTRIB, a new file NOTE_WRITE, never NOTE_DELETE — the
 * directory still exists.  (Its link count is one lower than when the knote
 * was added; that drop was the subdirectory's and was reported with it.)
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

/* Waits at most 2 s; exactly one record must come and equal the given one. */
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
	int kq = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], sub[160], file[160];
	void *ud = (void *)0x2a;
	unsigned all = NOTE_DELETE | NOTE_WRITE | NOTE_LINK | NOTE_ATTRIB;

	snprintf(dir, sizeof dir, "%s/d", top);
	snprintf(sub, sizeof sub, "%s/s", dir);
	snprintf(file, sizeof file, "%s/f", dir);
	T_ASSERT(mkdir(dir, 0700) == 0);
	T_ASSERT(mkdir(sub, 0700) == 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, all, 0, ud);

	T_ASSERT(rmdir(sub) == 0);
	WANT1(kq, dfd, NOTE_WRITE | NOTE_LINK, ud);

	T_ASSERT(chmod(dir, 0750) == 0);
	WANT1(kq, dfd, NOTE_ATTRIB, ud);

	int f = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	T_ASSERT(f >= 0);
	T_EQ(close(f), 0);
	WANT1(kq, dfd, NOTE_WRITE, ud);

	T_ASSERT(fchmod(dfd, 0700) == 0);
	WANT1(kq, dfd, NOTE_ATTRIB, ud);
	return 0;
}
