/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 8 threads wait in kevent() (nevents 1) on one kqueue; a
 * USER|EV_CLEAR knote triggered once is delivered to exactly one thread
 * (with EV_CLEAR / EV_ONESHOT one activation is returned by at
 * most one call, even with concurrent callers; and it is returned).  20
 * rounds with the EV_CLEAR knote, then 10 rounds with an EV_ONESHOT knote
 * re-added each round.  Before each trigger all 8 threads are asleep
 * (state 'S').  At the end a level USER knote wakes and stops them all.
 */
#include "t_thread.h"

#define NTHREADS 8
#define STOP_ID 99

static int kq;
static atomic_int tids[NTHREADS];
static atomic_int count[3];        /* records for ident 1 and 2 */
static atomic_int bad;

static void *waiter(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct timespec to = { 1, 0 };
	struct kevent ev;
	atomic_store(&tids[me], t_gettid());
	for (;;) {
		int n = kevent(kq, NULL, 0, &ev, 1, &to);
		if (n < 0) {
			atomic_store(&bad, errno);
			return NULL;
		}
		if (n == 0)
			continue;
		if (ev.filter == EVFILT_USER && ev.ident == STOP_ID)
			return NULL;
		if (ev.filter == EVFILT_USER && (ev.ident == 1 || ev.ident == 2))
			atomic_fetch_add(&count[ev.ident], 1);
		else
			atomic_store(&bad, -1);
	}
}

int main(void)
{
	pthread_t th[NTHREADS];

	t_fail_after(30, "user-thread-single: still running after 30 s (hang?)");

	kq = t_kqueue();
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	t_change(kq, STOP_ID, EVFILT_USER, EV_ADD, 0, 0, NULL);
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, waiter, (void *)(intptr_t)i))
			T_FAIL("pthread_create");

	for (int r = 1; r <= 20; r++) {
		t_all_asleep(tids, NTHREADS, 5);
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		t_taken_once(&count[1], r, &bad, "ident 1");
	}
	for (int r = 1; r <= 10; r++) {
		t_all_asleep(tids, NTHREADS, 5);
		t_change(kq, 2, EVFILT_USER, EV_ADD | EV_ONESHOT, 0, 0, NULL);
		t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		t_taken_once(&count[2], r, &bad, "ident 2");
		T_EQ(t_change_err(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL),
		     ENOENT);
	}

	t_change(kq, STOP_ID, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	t_join_all(th, NTHREADS, 5, "did not see the level stop knote");
	t_waiters_ok(&bad);
	return 0;
}
