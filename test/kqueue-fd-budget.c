/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue with only READ/WRITE knotes owns O(1) descriptors and creates no
 * threads: 3,000 socketpairs with READ knotes, WRITE knotes, EV_CLEAR on one
 * direction (which gives WRITE its own entry) and a regular file, and the
 * number of descriptors beyond the watched ones stays a small constant.
 * Closing the kqueue releases them (its inotify instance may stay, idle,
 * for a later kqueue).
 */
#include "t.h"

#define NPAIRS 3000
#define BUDGET 6   /* epoll, its private dup, wake eventfd, WRITE set, inotify, slack */

int main(void)
{
	static int sp[NPAIRS][2];
	int threads0 = t_count_dir("/proc/self/task");
	for (int i = 0; i < NPAIRS; i++)
		t_socketpair(sp[i]);
	const char *path;
	int file = t_tmp_file(&path);
	unlink(path);
	int before = t_count_fds();

	int kq = t_kqueue();
	for (int i = 0; i < NPAIRS; i++) {
		t_change(kq, sp[i][0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		t_change(kq, sp[i][0], EVFILT_WRITE,
			 EV_ADD | (i % 2 ? EV_CLEAR : 0), 0, 0, NULL);
	}
	t_change(kq, file, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, file, EVFILT_WRITE, EV_ADD, 0, 0, NULL);

	struct kevent ev[64];
	int got = 0;
	for (int round = 0; round < 200 && got < 2 * NPAIRS; round++)
		got += t_get(kq, ev, 64);
	T_ASSERT(got > 0);

	int owned = t_count_fds() - before;
	fprintf(stderr, "%d knotes, kqueue owns %d descriptors\n",
		2 * NPAIRS + 2, owned);
	if (owned > BUDGET)
		T_FAIL("kqueue owns %d descriptors for %d knotes (budget %d)",
		       owned, 2 * NPAIRS + 2, BUDGET);
	T_EQ(t_count_dir("/proc/self/task"), threads0);

	close(kq);
	T_EQ(t_count_fds_but_idle(), before);
	T_ASSERT(t_count_inotify() <= 4);
	return 0;
}
