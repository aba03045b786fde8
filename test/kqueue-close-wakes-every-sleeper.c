/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Eight threads asleep in kevent() with no timeout on one kqueue; another
 * thread close()s it.  Every sleeper must return -1/EBADF, in every round:
 * a close that wakes some of them leaves the others asleep for good (epoll
 * wakes one of the threads waiting on a set per report, so a single
 * edge-triggered wake-up reaches one sleeper).  Rounds: a kqueue with a
 * READ knote on a pipe, one with nothing in it, one whose knote was
 * triggered and delivered before the sleepers came (so its wake-up state is
 * not the initial one), and one whose sleepers also wait on a timer far
 * away.  Each sleeper is known to sleep (its state in /proc is 'S') before
 * the close.
 */
#include "t_thread.h"

#define SLEEPERS 8
#define ROUNDS 20

struct sleeper {
	int kq;
	atomic_int tid;
	atomic_int done;
	int r, err;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct kevent ev[4];
	atomic_store(&s->tid, t_gettid());
	for (;;) {
		s->r = kevent(s->kq, NULL, 0, ev, 4, NULL);
		s->err = errno;
		/* a USER record of the setup may still come: wait again */
		if (s->r <= 0)
			break;
	}
	atomic_store(&s->done, 1);
	return NULL;
}

static void round_of(int variant, int round)
{
	int kq = t_kqueue();
	int p[2] = { -1, -1 };
	switch (variant) {
	case 0:
		t_pipe(p);
		t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		break;
	case 1:
		break;
	case 2: {
		/* queued, delivered, queue empty again */
		t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		struct kevent ev;
		struct timespec zero = { 0, 0 };
		T_EQ(kevent(kq, NULL, 0, &ev, 1, &zero), 1);
		break;
	}
	case 3:
		t_change(kq, 7, EVFILT_TIMER, EV_ADD, 0, 60000, NULL);
		break;
	}

	struct sleeper s[SLEEPERS];
	pthread_t th[SLEEPERS];
	int64_t end = t_now_ns() + 5000000000LL;
	for (int i = 0; i < SLEEPERS; i++) {
		s[i].kq = kq;
		atomic_store(&s[i].tid, 0);
		atomic_store(&s[i].done, 0);
		T_ASSERT(pthread_create(&th[i], NULL, sleeper_main, &s[i]) == 0);
	}
	for (int i = 0; i < SLEEPERS; i++)
		if (!t_await_asleep(&s[i].tid, &s[i].done, end, "sleeper %d", i))
			T_FAIL("variant %d round %d: sleeper %d returned %d (errno %d) before the close",
			       variant, round, i, s[i].r, s[i].err);

	T_EQ(close(kq), 0);
	int64_t limit = t_now_ns() + 2000000000LL;
	for (int i = 0; i < SLEEPERS; i++) {
		while (!atomic_load(&s[i].done)) {
			if (t_now_ns() > limit) {
				int woken = 0;
				for (int k = 0; k < SLEEPERS; k++)
					woken += atomic_load(&s[k].done);
				T_FAIL("variant %d round %d: %d of %d sleepers woken 2 s after close()",
				       variant, round, woken, SLEEPERS);
			}
			t_sleep_ms(1);
		}
	}
	for (int i = 0; i < SLEEPERS; i++) {
		T_ASSERT(pthread_join(th[i], NULL) == 0);
		if (s[i].r != -1 || s[i].err != EBADF)
			T_FAIL("variant %d round %d: sleeper %d returned %d/errno %d, expected -1/EBADF",
			       variant, round, i, s[i].r, s[i].err);
	}
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
}

int main(void)
{
	alarm(120);   /* a sleeper never woken must not hang the suite */
	for (int round = 0; round < ROUNDS; round++)
		round_of(round % 4, round);
	return 0;
}
