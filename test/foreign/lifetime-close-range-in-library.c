/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close_range() and closefrom() made by a shared library that does not link
 * libkq remove the knotes of every number they close (FreeBSD), including a
 * kqueue in the range, and leave the others alone.
 */
#include "../t.h"
#include "foreign.h"

#define N 8

static void check(int use_closefrom)
{
	int kq = t_kqueue(), keep[2], p[N][2];
	struct kevent ev[4];

	t_pipe(keep);
	for (int i = 0; i < N; i++)
		t_pipe(p[i]);
	int inner = t_kqueue();
	int lo = p[0][0], hi = inner;
	for (int i = 0; i < N; i++) {
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		t_write(p[i][1], "x", 1);
	}
	t_change(kq, keep[0], EVFILT_READ, EV_ADD, 0, 0, (void *)7);
	T_ASSERT(keep[0] < lo && kq < lo);

	if (use_closefrom)
		foreign_closefrom(lo);
	else
		T_ASSERT(foreign_close_range((unsigned)lo, (unsigned)hi, 0) == 0);

	errno = 0;
	T_ASSERT(kevent(inner, NULL, 0, NULL, 0, NULL) == -1 && errno == EBADF);
	for (int i = 0; i < N; i++)
		T_EQ(t_change_err(kq, p[i][0], EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);
	t_write(keep[1], "yz", 2);
	T_EQ(t_wait(kq, ev, 4, 1000), 1);
	T_KEVENT(&ev[0], keep[0], EVFILT_READ, 0, 0, 2, (void *)7);
	close(kq);
	close(keep[0]);
	close(keep[1]);
}

int main(void)
{
	check(0);
	check(1);
	return 0;
}
