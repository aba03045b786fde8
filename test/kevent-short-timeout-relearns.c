/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A short kevent() timeout sleeps until a little before its deadline and
 * polls the rest; one no longer than the wake-up latency libkq has learned
 * is polled throughout.  A burst of load that made wake-ups late must not
 * leave such timeouts polling for good once it is over: a loop of 150 us
 * waits afterwards has to become mostly idle again.
 *
 * The burst: a thread of the lowest scheduling class (SCHED_IDLE) sleeps in
 * kevent() while a busy thread holds the same CPU, so its wake-ups come
 * milliseconds late.  Then, the busy thread stopped, the main thread waits
 * 150 us at a time on an empty kqueue, 1500 times, and may spend at most
 * 60% of that time on the CPU (polling throughout: about 100%).
 */
#include "t.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int stop;

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pin_cpu0(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof set, &set);   /* best effort */
}

static void *hog(void *arg)
{
	(void)arg;
	pin_cpu0();
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

/* Sleeps in kevent() at the lowest priority beside the hog; returns the
 * latest end of a wait, in ns past its timeout (or -1: not permitted). */
static void *late_sleeper(void *arg)
{
	int kq = *(int *)arg;
	struct sched_param sp = { 0 };
	intptr_t worst = -1;
	if (sched_setscheduler(0, SCHED_IDLE, &sp) != 0)
		return (void *)worst;
	pin_cpu0();
	struct timespec ts = { 0, 500000 };
	struct kevent ev;
	for (int i = 0; i < 20; i++) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC);
		T_EQ(kevent(kq, NULL, 0, &ev, 1, &ts), 0);
		int64_t late = now_ns(CLOCK_MONOTONIC) - t0 - 500000;
		if (late > worst)
			worst = (intptr_t)late;
	}
	return (void *)worst;
}

int main(void)
{
	int kq = t_kqueue();
	pthread_t h, s;
	void *res;

	T_EQ(pthread_create(&h, NULL, hog, NULL), 0);
	T_EQ(pthread_create(&s, NULL, late_sleeper, &kq), 0);
	T_EQ(pthread_join(s, &res), 0);
	atomic_store(&stop, 1);
	T_EQ(pthread_join(h, NULL), 0);
	intptr_t worst = (intptr_t)res;
	if (worst < 0)
		T_SKIP("SCHED_IDLE refused: cannot make wake-ups late");
	if (worst < 1000000)
		T_SKIP("wake-ups beside a busy thread were at most %ld us late: no burst to "
		       "recover from", (long)(worst / 1000));

	struct timespec ts = { 0, 150000 };
	struct kevent ev;
	int64_t w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < 1500; i++)
		T_EQ(kevent(kq, NULL, 0, &ev, 1, &ts), 0);
	int64_t wall = now_ns(CLOCK_MONOTONIC) - w0, cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	double share = (double)cpu / (double)wall;
	printf("1500 waits of 150 us: %.1f ms, %.0f%% of it on the CPU\n", wall / 1e6,
	       100 * share);
	if (share > 0.60)
		T_FAIL("150 us waits still poll after the burst: %.0f%% CPU", 100 * share);
	close(kq);
	return 0;
}
