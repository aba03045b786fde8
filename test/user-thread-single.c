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
#include "t.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>

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
	atomic_store(&tids[me], (int)syscall(SYS_gettid));
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

static char thread_state(int t)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", t);
	FILE *f = fopen(path, "r");
	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return (p && p[1] == ' ') ? p[2] : '?';
}

static void all_asleep(void)
{
	int64_t end = t_now_ns() + 2000000000LL;
	for (int i = 0; i < NTHREADS; i++)
		while (atomic_load(&tids[i]) == 0 ||
		       thread_state(atomic_load(&tids[i])) != 'S') {
			if (t_now_ns() > end)
				T_FAIL("thread %d never blocked", i);
			t_sleep_ms(1);
		}
	t_sleep_ms(5);
}

static void one_round(int id, int want)
{
	int64_t end = t_now_ns() + 2000000000LL;
	while (atomic_load(&count[id]) < want) {
		if (t_now_ns() > end)
			T_FAIL("ident %d, round %d: no thread got the record",
			       id, want);
		t_sleep_ms(1);
	}
	t_sleep_ms(30);   /* room for a (wrong) second delivery */
	int c = atomic_load(&count[id]);
	if (c != want)
		T_FAIL("ident %d: one trigger delivered %d times", id,
		       c - want + 1);
	if (atomic_load(&bad))
		T_FAIL("a waiter failed or got a foreign record (%d)",
		       atomic_load(&bad));
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
		all_asleep();
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		one_round(1, r);
	}
	for (int r = 1; r <= 10; r++) {
		all_asleep();
		t_change(kq, 2, EVFILT_USER, EV_ADD | EV_ONESHOT, 0, 0, NULL);
		t_change(kq, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		one_round(2, r);
		T_EQ(t_change_err(kq, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL),
		     ENOENT);
	}

	t_change(kq, STOP_ID, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 5;
	for (int i = 0; i < NTHREADS; i++)
		if (pthread_timedjoin_np(th[i], NULL, &dl) != 0)
			T_FAIL("thread %d did not see the level stop knote", i);
	if (atomic_load(&bad))
		T_FAIL("a waiter failed or got a foreign record (%d)",
		       atomic_load(&bad));
	return 0;
}
