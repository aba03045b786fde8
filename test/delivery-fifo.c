/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ready queue is FIFO by activation (FreeBSD knote_enqueue appends
 * to the tail): three READ|EV_CLEAR knotes registered in the order p3, p2,
 * p1, then written in the order p1, p2, p3; get(1) three times returns p1,
 * p2, p3 in that order, and then nothing.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[3][2];
	struct kevent ev[1];

	for (int i = 0; i < 3; i++)
		t_pipe(p[i]);
	for (int i = 2; i >= 0; i--)
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0,
			 (void *)(uintptr_t)(i + 1));
	T_NO_EVENTS(kq);
	for (int i = 0; i < 3; i++)
		t_write(p[i][1], "x", 1);
	for (int i = 0; i < 3; i++) {
		T_EQ(t_get(kq, ev, 1), 1);
		T_KEVENT(&ev[0], p[i][0], EVFILT_READ, EV_CLEAR, 0, 1,
			 (void *)(uintptr_t)(i + 1));
	}
	T_NO_EVENTS(kq);
	return 0;
}
