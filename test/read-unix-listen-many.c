/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on several AF_UNIX stream listeners at once, in two kqueues: each
 * record carries its own listener's count of waiting connections (here 1,
 * 2 and 3), round after round, and as connections are accepted.  Asking
 * the counts again and again opens no descriptor beyond the first round's,
 * and closing the kqueues leaves none of libkq's behind.
 */
#include "t.h"

#define NL 3

int main(void)
{
	int base0 = t_count_fds();
	int kq[2] = { t_kqueue(), t_kqueue() };
	int l[NL], c[NL][NL];
	struct sockaddr_un sun[NL];
	socklen_t len[NL];
	struct kevent ev[8];

	for (int i = 0; i < NL; i++) {
		l[i] = t_unix_listener_abstract(16, i, &sun[i], &len[i]);
		for (int k = 0; k <= i; k++) {
			c[i][k] = socket(AF_UNIX, SOCK_STREAM, 0);
			T_ASSERT(c[i][k] >= 0);
			T_ASSERT(connect(c[i][k], (struct sockaddr *)&sun[i], len[i]) == 0);
		}
		for (int q = 0; q < 2; q++)
			t_change(kq[q], l[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)i);
	}
	int fds = -1;
	for (int round = 0; round < 50; round++) {
		for (int q = 0; q < 2; q++) {
			T_EQ(t_get(kq[q], ev, 8), NL);
			for (int k = 0; k < NL; k++) {
				int i = (int)(intptr_t)ev[k].udata;
				T_ASSERT(i >= 0 && i < NL);
				T_KEVENT(&ev[k], l[i], EVFILT_READ, 0, 0, i + 1, ev[k].udata);
			}
		}
		if (round == 0)
			fds = t_count_fds();
		else
			T_EQ(t_count_fds(), fds);
	}
	/* one connection accepted from each: one less everywhere, and the
	 * first listener drops out */
	for (int i = 0; i < NL; i++) {
		int a = accept(l[i], NULL, NULL);
		T_ASSERT(a >= 0);
		close(a);
	}
	for (int q = 0; q < 2; q++) {
		T_EQ(t_get(kq[q], ev, 8), NL - 1);
		for (int k = 0; k < NL - 1; k++) {
			int i = (int)(intptr_t)ev[k].udata;
			T_ASSERT(i >= 1 && i < NL);
			T_KEVENT(&ev[k], l[i], EVFILT_READ, 0, 0, i, ev[k].udata);
		}
	}
	T_ASSERT(close(kq[0]) == 0 && close(kq[1]) == 0);
	T_EQ(t_count_fds(), base0 + NL + NL * (NL + 1) / 2);
	return 0;
}
