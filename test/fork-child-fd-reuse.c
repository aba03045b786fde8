/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * In a fork child the parent's kqueue number is free, so
 * the child's own opens get it like any free number: the child opens
 * /dev/null until it is handed the kqueue's number (the lowest free numbers
 * come first), uses that descriptor normally, and creates its own kqueue,
 * which works.  The parent's kqueue (with a READ knote with data queued and
 * a USER knote) is unaffected.
 */
#include "t.h"

#include <sys/wait.h>

static int child(int kq, int p0)
{
	int got = -1, fds[64], n = 0;
	struct kevent ev[4];

	alarm(4);
	if (fcntl(kq, F_GETFD) != -1 || errno != EBADF) {
		fprintf(stderr, "child: kqueue number %d still open\n", kq);
		return 1;
	}
	while (n < 64) {
		int fd = open("/dev/null", O_RDWR);
		if (fd < 0) {
			fprintf(stderr, "child: open: %s\n", strerror(errno));
			return 1;
		}
		fds[n++] = fd;
		if (fd == kq) {
			got = fd;
			break;
		}
		if (fd > kq)
			break;
	}
	if (got != kq) {
		fprintf(stderr, "child: opens went past %d without getting "
			"it (last %d): the number is not free\n", kq,
			fds[n - 1]);
		return 1;
	}
	if (write(got, "abc", 3) != 3) {
		fprintf(stderr, "child: write to /dev/null on %d failed\n", got);
		return 1;
	}
	/* Its own kqueue works, watching the inherited pipe. */
	int k = kqueue();
	if (k < 0) {
		fprintf(stderr, "child: kqueue: %s\n", strerror(errno));
		return 1;
	}
	t_change(k, p0, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(k, 5, EVFILT_USER, EV_ADD, 0, 0, NULL);
	t_change(k, 5, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	if (t_get(k, ev, 4) != 2) {
		fprintf(stderr, "child: own kqueue did not report 2 events\n");
		return 1;
	}
	for (int i = 0; i < n; i++)
		close(fds[i]);
	return 0;
}

int main(void)
{
	int kq = t_kqueue(), p[2];
	void *u = (void *)0x1001;
	struct kevent ev[8];

	t_fail_after(5, "fork-child-fd-reuse: still running after 5 s");
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, u);
	t_change(kq, 1, EVFILT_USER, EV_ADD, 0, 0, u);
	t_write(p[1], "pp", 2);
	T_EQ(t_get(kq, ev, 8), 1);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit(child(kq, p[0]));
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("child failed (status 0x%x)", st);

	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 2, u);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, u);
	T_EQ(t_get(kq, ev, 8), 2);
	alarm(0);
	return 0;
}
