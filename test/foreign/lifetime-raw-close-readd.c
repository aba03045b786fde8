/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A close that no interposition sees (syscall(SYS_close), io_uring, a close
 * inside libc) leaves libkq's knote on the number.  The next EV_ADD on the
 * reused number must watch the file now there, and the stale knote of the
 * closed file must not answer for the new file (its filter, its udata):
 * on FreeBSD it died with the close.
 */
#include "../t.h"
#include "foreign.h"

/* READ re-added on a pipe at the number of a raw-closed pipe */
static void readd_same_filter(unsigned short extra)
{
	int kq = t_kqueue(), p[2], q[2];
	struct kevent ev[4];

	t_pipe(p);
	int fd = p[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD | extra, 0, 0, (void *)1);
	T_ASSERT(foreign_raw_close(fd) == 0);
	t_pipe(q);
	T_EQ(q[0], fd);
	t_change(kq, fd, EVFILT_READ, EV_ADD | extra, 0, 0, (void *)2);
	t_write(q[1], "yy", 2);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, extra, 0, 2, (void *)2);
	close(kq);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

/* WRITE added on a socket at the number of a raw-closed socket that had a
 * READ knote: only the new knote reports */
static void add_other_filter(void)
{
	int kq = t_kqueue(), a[2], b[2];
	struct kevent ev[4];

	t_socketpair(a);
	int fd = a[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	T_ASSERT(foreign_raw_close(fd) == 0);
	t_socketpair(b);
	T_EQ(b[0], fd);
	t_write(b[1], "abc", 3);   /* readable now: no READ knote may say so */
	t_change(kq, fd, EVFILT_WRITE, EV_ADD, 0, 0, (void *)3);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_ASSERT(ev[0].filter == EVFILT_WRITE && ev[0].udata == (void *)3 &&
		 ev[0].ident == (uintptr_t)fd && ev[0].flags == 0 && ev[0].data > 0);
	/* the READ knote died with the closed file */
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	close(kq);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

int main(void)
{
	readd_same_filter(0);
	readd_same_filter(EV_CLEAR);
	add_other_filter();
	return 0;
}
