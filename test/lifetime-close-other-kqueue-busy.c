/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A thread's close() of a descriptor only its own kqueue watches does not
 * wait for another thread working in a kqueue that does not watch it
 * (FreeBSD's close visits every kqueue, but none holds its lock through a
 * whole kevent() call).  Thread B keeps its kqueue busy with kevent() calls
 * of a million changes each; thread A closes sockets watched in its own kqueue
 * while B is inside such a call, and each close must return while B is
 * still inside the same call.  The knote dies with the close all the same.
 */
#include "t.h"

#include <sched.h>
#include <stdatomic.h>

#define NCHG 1000000

static int kq_b;
static struct kevent *chg;
static atomic_long started, finished;
static atomic_int stop;

static void *busy(void *arg)
{
	(void)arg;
	for (long k = 1; !atomic_load(&stop); k++) {
		atomic_store(&started, k);
		if (kevent(kq_b, chg, NCHG, NULL, 0, NULL) != 0)
			T_FAIL("kevent (thread B): %s", strerror(errno));
		atomic_store(&finished, k);
	}
	return NULL;
}

/* A close that waits for B may wait for many of its calls (B takes the
 * lock again before the waiter runs): fail then, rather than hang. */
static void stalled(int sig)
{
	(void)sig;
	static const char m[] = "FAIL: close() still waiting for the other thread's kevent()\n";
	(void)!write(2, m, sizeof m - 1);
	_exit(1);
}

int main(void)
{
	int kq_a = t_kqueue();
	kq_b = t_kqueue();
	chg = calloc(NCHG, sizeof *chg);
	T_ASSERT(chg != NULL);
	for (int i = 0; i < NCHG; i += 2) {
		EV_SET(&chg[i], (uintptr_t)i + 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
		EV_SET(&chg[i + 1], (uintptr_t)i + 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	}

	/* One B call must be much longer than the pause below; else skip. */
	int64_t t0 = t_now_ns();
	T_EQ(kevent(kq_b, chg, NCHG, NULL, 0, NULL), 0);
	int64_t call_ns = t_now_ns() - t0;
	if (call_ns < 20 * 1000000LL)
		T_SKIP("a call of %d changes takes %lld us here, too short to tell "
		       "waiting from not", NCHG, (long long)(call_ns / 1000));

	/* Each try waits for a fresh B call: 8 tries take up to about 16
	 * calls, seconds under a sanitizer on a loaded machine.  A close that
	 * waited for B would wait for many more (see stalled()). */
	long guard = 20 + (long)(32 * call_ns / 1000000000LL);
	signal(SIGALRM, stalled);
	alarm((unsigned)(guard < 50 ? guard : 50));
	pthread_t th;
	T_EQ(pthread_create(&th, NULL, busy, NULL), 0);
	int inside = 0, tries = 0;
	for (; tries < 8; tries++) {
		int sp[2];
		t_socketpair(sp);
		t_change(kq_a, sp[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		/* wait for a fresh B call, then let it take its kqueue */
		long k = atomic_load(&started);
		while (atomic_load(&started) == k || atomic_load(&finished) == atomic_load(&started))
			sched_yield();
		k = atomic_load(&started);
		struct timespec pause = { 0, 2 * 1000000L };
		nanosleep(&pause, NULL);
		int x = sp[0];
		T_EQ(close(x), 0);
		if (atomic_load(&started) == k && atomic_load(&finished) < k)
			inside++;
		/* the knote went with the close: the number, reused, is new */
		int p[2];
		t_pipe(p);
		if (p[0] == x)
			t_change_fails(kq_a, x, EVFILT_READ, EV_DELETE, NULL, ENOENT);
		T_NO_EVENTS(kq_a);
		close(p[0]);
		close(p[1]);
		close(sp[1]);
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	if (inside < 6)
		T_FAIL("only %d of %d closes returned while the other thread's kevent() "
		       "call (%lld us) was still running", inside, tries,
		       (long long)(call_ns / 1000));
	return 0;
}
