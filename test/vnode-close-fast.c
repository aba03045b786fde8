/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() of a kqueue holding an EVFILT_VNODE knote returns in
 * microseconds, as on FreeBSD.  Closing an inotify instance that held
 * watches waits in the kernel for its marks to be reaped (an SRCU grace
 * period, a few milliseconds and sometimes tens), so libkq must not make
 * the program wait for that.
 *
 * 50 rounds of kqueue(), one VNODE knote, close(): the median close must
 * stay under 0.1 ms, and at most 2 closes may take over 2 ms while the
 * thread slept in them (a voluntary context switch; a close that waits for
 * the grace period sleeps over 2 ms in most rounds).  A close that took
 * long only because the thread was preempted, as on a loaded machine,
 * does not count.  Each round's knote must still work.
 */
#include "t_vnode.h"

#include <sys/resource.h>

static long sleeps(void)
{
	struct rusage ru;
	T_ASSERT(getrusage(RUSAGE_THREAD, &ru) == 0);
	return ru.ru_nvcsw;
}

#define ROUNDS 50

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	char path[128];
	int fd = vt_file(path, sizeof path);
	void *ud = (void *)0x51;
	double took[ROUNDS];
	int slow = 0;

	for (int i = 0; i < ROUNDS; i++) {
		int kq = t_kqueue();
		t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, ud);
		T_NO_EVENTS(kq);
		t_write(fd, "x", 1);
		WANT1(kq, fd, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, ud);
		long s0 = sleeps();
		double t0 = now_us();
		T_ASSERT(close(kq) == 0);
		took[i] = now_us() - t0;
		if (took[i] > 2000 && sleeps() != s0)
			slow++;
	}
	qsort(took, ROUNDS, sizeof took[0], cmp);
	double median = took[ROUNDS / 2];
	fprintf(stderr, "close(): median %.1f us, max %.1f us, %d slept over 2 ms\n",
		median, took[ROUNDS - 1], slow);
	if (median > 100)
		T_FAIL("median close() %.1f us, over 100 us", median);
	if (slow > 2)
		T_FAIL("%d of %d closes slept over 2 ms", slow, ROUNDS);
	return 0;
}
