/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ knote on fd X with data queued; close(X); a new pipe's
 * read end gets the number X.  The new file starts with no knote: EV_DELETE
 * {X, READ} fails with ENOENT, data written to the new pipe produces no
 * record (a Linux pitfall: epoll would report through the old registration),
 * and a fresh EV_ADD {X, READ} with another udata reports only the new
 * pipe's bytes with the new udata, never the old file's.  Run twice:
 * once with the old file gone, once with the old file kept alive by a dup
 * (and written to), the case a user-space library finds hard.
 */
#include "t.h"

/* Returns a descriptor for fd's file numbered exactly want (must be free). */
static int move_to(int fd, int want)
{
	if (fd == want)
		return fd;
	int n = fcntl(fd, F_DUPFD, want);
	if (n != want)
		T_FAIL("fcntl(F_DUPFD, %d) gave %d", want, n);
	T_EQ(close(fd), 0);
	return n;
}

static void run(int keep_dup)
{
	int kq = t_kqueue();
	int o[2], n[2], od = -1;
	void *ua = (void *)0x201, *ub = (void *)0x202;
	char buf[16];

	t_pipe(o);
	int x = o[0];
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, ua);
	t_write(o[1], "abc", 3);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 3, ua);
	if (keep_dup) {
		od = dup(x);
		T_ASSERT(od >= 0);
	}
	T_EQ(close(x), 0);
	if (!keep_dup)
		T_EQ(close(o[1]), 0);

	t_pipe(n);
	n[0] = move_to(n[0], x);

	/* The new file has no knote. */
	t_change_fails(kq, x, EVFILT_READ, EV_DELETE, NULL, ENOENT);

	/* Its data produces no record. */
	t_write(n[1], "12345", 5);
	T_NO_EVENTS(kq);
	if (keep_dup) {
		t_write(o[1], "de", 2);
		T_NO_EVENTS(kq);
	}

	/* A fresh EV_ADD reports the new pipe's bytes with the new udata. */
	t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, ub);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 5, ub);
	if (keep_dup) {
		t_write(o[1], "f", 1);
		T_GET1(kq, x, EVFILT_READ, 0, 0, 5, ub);
	}
	T_EQ(read(x, buf, sizeof buf), 5);
	T_NO_EVENTS(kq);
	t_write(n[1], "6", 1);
	T_GET1(kq, x, EVFILT_READ, 0, 0, 1, ub);

	T_EQ(close(kq), 0);
	T_EQ(close(n[0]), 0);
	T_EQ(close(n[1]), 0);
	if (keep_dup) {
		T_EQ(close(od), 0);
		T_EQ(close(o[1]), 0);
	}
}

int main(void)
{
	run(0);
	run(1);
	return 0;
}
