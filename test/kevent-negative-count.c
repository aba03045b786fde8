/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A negative nchanges or nevents makes kevent() fail with
 * -1/EINVAL (FreeBSD kqueue_kevent: nchanges < 0 -> EINVAL before anything
 * is read, so also with a NULL changelist; kqueue_scan: nevents < 0 ->
 * EINVAL).  The call must never crash and never write the eventlist.
 */
#include "t.h"

#include <limits.h>

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	struct kevent ch, ev[2], pattern[2];
	struct timespec z = { 0, 0 };
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	memset(ev, 0x5a, sizeof ev);
	memset(pattern, 0x5a, sizeof pattern);

	/* A negative nchanges. */
	T_ERRNO(kevent(kq, &ch, -1, NULL, 0, NULL), EINVAL);
	T_ERRNO(kevent(kq, &ch, -1, ev, 2, &z), EINVAL);
	T_ERRNO(kevent(kq, &ch, INT_MIN, ev, 2, &z), EINVAL);
	T_ERRNO(kevent(kq, NULL, -1, NULL, 0, NULL), EINVAL);
	T_ERRNO(kevent(kq, NULL, INT_MIN, ev, 2, &z), EINVAL);

	/* A negative nevents (a ready knote exists, so a negative count used
	 * as a size would be noticed). */
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_write(p[1], "x", 1);
	T_ERRNO(kevent(kq, NULL, 0, ev, -1, &z), EINVAL);
	T_ERRNO(kevent(kq, NULL, 0, ev, INT_MIN, &z), EINVAL);
	T_ERRNO(kevent(kq, NULL, 0, ev, -1, NULL), EINVAL);
	T_ERRNO(kevent(kq, NULL, 0, NULL, -1, &z), EINVAL);
	if (memcmp(ev, pattern, sizeof ev) != 0)
		T_FAIL("eventlist was written");

	/* The queue still works. */
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, NULL);
	return 0;
}
