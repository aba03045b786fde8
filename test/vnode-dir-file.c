/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file half of FreeBSD contrib/netbsd-tests t_vnode.c: a directory
 * watched for NOTE_WRITE|NOTE_LINK reports creating a plain file in it as
 * exactly NOTE_WRITE (vfs_subr.c vop_create_post), creating a symlink as
 * exactly NOTE_WRITE (vop_symlink_post) and removing either as exactly
 * NOTE_WRITE (vop_remove_post): no NOTE_LINK, the directory's link count is
 * not touched by plain entries.  A second knote asking only for NOTE_LINK
 * reports nothing for all of it (t_vnode.c dir_no_note_link_create /
 * _delete).  Writing to or chmod-ing the file inside changes no entry of the
 * directory and is not reported either.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	const char *top = vt_mkdir();
	char dir[128], file[160], sym[160];
	void *ud = (void *)0x111;

	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	snprintf(file, sizeof file, "%s/f", dir);
	snprintf(sym, sizeof sym, "%s/l", dir);

	vt_watch_dir(kq, kq2, dfd, NOTE_WRITE | NOTE_LINK, ud);

	int fd = open(file, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);

	t_write(fd, "content", 7);
	T_ASSERT(fchmod(fd, 0644) == 0);
	T_ASSERT(close(fd) == 0);
	T_NO_EVENTS(kq);

	T_ASSERT(symlink("f", sym) == 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(unlink(file) == 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(unlink(sym) == 0);
	WANT1(kq, dfd, EV_CLEAR, NOTE_WRITE, ud);
	T_NO_EVENTS(kq);

	T_NO_EVENTS(kq2);
	return 0;
}
