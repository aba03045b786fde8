/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ, WRITE and VNODE knotes on one regular-file descriptor all go
 * when it is closed (FreeBSD knote_fdclose walks every knote of the number):
 * no record afterwards, not even a NOTE_WRITE for a write through another
 * descriptor of the same file; EV_DELETE of each -> EBADF.  Reopening the
 * file on the same number starts without knotes (EV_DELETE -> ENOENT).
 */
#include "t.h"

static int count_filter(const struct kevent *ev, int n, short filter)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (ev[i].filter == filter)
			c++;
	return c;
}

int main(void)
{
	int kq = t_kqueue();
	const char *path;
	int fd = t_tmp_file(&path);
	struct kevent ev[8];
	void *u = (void *)0x501;

	t_write(fd, "hello", 5);
	T_EQ(lseek(fd, 0, SEEK_SET), 0);
	int w = open(path, O_WRONLY | O_APPEND);
	T_ASSERT(w >= 0);

	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, u);
	t_change(kq, fd, EVFILT_WRITE, EV_ADD, 0, 0, u);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_ATTRIB, 0, u);
	t_write(w, "more", 4);
	int n = t_get(kq, ev, 8);
	T_EQ(n, 3);
	T_EQ(count_filter(ev, n, EVFILT_READ), 1);
	T_EQ(count_filter(ev, n, EVFILT_WRITE), 1);
	T_EQ(count_filter(ev, n, EVFILT_VNODE), 1);

	T_EQ(close(fd), 0);
	T_NO_EVENTS(kq);
	t_write(w, "again", 5);
	T_ASSERT(fchmod(w, 0640) == 0);
	T_NO_EVENTS(kq);
	t_change_fails(kq, fd, EVFILT_READ, EV_DELETE, NULL, EBADF);
	t_change_fails(kq, fd, EVFILT_WRITE, EV_DELETE, NULL, EBADF);
	t_change_fails(kq, fd, EVFILT_VNODE, EV_DELETE, NULL, EBADF);

	int again = open(path, O_RDONLY);
	T_ASSERT(again >= 0);
	if (again != fd) {
		int m = fcntl(again, F_DUPFD, fd);
		T_EQ(m, fd);
		T_EQ(close(again), 0);
	}
	t_change_fails(kq, fd, EVFILT_READ, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, fd, EVFILT_WRITE, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, fd, EVFILT_VNODE, EV_DELETE, NULL, ENOENT);
	t_write(w, "x", 1);
	T_NO_EVENTS(kq);
	T_EQ(close(fd), 0);
	T_EQ(close(w), 0);
	return 0;
}
