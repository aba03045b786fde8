/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ and WRITE on many eventfds at once: every record carries its own
 * eventfd's counter (READ: the counter; WRITE: 0xfffffffffffffffe less it),
 * round after round as the counters change, and deleting the knotes, then
 * closing the kqueue, leaves no descriptor of libkq's behind.
 */
#include "t.h"

#include <sys/eventfd.h>

#define N 40

int main(void)
{
	int base0 = t_count_fds();
	int kq = t_kqueue();
	int base = t_count_fds();
	int efd[N];
	struct kevent ev[2 * N + 1];

	for (int i = 0; i < N; i++) {
		efd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		T_ASSERT(efd[i] >= 0);
		t_change(kq, efd[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)i);
	}
	for (int round = 1; round <= 3; round++) {
		for (int i = 0; i < N; i++) {
			uint64_t v = (uint64_t)(i + 1);
			t_write(efd[i], &v, sizeof v);
		}
		T_EQ(t_get(kq, ev, 2 * N + 1), N);
		for (int k = 0; k < N; k++) {
			int i = (int)(intptr_t)ev[k].udata;
			T_ASSERT(i >= 0 && i < N);
			T_KEVENT(&ev[k], efd[i], EVFILT_READ, 0, 0,
				 (int64_t)round * (i + 1), (void *)(intptr_t)i);
		}
	}
	for (int i = 0; i < N; i++)
		t_change(kq, efd[i], EVFILT_WRITE, EV_ADD, 0, 0, (void *)(intptr_t)(N + i));
	T_EQ(t_get(kq, ev, 2 * N + 1), 2 * N);
	for (int k = 0; k < 2 * N; k++) {
		int u = (int)(intptr_t)ev[k].udata, i = u % N;
		if (u < N)
			T_KEVENT(&ev[k], efd[i], EVFILT_READ, 0, 0, 3 * (i + 1), ev[k].udata);
		else
			T_KEVENT(&ev[k], efd[i], EVFILT_WRITE, 0, 0,
				 (int64_t)(UINT64_C(0xfffffffffffffffe) - 3 * (uint64_t)(i + 1)),
				 ev[k].udata);
	}
	for (int i = 0; i < N; i++) {
		t_change(kq, efd[i], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		t_change(kq, efd[i], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	}
	T_EQ(t_count_fds(), base + N);

	/* again, and the kqueue closed with its knotes in place */
	for (int i = 0; i < N; i++)
		t_change(kq, efd[i], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_EQ(t_get(kq, ev, 2 * N + 1), N);
	T_ASSERT(close(kq) == 0);
	T_EQ(t_count_fds(), base0 + N);
	for (int i = 0; i < N; i++)
		T_ASSERT(close(efd[i]) == 0);
	return 0;
}
