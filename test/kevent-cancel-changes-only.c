/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() with nevents = 0 is not a cancellation point (FreeBSD
 * kevent(2) CANCELLATION BEHAVIOUR): with a cancellation request pending
 * (deferred type), a call with one change and nevents = 0 applies the change
 * and returns 0 normally; the request is then acted upon at
 * pthread_testcancel().
 */
#include "t_cancel.h"

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(20);   /* watchdog */
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);

	struct t_cancel_add a = { .kq = kq, .fd = p[0], .udata = &kq };
	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, t_cancel_add_main, &a) == 0);
	t_cancel_add_check(th, &a);

	/* The change was applied. */
	T_NO_EVENTS(kq);
	t_write(p[1], "x", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, &kq);
	return 0;
}
