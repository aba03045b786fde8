/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An invalid timeout (tv_nsec outside [0, 10^9), tv_sec < 0)
 * with nevents > 0 makes kevent() fail with -1/EINVAL (FreeBSD kqueue_scan,
 * timespecvalid_interval).  The check happens when the scan starts, so
 * changes in the same call are applied first.
 */
#include "t.h"

#include <limits.h>

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[2];
	static const struct timespec bad[] = {
		{ 0, 1000000000 },      /* tv_nsec too big */
		{ -1, 0 },              /* tv_sec negative */
		{ 0, -5 },
		{ 0, -1 },
		{ 1, LONG_MAX },
		{ 0, LONG_MIN },
		{ -1, 999999999 },
		{ (time_t)INT64_MIN, 0 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		int r = kevent(kq, NULL, 0, ev, 2, &bad[i]);
		if (r != -1 || errno != EINVAL)
			T_FAIL("timeout {%lld, %ld}: %d/errno %d (%s), "
			       "expected -1/EINVAL", (long long)bad[i].tv_sec,
			       bad[i].tv_nsec, r, errno, strerror(errno));
	}

	/* The ADD is applied although the call fails. */
	int p[2];
	t_pipe(p);
	t_write(p[1], "ab", 2);
	struct kevent ch;
	struct timespec t = { 0, -5 };
	int tag;
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, &tag);
	T_ERRNO(kevent(kq, &ch, 1, ev, 1, &t), EINVAL);
	T_EQ(t_get(kq, ev, 2), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 2, &tag);

	/* Same with a negative tv_sec and a DELETE: the knote is gone. */
	struct timespec t2 = { -1, 0 };
	EV_SET(&ch, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_ERRNO(kevent(kq, &ch, 1, ev, 1, &t2), EINVAL);
	T_NO_EVENTS(kq);
	return 0;
}
