/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A WRITE knote that is always ready must not starve a ready READ knote
 * when the application collects one record at a time.  FreeBSD re-queues a
 * returned level knote at the tail, so with the WRITE knote
 * registered first, get(1) returns WRITE, READ, WRITE, READ, ...: the READ
 * knote must come within the first 2 calls, and over 10 calls each knote is
 * reported at least 4 times.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int pw[2], pr[2];
	struct kevent ev[1];
	void *uw = (void *)(uintptr_t)0x312, *ur = (void *)(uintptr_t)0x313;
	int nr = 0, nw = 0, first_r = -1;

	t_pipe(pw);
	t_pipe(pr);
	t_change(kq, pw[1], EVFILT_WRITE, EV_ADD, 0, 0, uw);
	t_write(pr[1], "x", 1);
	t_change(kq, pr[0], EVFILT_READ, EV_ADD, 0, 0, ur);

	for (int i = 0; i < 10; i++) {
		T_EQ(t_get(kq, ev, 1), 1);
		if (ev[0].filter == EVFILT_READ) {
			T_KEVENT(&ev[0], pr[0], EVFILT_READ, 0, 0, 1, ur);
			if (first_r < 0)
				first_r = i;
			nr++;
		} else {
			if (ev[0].data <= 0)
				T_FAIL("WRITE record with data %" PRId64,
				       ev[0].data);
			T_KEVENT(&ev[0], pw[1], EVFILT_WRITE, 0, 0, ev[0].data,
				 uw);
			nw++;
		}
	}
	if (first_r < 0 || first_r > 1)
		T_FAIL("READ knote first reported in call %d (expected 0 or 1)",
		       first_r);
	if (nr < 4 || nw < 4)
		T_FAIL("unfair rotation over 10 x get(1): READ %d, WRITE %d",
		       nr, nw);
	return 0;
}
