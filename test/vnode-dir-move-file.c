/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Moving a plain file into a watched directory from elsewhere, and out of it
 * again, is reported each time with NOTE_WRITE and without NOTE_LINK
 * (FreeBSD contrib/netbsd-tests t_vnode.c dir_no_note_link_mv_in / _out,
 * dir_note_write_mv_in / _out): a plain entry does not change the
 * directory's link count.  NOTE_EXTEND is allowed (FreeBSD may add it to
 * entry changes made by rename), nothing else.  A knote asking only for
 * NOTE_LINK reports nothing.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], other[128], out[160], in[160];
	void *ud = (void *)0x117;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	vt_subdir(other, sizeof other, top, "o");
	snprintf(out, sizeof out, "%s/f", other);
	snprintf(in, sizeof in, "%s/f", dir);
	vt_new_file(out);

	vt_watch_dir(kq, kql, dfd, NOTE_WRITE | NOTE_LINK | NOTE_EXTEND, ud);

	T_ASSERT(rename(out, in) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(in, out) == 0);
	WANTDIR(kq, dfd, NOTE_WRITE, NOTE_EXTEND, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kql);
	return 0;
}
