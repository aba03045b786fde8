/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A timeout with tv_sec > INT32_MAX (here INT32_MAX + 1 and the largest
 * time_t) is valid and treated as infinite (FreeBSD kqueue_scan), so a wait
 * that an event from another thread ends after 10 ms returns 1 -- not
 * EINVAL, and not an early 0 from an overflowing deadline.  INT32_MAX
 * itself (a finite 68-year timeout) behaves the same.
 */
#include "t.h"

#include <pthread.h>

static int p[2];

static void *writer(void *arg)
{
	(void)arg;
	t_sleep_ms(10);
	t_write(p[1], "x", 1);
	return NULL;
}

int main(void)
{
	alarm(20);   /* watchdog: a lost wake-up kills the test */
	_Static_assert(sizeof(time_t) == 8, "64-bit time_t expected");
	int kq = t_kqueue();
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, p);

	static const struct timespec huge[] = {
		{ (time_t)INT32_MAX + 1, 0 },
		{ (time_t)INT32_MAX + 1, 999999999 },
		{ (time_t)INT64_MAX, 999999999 },
		{ (time_t)INT32_MAX, 0 },
	};
	for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
		pthread_t th;
		T_ASSERT(pthread_create(&th, NULL, writer, NULL) == 0);
		struct kevent ev[2];
		int64_t t0 = t_now_ns();
		errno = 0;
		int r = kevent(kq, NULL, 0, ev, 2, &huge[i]);
		int64_t el = t_now_ns() - t0;
		T_ASSERT(pthread_join(th, NULL) == 0);
		if (r != 1)
			T_FAIL("timeout {%lld, %ld}: returned %d (%s) after %"
			       PRId64 " ms, expected 1",
			       (long long)huge[i].tv_sec, huge[i].tv_nsec, r,
			       strerror(errno), el / 1000000);
		T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, p);
		char c;
		T_EQ(read(p[0], &c, 1), 1);
	}
	return 0;
}
