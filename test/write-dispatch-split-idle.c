/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A WRITE knote with EV_DISPATCH beside an EV_CLEAR READ knote on one
 * socket (the two directions then have separate epoll entries in libkq),
 * delivered once and so disabled, must leave a waiting kevent() asleep:
 * {fd, WRITE, EV_DISPATCH, 0, space, udata}, then a 300 ms wait returns 0
 * records having used almost no processor time (a disabled knote whose
 * level entry kept reporting would make the wait spin through its whole
 * timeout), and after EV_ENABLE the WRITE record comes again.
 */
#include "t.h"

static void *const UW = (void *)0x3717e;

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
	int sv[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	int kq = t_kqueue();
	t_change(kq, sv[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, sv[0], EVFILT_WRITE, EV_ADD | EV_DISPATCH, 0, 0, UW);

	for (int round = 0; round < 3; round++) {
		struct kevent ev[4];
		int n = t_get(kq, ev, 4);
		if (n != 1 || ev[0].filter != EVFILT_WRITE || ev[0].flags != EV_DISPATCH ||
		    ev[0].udata != UW || ev[0].data <= 0)
			T_FAIL("round %d: expected one WRITE record, got %d", round, n);
		int64_t cpu0 = thread_cpu_ns();
		struct timespec ts = { 0, 300000000 };
		n = kevent(kq, NULL, 0, ev, 4, &ts);
		int64_t cpu = thread_cpu_ns() - cpu0;
		if (n != 0)
			T_FAIL("round %d: %d records from a disabled knote", round, n);
		if (cpu > 100000000)
			T_FAIL("round %d: the 300 ms wait used %" PRId64 " ms of processor time",
			       round, cpu / 1000000);
		t_change(kq, sv[0], EVFILT_WRITE, EV_ENABLE, 0, 0, UW);
	}
	return 0;
}
