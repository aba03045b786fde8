/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * When a change produced an EV_ERROR record, kevent() returns the
 * record(s) at once: it neither collects ready events nor waits, whatever the
 * timeout (NULL or 5 s), also on a kqueue with nothing ready.  The ready event
 * is still there for the next call (FreeBSD: `if (nerrors) return`).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), empty = t_kqueue();
	int a[2], b[2];
	int ua, ub;
	struct kevent ch, ev[4];
	struct timespec five = { 5, 0 };

	t_fail_after(4, "kevent() waited after an error record");

	t_pipe(a);
	t_pipe(b);
	t_write(a[1], "x", 1);
	t_change(kq, a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	EV_SET(&ch, b[0], EVFILT_READ, EV_DELETE, 0, 0, &ub);

	/* Ready knote present, NULL timeout. */
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, &ch, 1, ev, 4, NULL), 1);
	T_KEVENT(&ev[0], b[0], EVFILT_READ, EV_ERROR, 0, ENOENT, &ub);
	for (int i = 1; i < 4; i++)
		T_ASSERT(t_untouched(&ev[i]));

	/* Nothing ready, NULL timeout and 5 s timeout: no wait. */
	int64_t t0 = t_now_ns();
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(empty, &ch, 1, ev, 4, NULL), 1);
	T_KEVENT(&ev[0], b[0], EVFILT_READ, EV_ERROR, 0, ENOENT, &ub);
	T_ASSERT(t_untouched(&ev[1]));
	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(empty, &ch, 1, ev, 4, &five), 1);
	T_KEVENT(&ev[0], b[0], EVFILT_READ, EV_ERROR, 0, ENOENT, &ub);
	int64_t ms = (t_now_ns() - t0) / 1000000;
	if (ms > 1000)
		T_FAIL("error-record calls took %lld ms", (long long)ms);
	alarm(0);

	/* The ready event was not consumed. */
	T_GET1(kq, a[0], EVFILT_READ, 0, 0, 1, &ua);
	return 0;
}
