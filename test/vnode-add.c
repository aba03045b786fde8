/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of EVFILT_VNODE with NOTE_WRITE|NOTE_ATTRIB|NOTE_RENAME|
 * NOTE_DELETE succeeds (kevent returns 0) on a regular file, a directory and
 * a FIFO (the filter takes any file-system object) and reports nothing while
 * the objects are left alone (FreeBSD tests/sys/kqueue/libkqueue/vnode.c
 * add).  With EV_RECEIPT the echo is {fd, VNODE, EV_ERROR, 0, 0, udata}: a
 * successful create zeroes fflags and data.  Writing to a file inside the
 * watched directory is not a change of the directory (FreeBSD posts
 * NOTE_WRITE to a directory only for entry changes).  EV_DELETE removes the
 * file's knote (FreeBSD tests/sys/kqueue/libkqueue/vnode.c del): a later
 * write is not reported and a second EV_DELETE fails with ENOENT.
 */
#include "t_vnode.h"

#define MASK (NOTE_WRITE | NOTE_ATTRIB | NOTE_RENAME | NOTE_DELETE)

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], fifo[128];
	struct kevent ch, ev[4];
	struct timespec z = { 0, 0 };
	void *ud = (void *)0x101;

	snprintf(path, sizeof path, "%s/file", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd >= 0);
	T_ASSERT(mkfifo(fifo, 0600) == 0);
	int ffd = open(fifo, O_RDONLY | O_NONBLOCK);
	T_ASSERT(ffd >= 0);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);

	/* Regular file: no record, nothing pending. */
	EV_SET(&ch, fd, EVFILT_VNODE, EV_ADD, MASK, 0, ud);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	T_NO_EVENTS(kq);

	/* Directory, with EV_RECEIPT: the echo has fflags and data zeroed. */
	EV_SET(&ch, dfd, EVFILT_VNODE, EV_ADD | EV_RECEIPT, MASK, 5, ud);
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq2, &ch, 1, ev, 4, &z), 1);
	T_KEVENT(&ev[0], dfd, EVFILT_VNODE, EV_ERROR, 0, 0, ud);
	T_ASSERT(t_untouched(&ev[1]));

	/* FIFO. */
	t_change(kq2, ffd, EVFILT_VNODE, EV_ADD, MASK, 0, ud);
	T_NO_EVENTS(kq2);

	/* EV_DELETE: gone; a write is not reported; deleting again: ENOENT. */
	t_change(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL);
	t_write(fd, "x", 1);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL),
	     ENOENT);

	/* The write to dir/file changed no entry of the directory. */
	T_NO_EVENTS(kq2);
	return 0;
}
