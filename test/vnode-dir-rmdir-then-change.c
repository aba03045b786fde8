/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After a subdirectory of a watched directory is removed (reported as
 * NOTE_WRITE|NOTE_LINK, the subdirectory's ".." link going), a later change
 * to the watched directory itself must be reported for what it is: a chmod
 * gives NOTE_ATTRIB, a new file NOTE_WRITE, never NOTE_DELETE — the
 * directory still exists.  (Its link count is one lower than when the knote
 * was added; that drop was the subdirectory's and was reported with it.)
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], sub[160], file[160];
	void *ud = (void *)0x2a;
	unsigned all = NOTE_DELETE | NOTE_WRITE | NOTE_LINK | NOTE_ATTRIB;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	vt_subdir(sub, sizeof sub, dir, "s");
	snprintf(file, sizeof file, "%s/f", dir);
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, all, 0, ud);

	T_ASSERT(rmdir(sub) == 0);
	WANT1_ONLY(kq, dfd, NOTE_WRITE | NOTE_LINK, ud);

	T_ASSERT(chmod(dir, 0750) == 0);
	WANT1_ONLY(kq, dfd, NOTE_ATTRIB, ud);

	vt_new_file(file);
	WANT1_ONLY(kq, dfd, NOTE_WRITE, ud);

	T_ASSERT(fchmod(dfd, 0700) == 0);
	WANT1_ONLY(kq, dfd, NOTE_ATTRIB, ud);
	return 0;
}
