/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() on a descriptor that is not a kqueue fails with
 * -1/EBADF (FreeBSD kqueue_acquire / fget): a regular file, a pipe, a
 * socket, a foreign epoll fd, a closed number, a closed kqueue's number,
 * -1, INT_MIN, INT_MAX, with and without changes, and never applies the
 * changes or touches the eventlist.
 */
#include "t.h"

#include <limits.h>
#include <sys/epoll.h>

static struct kevent ch, ev[2];
static struct timespec z = { 0, 0 };

static void check(int fd, const char *what)
{
	memset(ev, 0x5a, sizeof ev);
	struct kevent pattern[2];
	memset(pattern, 0x5a, sizeof pattern);

	errno = 0;
	int r = kevent(fd, NULL, 0, ev, 2, &z);
	if (r != -1 || errno != EBADF)
		T_FAIL("%s: kevent(get) = %d/errno %d (%s), expected -1/EBADF",
		       what, r, errno, strerror(errno));
	errno = 0;
	r = kevent(fd, &ch, 1, ev, 2, &z);
	if (r != -1 || errno != EBADF)
		T_FAIL("%s: kevent(change) = %d/errno %d (%s), expected "
		       "-1/EBADF", what, r, errno, strerror(errno));
	errno = 0;
	r = kevent(fd, &ch, 1, NULL, 0, NULL);
	if (r != -1 || errno != EBADF)
		T_FAIL("%s: kevent(change, nevents 0) = %d/errno %d (%s), "
		       "expected -1/EBADF", what, r, errno, strerror(errno));
	errno = 0;
	r = kevent(fd, NULL, 0, NULL, 0, NULL);
	if (r != -1 || errno != EBADF)
		T_FAIL("%s: kevent(nothing) = %d/errno %d (%s), expected "
		       "-1/EBADF", what, r, errno, strerror(errno));
	if (memcmp(ev, pattern, sizeof ev) != 0)
		T_FAIL("%s: eventlist was written", what);
}

int main(void)
{
	int p[2];
	t_pipe(p);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	/* A regular file. */
	const char *path;
	int file = t_tmp_file(&path);
	unlink(path);
	check(file, "regular file");

	check(p[0], "pipe read end");
	check(p[1], "pipe write end");
	int sp[2];
	t_socketpair(sp);
	check(sp[0], "socket");
	int ep = epoll_create1(EPOLL_CLOEXEC);
	T_ASSERT(ep >= 0);
	check(ep, "epoll fd not created by kqueue()");

	/* Closed descriptor numbers. */
	int fd = open("/dev/null", O_RDONLY);
	T_ASSERT(fd >= 0);
	T_EQ(close(fd), 0);
	check(fd, "closed fd");

	int kq = t_kqueue();
	T_EQ(close(kq), 0);
	check(kq, "closed kqueue");

	/* A closed kqueue's number reused by a regular file. */
	int kq2 = t_kqueue();
	T_EQ(close(kq2), 0);
	T_EQ(dup2(file, kq2), kq2);
	check(kq2, "closed kqueue's number now a regular file");

	check(-1, "-1");
	check(INT_MIN, "INT_MIN");
	check(INT_MAX, "INT_MAX");
	check(1 << 30, "1 << 30");

	/* The changes never reached any kqueue: a new one works normally. */
	kq = t_kqueue();
	T_NO_EVENTS(kq);
	return 0;
}
