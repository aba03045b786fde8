/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With the RLIMIT_NOFILE soft limit exhausted, kqueue() fails with
 * -1/EMFILE (FreeBSD kqueue(2) ERRORS).  Also checked: with exactly one
 * descriptor slot free, kqueue() either succeeds or fails with EMFILE
 * without leaking a descriptor, and once the limit is restored kqueue()
 * works again (a failed creation leaves no broken library state).
 */
#include "t.h"

#include <sys/resource.h>

#define MAXFILL 256

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return fd;
}

int main(void)
{
	struct rlimit old, low;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &old) == 0);
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < 64)
		T_SKIP("RLIMIT_NOFILE hard limit %llu too small",
		       (unsigned long long)old.rlim_max);

	/* Let the library do any one-time set-up with the normal limit. */
	int warm = kqueue();
	T_ASSERT(warm >= 0);
	T_EQ(close(warm), 0);

	int fill[MAXFILL], nfill = 0;
	low = old;
	low.rlim_cur = 64;
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &low) == 0);

	for (;;) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			T_EQ(errno, EMFILE);
			break;
		}
		if (nfill == MAXFILL)
			T_FAIL("could not exhaust the descriptor limit");
		fill[nfill++] = fd;
	}
	T_ASSERT(nfill > 0);

	/* Table full. */
	T_ERRNO(kqueue(), EMFILE);
	T_ERRNO(kqueuex(KQUEUE_CLOEXEC), EMFILE);
	T_ERRNO(kqueue1(O_CLOEXEC), EMFILE);

	/* One slot free: success, or EMFILE without a leak. */
	int freed = fill[--nfill];
	T_EQ(close(freed), 0);
	errno = 0;
	int kq = kqueue();
	if (kq >= 0) {
		struct kevent ev;
		T_EQ(t_get(kq, &ev, 1), 0);
		T_EQ(close(kq), 0);
	} else {
		T_EQ(errno, EMFILE);
	}
	T_EQ(lowest_free_fd(), freed);

	/* Restore the limit: kqueue() works again. */
	for (int i = 0; i < nfill; i++)
		close(fill[i]);
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &old) == 0);

	kq = kqueue();
	T_ASSERT(kq >= 0);
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	T_EQ(close(kq), 0);
	return 0;
}
