/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The documented limit: SIGUSR1 unblocked in every thread, the main thread
 * asleep in kevent(), another thread sends kill(getpid()) three times in a
 * row.  FreeBSD counts each send (data 3).  Linux offers a process-directed
 * signal to the main thread first; it stays pending until that thread is
 * scheduled and takes it, and a standard signal sent while it is pending
 * is dropped by the kernel without a trace (no handler run, no wake-up of
 * any signalfd), so nobody can count it.  What libkq must do is count every
 * send the kernel kept: in each round the records add up to exactly the
 * handler's runs, between 1 and 3 (usually 1 on a machine with more than
 * one CPU).  Each record is {SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, n, udata}.
 * (Where Linux merges none: signal-thread-sender-counted.)
 */
#include "t.h"

#include <stdatomic.h>

#define ROUNDS 30

static atomic_int hits;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&hits, 1);
}

static void *sender(void *arg)
{
	(void)arg;
	t_sleep_ms(30);   /* the main thread is asleep in kevent() by now */
	for (int i = 0; i < 3; i++)
		if (kill(getpid(), SIGUSR1) != 0)
			T_FAIL("kill: %s", strerror(errno));
	return NULL;
}

/* Sum of the data of the records kq gives within ms (EINTR tolerated). */
static int64_t collect(int kq, long ms, void *ud)
{
	int64_t sum = 0, deadline = t_now_ns() + ms * 1000000LL;
	do {
		struct kevent ev[4];
		struct timespec ts = { 0, 10000000 };
		int n = kevent(kq, NULL, 0, ev, 4, &ts);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			T_FAIL("kevent: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			T_KEVENT_MIN(&ev[i], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, ud);
			sum += ev[i].data;
		}
	} while (t_now_ns() < deadline);
	return sum;
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer interposes sigaction() itself and runs handlers
	 * late, at its own safe points, so sends it holds back merge the way
	 * the kernel's never would here. */
	T_SKIP("handler timing and dispositions are ThreadSanitizer's own here");
#endif
	t_fail_after(30, "signal-thread-sender-merges hung");
	t_on_signal(SIGUSR1, on_usr1, SA_RESTART);
	int kq = t_kqueue();
	int ud;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);

	int merged = 0;
	for (int round = 0; round < ROUNDS; round++) {
		atomic_store(&hits, 0);
		pthread_t th;
		T_EQ(pthread_create(&th, NULL, sender, NULL), 0);
		/* asleep until the first send is counted */
		struct kevent ev[4];
		int n;
		do
			n = kevent(kq, NULL, 0, ev, 4, NULL);
		while (n < 0 && errno == EINTR);
		T_ASSERT(n >= 1);
		int64_t sum = 0;
		for (int i = 0; i < n; i++) {
			T_KEVENT_MIN(&ev[i], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
			sum += ev[i].data;
		}
		T_EQ(pthread_join(th, NULL), 0);
		/* whatever the kernel still delivers after the sends */
		sum += collect(kq, 100, &ud);
		int h = atomic_load(&hits);
		if (sum != h)
			T_FAIL("round %d: records add up to %" PRId64 ", the handler "
			       "ran %d times", round, sum, h);
		if (h < 1 || h > 3)
			T_FAIL("round %d: handler ran %d times for 3 sends", round, h);
		if (h < 3)
			merged++;
	}
	fprintf(stderr, "rounds where Linux merged sends: %d of %d\n", merged,
		ROUNDS);
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
