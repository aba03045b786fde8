/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two descriptors of one file in one kqueue, watching for different notes.
 * inotify keeps one watch per inode, whose mask must serve both; adding the
 * second knote must not take away what the first one needs.
 */
#include "t.h"

int main(void)
{
	const char *path;
	int fd1 = t_tmp_file(&path);
	int fd2 = open(path, O_RDONLY);
	T_ASSERT(fd2 >= 0);
	int kq = t_kqueue();
	struct kevent ev[4];

	t_change(kq, fd1, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, (void *)1);
	t_change(kq, fd2, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_ATTRIB, 0, (void *)2);

	t_write(fd1, "x", 1);
	T_WAIT1(kq, 2000, fd1, EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, (void *)1);
	T_EQ(t_wait(kq, ev, 4, 50), 0);

	T_ASSERT(fchmod(fd1, 0640) == 0);
	T_WAIT1(kq, 2000, fd2, EVFILT_VNODE, EV_CLEAR, NOTE_ATTRIB, 0, (void *)2);
	T_EQ(t_wait(kq, ev, 4, 50), 0);

	/* the first knote gone, the second still hears its notes */
	t_change(kq, fd1, EVFILT_VNODE, EV_DELETE, 0, 0, NULL);
	T_ASSERT(fchmod(fd1, 0600) == 0);
	T_WAIT1(kq, 2000, fd2, EVFILT_VNODE, EV_CLEAR, NOTE_ATTRIB, 0, (void *)2);
	T_NO_EVENTS(kq);
	return 0;
}
