/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Moving a subdirectory into a watched directory from elsewhere, and out of
 * it again, is reported each time with NOTE_WRITE|NOTE_LINK (FreeBSD
 * contrib/netbsd-tests t_vnode.c dir_note_link_mv_dir_in / _out): the moved
 * directory's ".." changes parent, so the watched directory's link count
 * changes.  NOTE_EXTEND is allowed (FreeBSD may add it to entry changes made
 * by rename), nothing else.  A knote asking only for NOTE_LINK reports
 * NOTE_LINK each time (with NOTE_WRITE/NOTE_EXTEND allowed, should the file
 * system post them in the same hint).
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], other[128], out[160], in[160];
	void *ud = (void *)0x116;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	vt_subdir(other, sizeof other, top, "o");
	vt_subdir(out, sizeof out, other, "s");
	snprintf(in, sizeof in, "%s/s", dir);

	vt_watch_dir(kq, kql, dfd, NOTE_WRITE | NOTE_LINK | NOTE_EXTEND, ud);

	/* In. */
	T_ASSERT(rename(out, in) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE | NOTE_LINK, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	WANTDIR(kql, dfd, NOTE_LINK, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kql);

	/* Out. */
	T_ASSERT(rename(in, out) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE | NOTE_LINK, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	WANTDIR(kql, dfd, NOTE_LINK, NOTE_WRITE | NOTE_EXTEND, ud);
	T_NO_EVENTS(kql);
	return 0;
}
