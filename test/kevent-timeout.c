/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A 50 ms timeout on a queue without ready knotes returns 0 after at
 * least 50 ms (FreeBSD kevent(2)).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	struct kevent ev[2];
	struct timespec ts = { 0, 50000000 };
	for (int i = 0; i < 3; i++) {
		int64_t t0 = t_now_ns();
		int r = kevent(kq, NULL, 0, ev, 2, &ts);
		int64_t el = t_now_ns() - t0;
		if (r != 0)
			T_FAIL("returned %d (%s), expected 0", r,
			       strerror(errno));
		if (el < 50000000)
			T_FAIL("returned after %" PRId64 " ns < 50 ms", el);
		if (el > 2000000000)
			T_FAIL("returned after %" PRId64 " ms", el / 1000000);
	}

	/* Also on a queue with no knotes at all. */
	int kq2 = t_kqueue();
	int64_t t0 = t_now_ns();
	T_EQ(kevent(kq2, NULL, 0, ev, 2, &ts), 0);
	T_ASSERT(t_now_ns() - t0 >= 50000000);
	return 0;
}
