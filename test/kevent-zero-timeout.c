/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A zero timeout {0, 0} on an empty queue returns 0 immediately (FreeBSD
 * kevent(2): a zero timespec polls).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[4];
	struct timespec z = { 0, 0 };
	int64_t t0 = t_now_ns();
	for (int i = 0; i < 100; i++)
		T_EQ(kevent(kq, NULL, 0, ev, 4, &z), 0);
	int64_t ms = (t_now_ns() - t0) / 1000000;
	if (ms > 500)
		T_FAIL("100 zero-timeout calls took %" PRId64 " ms", ms);

	/* Also with a non-ready knote registered. */
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t0 = t_now_ns();
	T_EQ(kevent(kq, NULL, 0, ev, 4, &z), 0);
	ms = (t_now_ns() - t0) / 1000000;
	if (ms > 200)
		T_FAIL("zero-timeout call took %" PRId64 " ms", ms);
	return 0;
}
