/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A subdirectory created in a watched directory raises the directory's link
 * count once, and FreeBSD reports that once: NOTE_WRITE|NOTE_LINK with the
 * mkdir (vop_mkdir_post).  A later attribute change of the directory is
 * NOTE_ATTRIB alone; the link count change must not be reported again.
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
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char sub[128];
	void *ud = (void *)0x2b;

	snprintf(sub, sizeof sub, "%s/s", top);
	int dfd = open(top, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_LINK | NOTE_ATTRIB | NOTE_WRITE, 0, ud);
	/* asks for nothing an attribute change posts */
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);

	T_ASSERT(mkdir(sub, 0700) == 0);
	WANT1(kq, dfd, NOTE_WRITE | NOTE_LINK, ud);
	WANT1(kql, dfd, NOTE_WRITE | NOTE_LINK, ud);

	T_ASSERT(chmod(top, 0750) == 0);
	WANT1(kq, dfd, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kql);

	T_ASSERT(fchmod(dfd, 0700) == 0);
	WANT1(kq, dfd, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kql);
	return 0;
}
