/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An asynchronous cancellation that lands while a thread is busy inside
 * kevent() must not leave the kqueue locked: threads with the asynchronous
 * cancellation type call kevent() in a loop (changes, zero-timeout
 * collections, changes and collection in one call) on a kqueue shared with
 * the main thread, which cancels them at random moments.  After each join
 * the main thread's own kevent() calls on that kqueue must complete (a
 * kqueue whose lock left with a cancelled thread blocks them for good), and
 * the asynchronous type of the thread is kept (it still gets cancelled).
 * 200 rounds.  POSIX leaves asynchronous cancellation of kevent()
 * undefined; FreeBSD's kevent() is a system call it cannot interrupt.
 */
#include "t_cancel.h"

#include <sched.h>
#include <stdatomic.h>

static int kq;
static int p[2];
static atomic_int started;

static void *busy(void *arg)
{
	(void)arg;
	int old;
	T_ASSERT(pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old) == 0);
	struct kevent ch[2], ev[4];
	struct timespec zero = { 0, 0 };
	atomic_store(&started, 1);
	for (unsigned i = 0;; i++) {
		EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		EV_SET(&ch[1], 7, EVFILT_USER, EV_ADD | EV_CLEAR, NOTE_TRIGGER, 0, NULL);
		kevent(kq, ch, 2, ev, 4, &zero);
		kevent(kq, NULL, 0, ev, 4, &zero);
		EV_SET(&ch[0], p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		kevent(kq, ch, 1, NULL, 0, NULL);
	}
	return NULL;
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	alarm(60);   /* watchdog: a kqueue left locked hangs the main thread */
	kq = t_kqueue();
	t_pipe(p);
	t_write(p[1], "x", 1);
	srand(7);
	for (int round = 0; round < 200; round++) {
		pthread_t th;
		atomic_store(&started, 0);
		T_ASSERT(pthread_create(&th, NULL, busy, NULL) == 0);
		while (!atomic_load(&started))
			sched_yield();
		/* 0-300 us into the loop */
		int64_t end = t_now_ns() + (rand() % 300) * 1000;
		while (t_now_ns() < end)
			;
		T_ASSERT(pthread_cancel(th) == 0);
		void *rv = NULL;
		T_EQ(pthread_join(th, &rv), 0);
		if (rv != PTHREAD_CANCELED)
			T_FAIL("round %d: the thread was not cancelled", round);
		/* the kqueue is usable: not left locked */
		struct kevent ev[4];
		struct timespec zero = { 0, 0 };
		int n = kevent(kq, NULL, 0, ev, 4, &zero);
		if (n < 0)
			T_FAIL("round %d: kevent: %s", round, strerror(errno));
		struct kevent ch;
		EV_SET(&ch, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		kevent(kq, &ch, 1, NULL, 0, NULL);   /* ENOENT or not */
	}
	t_cancel_kq_works(kq);
	return 0;
}
