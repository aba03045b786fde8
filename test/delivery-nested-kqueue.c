/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kq1 watches kq2 with a level READ knote; kq2 holds a ready READ knote
 * (pipe with data).  Collecting on kq1 does not drain kq2, so two gets on
 * kq1 both return {kq2, READ, 0, 0, data 1 (= knotes queued on kq2)}, and
 * kq2 still reports its pipe afterwards.  Once the pipe is drained and kq2
 * has been scanned (dropping the stale knote), kq2 has nothing queued and kq1
 * reports nothing (FreeBSD filt_kqueue: data = kq_count).
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int p[2];
	char c;
	void *u1 = (void *)(uintptr_t)0x3081, *u2 = (void *)(uintptr_t)0x3082;

	t_pipe(p);
	t_change(kq2, p[0], EVFILT_READ, EV_ADD, 0, 0, u2);
	t_write(p[1], "x", 1);
	t_change(kq1, kq2, EVFILT_READ, EV_ADD, 0, 0, u1);

	for (int i = 0; i < 2; i++) {
		T_GET1(kq1, kq2, EVFILT_READ, 0, 0, 1, u1);
	}
	T_GET1(kq2, p[0], EVFILT_READ, 0, 0, 1, u2);
	T_GET1(kq1, kq2, EVFILT_READ, 0, 0, 1, u1);

	T_EQ(read(p[0], &c, 1), 1);
	T_NO_EVENTS(kq2);
	T_NO_EVENTS(kq1);
	return 0;
}
