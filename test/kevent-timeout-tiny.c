/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Very short timeouts (1 us, 1 ns) on an empty queue return 0 and never
 * before the requested time has passed (the timeout is a minimum;
 * the library must round up, never down, e.g. when converting to epoll's
 * milliseconds).  1.5 ms and 2.5 ms catch a rounding down to whole
 * milliseconds.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);

	static const long ns[] = { 1, 1000, 999999, 1500000, 2500000 };
	struct kevent ev[2];
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		for (int rep = 0; rep < 20; rep++) {
			struct timespec ts = { 0, ns[i] };
			int64_t t0 = t_now_ns();
			int r = kevent(kq, NULL, 0, ev, 2, &ts);
			int64_t el = t_now_ns() - t0;
			if (r != 0)
				T_FAIL("timeout %ld ns: returned %d (%s)",
				       ns[i], r, strerror(errno));
			if (el < ns[i])
				T_FAIL("timeout %ld ns: returned after %"
				       PRId64 " ns", ns[i], el);
			if (el > 1000000000)
				T_FAIL("timeout %ld ns: took %" PRId64 " ms",
				       ns[i], el / 1000000);
		}
	}
	return 0;
}
