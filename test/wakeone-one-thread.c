/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_WAKEONE, a libkq extension: one activation wakes one waiter.  8
 * threads each make one kevent() call (NULL
 * timeout, nevents 1) on one kqueue holding a wake-one EV_CLEAR knote.  One
 * activation wakes exactly one thread: over the 200 ms after the first
 * activation exactly one of the 8 calls has returned (a return without a
 * record counts too) and the 7 others are still asleep in kevent().  Each
 * further activation (50 ms apart) releases exactly one more thread, until
 * all 8 have returned, each with one record.  Done with a pipe
 * READ|EV_CLEAR|EV_WAKEONE knote (record flags EV_CLEAR|EV_WAKEONE, data =
 * bytes buffered, since no thread reads) and a USER|EV_CLEAR|EV_WAKEONE
 * knote.  The flag is stored and returned like the other stored flags.
 */
#include "t_thread.h"

#define NTHREADS 8

struct slot {
	atomic_int tid;
	atomic_int done;
	int n, err;
	struct kevent ev;
};

static int kq;
static struct slot slots[NTHREADS];
static atomic_int returns;

static void *waiter(void *arg)
{
	struct slot *s = arg;
	atomic_store(&s->tid, t_gettid());
	do {
		s->n = kevent(kq, NULL, 0, &s->ev, 1, NULL);
		s->err = errno;
	} while (s->n < 0 && s->err == EINTR);
	atomic_store(&s->done, 1);
	atomic_fetch_add(&returns, 1);
	return NULL;
}

static void check_asleep(void)
{
	int64_t end = t_now_ns() + 2000000000LL;
	for (int i = 0; i < NTHREADS; i++)
		if (!atomic_load(&slots[i].done))
			t_await_asleep(&slots[i].tid, &slots[i].done, end,
				       "thread %d", i);
}

static void run(int use_pipe)
{
	int p[2] = { -1, -1 };
	void *u = (void *)0x1501;
	pthread_t th[NTHREADS];
	const char *what = use_pipe ? "pipe READ" : "USER";

	kq = t_kqueue();
	atomic_store(&returns, 0);
	if (use_pipe) {
		t_pipe(p);
		t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_CLEAR | EV_WAKEONE,
			 0, 0, u);
	} else {
		t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR | EV_WAKEONE, 0,
			 0, u);
	}
	memset(slots, 0, sizeof slots);
	for (int i = 0; i < NTHREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, waiter, &slots[i]) == 0);
	check_asleep();
	t_sleep_ms(10);
	if (atomic_load(&returns) != 0)
		T_FAIL("%s: a thread returned before any activation", what);

	for (int k = 1; k <= NTHREADS; k++) {
		if (use_pipe)
			t_write(p[1], "x", 1);
		else
			t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, u);
		int64_t end = t_now_ns() + 2000000000LL;
		while (atomic_load(&returns) < k) {
			if (t_now_ns() > end)
				T_FAIL("%s: activation %d woke no thread", what,
				       k);
			t_sleep_ms(1);
		}
		t_sleep_ms(k == 1 ? 200 : 50);
		int got = atomic_load(&returns);
		if (got != k)
			T_FAIL("%s: activation %d: %d threads returned in all, "
			       "expected %d (wake-one woke %d)", what, k, got,
			       k, got - k + 1);
		check_asleep();
	}
	for (int i = 0; i < NTHREADS; i++) {
		T_ASSERT(pthread_join(th[i], NULL) == 0);
		struct slot *s = &slots[i];
		if (s->n != 1)
			T_FAIL("%s: thread %d returned %d (errno %d) without a "
			       "record", what, i, s->n, s->err);
		if (use_pipe)
			T_ASSERT(s->ev.data >= 1 && s->ev.data <= NTHREADS);
		T_KEVENT(&s->ev, use_pipe ? (uintptr_t)p[0] : 1,
			 use_pipe ? EVFILT_READ : EVFILT_USER,
			 EV_CLEAR | EV_WAKEONE, 0, use_pipe ? s->ev.data : 0,
			 u);
	}
	T_EQ(close(kq), 0);
	if (use_pipe) {
		T_EQ(close(p[0]), 0);
		T_EQ(close(p[1]), 0);
	}
}

int main(void)
{
	t_fail_after(10, "wakeone-one-thread: still running after 10 s");
	run(1);
	run(0);
	alarm(0);
	return 0;
}
