/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A timeout of at most 1 ms sleeps until shortly before its deadline and
 * polls for the rest (mux/epoll.c).  Whatever becomes ready in either part
 * is returned: a writer thread writes one byte 100 us .. 1.2 ms into a
 * 1 ms wait (spread over 200 rounds, so some land in the sleep, some in the
 * polling and some after the deadline).  Each call returns the pipe's record
 * {r, READ, 0, 0, 1, udata}, or 0 only if the full millisecond has passed;
 * a write that lands before the call ends is never missed by the next call.
 */
#include "t.h"
#include <stdatomic.h>

static int p[2];
static atomic_long delay_ns;
static atomic_int go;

static void *writer(void *arg)
{
	(void)arg;
	for (;;) {
		int g;
		while ((g = atomic_load(&go)) == 0)
			;
		if (g < 0)
			return NULL;
		atomic_store(&go, 0);
		struct timespec d = { 0, atomic_load(&delay_ns) };
		nanosleep(&d, NULL);
		t_write(p[1], "x", 1);
	}
}

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[2];
	void *ud = (void *)0x55;
	pthread_t th;
	char c;

	t_pipe(p);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_ASSERT(pthread_create(&th, NULL, writer, NULL) == 0);
	int got = 0;
	for (int round = 0; round < 200; round++) {
		atomic_store(&delay_ns, 100000 + (round % 12) * 100000);
		struct timespec ts = { 0, 1000000 };
		int64_t t0 = t_now_ns();
		atomic_store(&go, 1);
		int n = kevent(kq, NULL, 0, ev, 2, &ts);
		int64_t el = t_now_ns() - t0;
		if (n == 1) {
			T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, ud);
			got++;
		} else {
			T_EQ(n, 0);
			if (el < 1000000)
				T_FAIL("round %d: 0 after %lld ns of a 1 ms timeout", round,
				       (long long)el);
			/* the write is still coming: the next wait must see it */
			T_WAIT1(kq, 5000, p[0], EVFILT_READ, 0, 0, 1, ud);
		}
		while (atomic_load(&go) != 0)
			;
		T_EQ(read(p[0], &c, 1), 1);
		T_NO_EVENTS(kq);
	}
	atomic_store(&go, -1);
	T_ASSERT(pthread_join(th, NULL) == 0);
	printf("%d of 200 writes seen within the 1 ms wait\n", got);
	T_ASSERT(close(kq) == 0);
	return 0;
}
