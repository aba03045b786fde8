/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() of a watched descriptor removes its VNODE knotes in every kqueue
 * (as for every filter, a knote dies with the first close of its number),
 * also while a dup() keeps the file open and also when a record for it is
 * already queued: no record is returned for it, nothing crashes.  EV_DELETE
 * of {fd, VNODE} then fails with EBADF while the number is closed, and with
 * ENOENT once the number is reused by a new open; the file opened under the
 * reused number is not watched, and neither is the old file (still open
 * through the dup).
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	const char *dir = vt_mkdir();
	char path[128], path2[128];
	void *ud = (void *)0x127;
	int fd = vt_create(path, sizeof path, dir, "a");
	int d = dup(fd);

	T_ASSERT(d >= 0);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_ATTRIB, 0, ud);
	t_change(kq2, fd, EVFILT_VNODE, EV_ADD, NOTE_WRITE | NOTE_ATTRIB, 0,
		 ud);
	T_NO_EVENTS(kq);

	/* A record becomes pending, then the watched number is closed. */
	t_write(d, "x", 1);
	T_ASSERT(close(fd) == 0);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);

	/* The file lives on through the dup, unwatched. */
	t_write(d, "y", 1);
	T_ASSERT(fchmod(d, 0640) == 0);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);
	T_EQ(t_change_err(kq, fd, EVFILT_VNODE, EV_DELETE, 0, 0, NULL), EBADF);

	/* The number is reused by another file: a fresh number, no knote. */
	snprintf(path2, sizeof path2, "%s/b", dir);
	int fd2 = open(path2, O_RDWR | O_CREAT | O_EXCL, 0600);
	T_ASSERT(fd2 >= 0);
	if (fd2 != fd)
		T_FAIL("open() returned %d, not the lowest free number %d", fd2,
		       fd);
	T_EQ(t_change_err(kq, fd2, EVFILT_VNODE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	T_EQ(t_change_err(kq2, fd2, EVFILT_VNODE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	t_write(fd2, "z", 1);
	T_ASSERT(fchmod(fd2, 0640) == 0);
	t_write(d, "w", 1);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);
	return 0;
}
