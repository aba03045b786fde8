/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() finds a descriptor's knotes in every kqueue that watches it, also
 * with more kqueues alive than libkq tracks by number (it keeps a short list
 * of the kqueues watching each descriptor, and visits all kqueues for one
 * watched by a kqueue past that list).  100 kqueues watch one pipe each
 * (every fifth one also a shared socket); closes, then the same numbers
 * reused, must find no knote left in any of them.
 */
#include "t.h"

#define NKQ 100

int main(void)
{
	int kq[NKQ], p[NKQ][2], sp[2];
	struct rlimit rl;
	T_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < 4 * NKQ + 64)
		T_SKIP("needs %d descriptors, the limit is %llu", 4 * NKQ + 64,
		       (unsigned long long)rl.rlim_cur);
	t_socketpair(sp);
	for (int i = 0; i < NKQ; i++) {
		kq[i] = t_kqueue();
		t_pipe(p[i]);
		t_change(kq[i], p[i][0], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)(i + 1));
		if (i % 5 == 4)
			t_change(kq[i], sp[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	}
	t_write(sp[1], "s", 1);
	for (int i = 0; i < NKQ; i++) {
		t_write(p[i][1], "x", 1);
		struct kevent ev[4];
		T_EQ(t_get(kq[i], ev, 4), i % 5 == 4 ? 2 : 1);
	}

	/* Closed with data pending: no record, and the numbers, reused by
	 * descriptors that have data too, are not watched anywhere. */
	int x = sp[0];
	T_EQ(close(x), 0);
	for (int i = 0; i < NKQ; i++)
		T_EQ(close(p[i][0]), 0);
	int q[2];
	t_socketpair(q);
	T_EQ(q[0], x);
	t_write(q[1], "q", 1);
	for (int i = 0; i < NKQ; i++) {
		int r[2];
		t_pipe(r);
		t_write(r[1], "y", 1);
		T_NO_EVENTS(kq[i]);
		t_change_fails(kq[i], r[0], EVFILT_READ, EV_DELETE, NULL, ENOENT);
		t_change_fails(kq[i], x, EVFILT_READ, EV_DELETE, NULL, ENOENT);
		close(r[0]);
		close(r[1]);
	}
	return 0;
}
