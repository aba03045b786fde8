/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With nevents = 0 kevent() returns 0 at once after applying the
 * changes, whatever the timeout (NULL or 5 s), without waiting and without
 * consuming ready events (FreeBSD kevent(2); kqueue_scan returns at once for
 * maxevents == 0).
 */
#include "t.h"

static void quick(int kq, const struct kevent *ch, int nch,
		  const struct timespec *ts, const char *what)
{
	struct kevent ev[1];
	int64_t t0 = t_now_ns();
	int r = kevent(kq, ch, nch, ev, 0, ts);
	int64_t ms = (t_now_ns() - t0) / 1000000;
	if (r != 0)
		T_FAIL("%s: returned %d (%s), expected 0", what, r,
		       strerror(errno));
	if (ms > 500)
		T_FAIL("%s: took %" PRId64 " ms, expected no wait", what, ms);
}

int main(void)
{
	alarm(20);   /* watchdog: a call that blocks forever kills the test */
	int kq = t_kqueue();
	struct timespec five = { 5, 0 };

	/* Empty queue. */
	quick(kq, NULL, 0, NULL, "NULL timeout");
	quick(kq, NULL, 0, &five, "5 s timeout");
	T_EQ(kevent(kq, NULL, 0, NULL, 0, NULL), 0);

	/* With a change: applied, still no wait. */
	int p[2];
	t_pipe(p);
	struct kevent ch;
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, &ch);
	quick(kq, &ch, 1, NULL, "ADD, NULL timeout");

	/* With a ready knote: not consumed. */
	t_write(p[1], "x", 1);
	quick(kq, NULL, 0, NULL, "ready, NULL timeout");
	quick(kq, NULL, 0, &five, "ready, 5 s timeout");

	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &ch);
	return 0;
}
