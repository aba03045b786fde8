/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nchanges > 0 with a NULL changelist fails with -1/EFAULT (FreeBSD:
 * copyin fault).  Likewise nevents > 0 with a NULL eventlist (library
 * decision: an unwritable eventlist is EFAULT; the library checks
 * NULL, not other garbage pointers).  Neither may crash, also when events
 * are ready to be copied out.  NULL lists with zero counts are fine.
 */
#include "t.h"

int main(void)
{
	alarm(10);   /* watchdog: a blocked call kills the test */
	int kq = t_kqueue();
	struct kevent ev[2];
	struct timespec z = { 0, 0 };

	/* A NULL changelist with nchanges > 0. */
	T_ERRNO(kevent(kq, NULL, 1, NULL, 0, NULL), EFAULT);
	T_ERRNO(kevent(kq, NULL, 1, ev, 2, &z), EFAULT);
	T_ERRNO(kevent(kq, NULL, 1000, ev, 2, &z), EFAULT);

	/* NULL eventlist, nevents > 0, nothing ready. */
	T_ERRNO(kevent(kq, NULL, 0, NULL, 1, &z), EFAULT);

	/* NULL eventlist with a ready knote, zero and NULL timeouts. */
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "x", 1);
	T_ERRNO(kevent(kq, NULL, 0, NULL, 1, &z), EFAULT);
	T_ERRNO(kevent(kq, NULL, 0, NULL, 8, NULL), EFAULT);
	T_ERRNO(kevent(kq, NULL, 1, NULL, 8, &z), EFAULT);

	/* NULL lists with zero counts are valid. */
	T_EQ(kevent(kq, NULL, 0, NULL, 0, NULL), 0);
	T_EQ(kevent(kq, NULL, 0, NULL, 0, &z), 0);

	/* The ready event was not consumed by the failing calls. */
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
