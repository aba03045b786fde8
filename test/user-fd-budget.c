/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue with 10,000 USER knotes owns O(1) descriptors and creates no
 * threads: all user events of a kqueue share its one eventfd (library
 * decision: no descriptor per knote).  Half of the knotes are EV_CLEAR, 1,000
 * are triggered and collected; the descriptors the kqueue adds stay within a
 * small constant, and closing the kqueue gives them all back.
 */
#include "t.h"

#define NKNOTES 10000
#define BUDGET 6   /* epoll, its private dup, eventfd, timerfd, slack */

int main(void)
{
	int threads0 = t_count_dir("/proc/self/task");
	int before = t_count_fds();

	int kq = t_kqueue();
	for (int i = 0; i < NKNOTES; i++)
		t_change(kq, (uintptr_t)i, EVFILT_USER,
			 EV_ADD | (i % 2 ? EV_CLEAR : 0), 0, 0, NULL);
	for (int i = 0; i < NKNOTES; i += 10)
		t_change(kq, (uintptr_t)i + (i / 10) % 2, EVFILT_USER, 0,
			 NOTE_TRIGGER, 0, NULL);

	struct kevent ev[64];
	int got = 0;
	for (int round = 0; round < 40; round++)
		got += t_get(kq, ev, 64);
	if (got < NKNOTES / 10)
		T_FAIL("collected %d records, expected at least %d", got,
		       NKNOTES / 10);

	int owned = t_count_fds() - before;
	fprintf(stderr, "%d USER knotes, kqueue owns %d descriptors\n",
		NKNOTES, owned);
	if (owned > BUDGET)
		T_FAIL("kqueue owns %d descriptors for %d USER knotes "
		       "(budget %d)", owned, NKNOTES, BUDGET);
	T_EQ(t_count_dir("/proc/self/task"), threads0);

	close(kq);
	T_EQ(t_count_fds(), before);
	return 0;
}
