/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The descriptors libkq keeps for its kqueues are not the program's: on
 * FreeBSD those numbers are free.  close() of one fails with EBADF and
 * changes nothing; close_range() and closefrom() over them close the
 * program's descriptors around them; dup2() and dup3() from one fail with
 * EBADF, and onto one with EBUSY (the number cannot be given up while a
 * kqueue uses it); and every kqueue keeps working: a thread asleep in one
 * is still woken by a trigger, and records still come.
 */
#include "t.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>

static int kq;

/* Numbers open in the process that are none of the program's (mine[]). */
static int others(const char *mine, int *out, int max)
{
	DIR *d = opendir("/proc/self/fd");
	T_ASSERT(d != NULL);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int fd = atoi(e->d_name);
		if (fd == dirfd(d) || (fd < 8192 && mine[fd]))
			continue;
		if (n < max)
			out[n++] = fd;
	}
	closedir(d);
	return n;
}

static void *sleeper(void *arg)
{
	(void)arg;
	struct kevent ev;
	int n = kevent(kq, NULL, 0, &ev, 1, NULL);
	return (void *)(intptr_t)(n == 1 && ev.ident == 5 ? 0 : 1);
}

/* A trigger reaches a thread asleep in kq; a pipe's byte is a record. */
static void works(const char *after, int rd, int wr)
{
	pthread_t t;
	T_ASSERT(pthread_create(&t, NULL, sleeper, NULL) == 0);
	usleep(20000);
	t_change(kq, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	void *r;
	pthread_join(t, &r);
	if (r)
		T_FAIL("after %s: the sleeping thread got no trigger", after);
	t_write(wr, "x", 1);
	T_GET1(kq, rd, EVFILT_READ, 0, 0, 1, NULL);
	char c;
	T_EQ(read(rd, &c, 1), 1);
}

int main(void)
{
	static char mine[8192];
	for (int fd = 0; fd < 8192; fd++)
		mine[fd] = fcntl(fd, F_GETFD) >= 0;
	kq = t_kqueue();
	mine[kq] = 1;
	int p[2];
	t_pipe(p);
	mine[p[0]] = mine[p[1]] = 1;
	t_change(kq, 5, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	works("setting up", p[0], p[1]);   /* a waitset exists now */

	int lib[16];
	int n = others(mine, lib, 16);
	if (n < 1)
		T_FAIL("libkq holds no descriptor of its own? (none found)");
	for (int i = 0; i < n; i++) {
		errno = 0;
		if (close(lib[i]) != -1 || errno != EBADF)
			T_FAIL("close(%d), libkq's own: %d/%s, expected -1/EBADF", lib[i],
			       -1, strerror(errno));
		int x = dup(0);
		errno = 0;
		if (dup2(x, lib[i]) != -1 || errno != EBUSY)
			T_FAIL("dup2(%d, %d) onto libkq's own: expected -1/EBUSY (%s)", x,
			       lib[i], strerror(errno));
		errno = 0;
		if (dup3(x, lib[i], O_CLOEXEC) != -1 || errno != EBUSY)
			T_FAIL("dup3(%d, %d) onto libkq's own: expected -1/EBUSY (%s)", x,
			       lib[i], strerror(errno));
		errno = 0;
		if (dup2(lib[i], x) != -1 || errno != EBADF)
			T_FAIL("dup2(%d, %d) from libkq's own: expected -1/EBADF (%s)",
			       lib[i], x, strerror(errno));
		T_ASSERT(close(x) == 0);
	}
	works("close(), dup2() and dup3() of its numbers", p[0], p[1]);

	/* the program's close-everything: its own above kq+2 go, libkq's stay */
	int a = dup(0), b = fcntl(0, F_DUPFD, 5000);
	T_ASSERT(a >= 0 && b >= 5000);
	T_ASSERT(close_range((unsigned)p[1] + 1, ~0U, 0) == 0);
	if (fcntl(a, F_GETFD) != -1 || fcntl(b, F_GETFD) != -1)
		T_FAIL("close_range() left the program's %d or %d open", a, b);
	works("close_range() over its numbers", p[0], p[1]);
	a = dup(0);
	b = fcntl(0, F_DUPFD, 6000);
	closefrom(p[1] + 1);
	if (fcntl(a, F_GETFD) != -1 || fcntl(b, F_GETFD) != -1)
		T_FAIL("closefrom() left the program's %d or %d open", a, b);
	works("closefrom() over its numbers", p[0], p[1]);

	/* and once the kqueue is closed, nothing of libkq's is left */
	T_ASSERT(close(kq) == 0);
	mine[kq] = 0;
	int rest = others(mine, lib, 16);
	if (rest)
		T_FAIL("%d descriptors of libkq's left after its last kqueue closed "
		       "(first %d)", rest, lib[0]);
	return 0;
}
