/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Signal handlers of two threads queue changes on one kqueue at once.
 *
 * Two threads each add and delete a pipe's READ knote on the same kqueue
 * in a loop, so that one often holds the kqueue while the other waits for
 * it; a timer sends SIGALRM to each thread every 100 us.  A handler that
 * interrupts its thread inside kevent() on the kqueue leaves its changes
 * in the kqueue's queue (the first one maps it, racing the other thread's
 * handlers); otherwise its call is made whole.  Each handler run enables
 * and triggers one of 60,000 disabled EV_ONESHOT EVFILT_USER knotes in one
 * call that must succeed, udata the ident.  Every trigger must come out
 * exactly once, with FreeBSD's fields.
 *
 * The queue holds 512 changes; a call may find it full only after more
 * than 256 handler runs of the two threads with neither thread's kevent()
 * returning meanwhile (each return applies the queue first): such
 * failures are counted apart, any other fails.
 */
#include "t_storm.h"

#include <pthread.h>

#define FIRST 1000
#define MAXID (FIRST + 60000)
#define QUEUE 512

static int kq;
static atomic_uint next_id = FIRST;
static atomic_uint made;
static atomic_int failed, fail_errno, starved;
/* per thread: handler runs since its last kevent() on kq returned */
static atomic_int streak[2];
static _Thread_local int me;
static unsigned char seen[MAXID];
static atomic_int stop;

static void on_alarm(int sig)
{
	(void)sig;
	int e = errno;
	t_watch_handled();
	atomic_fetch_add(&streak[me], 1);
	unsigned id = atomic_fetch_add(&next_id, 1);
	if (id < MAXID) {
		if (t_trigger(kq, id) == 0) {
			atomic_fetch_add(&made, 1);
		} else if (errno == ENOMEM &&
			   atomic_load(&streak[0]) + atomic_load(&streak[1]) > QUEUE / 2) {
			atomic_fetch_add(&starved, 1);
		} else {
			atomic_fetch_add(&failed, 1);
			atomic_store(&fail_errno, errno);
		}
	}
	errno = e;
}

static void take(const struct kevent *ev, int n)
{
	for (int i = 0; i < n; i++) {
		t_trigger_check(&ev[i], FIRST, MAXID);
		/* both loops collect: counted atomically */
		if (__atomic_fetch_add(&seen[ev[i].ident], 1, __ATOMIC_RELAXED))
			T_FAIL("trigger %lu reported twice", (unsigned long)ev[i].ident);
	}
}

struct loop {
	int who;
	int pfd[2];
};

static void *loop(void *arg)
{
	struct loop *l = arg;
	me = l->who;
	struct t_storm st;
	t_storm_start(&st, SIGALRM, 100000);
	struct kevent ch[2], ev[8];
	struct timespec zero = { 0, 0 };
	while (!atomic_load(&stop)) {
		EV_SET(&ch[0], l->pfd[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		EV_SET(&ch[1], l->pfd[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		int n = kevent(kq, ch, 2, ev, 8, &zero);
		atomic_store(&streak[me], 0);
		if (n < 0)
			T_FAIL("kevent() with changes: %s", strerror(errno));
		take(ev, n);
		t_watch_tick();
	}
	t_storm_stop_quiet(&st);
	return NULL;
}

int main(void)
{
	t_watch_start("kevent-handler-queue-threads: two threads' handlers "
		      "queue changes on one kqueue", 2000, 20000);
	kq = t_kqueue();
	t_trigger_prepare(kq, FIRST, MAXID, on_alarm);
	/* only the two loops take the storm */
	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	struct loop l[2];
	pthread_t th[2];
	t_watch_stage("loops");
	for (int i = 0; i < 2; i++) {
		l[i].who = i;
		T_ASSERT(pipe(l[i].pfd) == 0);
		T_EQ(pthread_create(&th[i], NULL, loop, &l[i]), 0);
	}
	T_EQ(pthread_sigmask(SIG_BLOCK, &alrm, NULL), 0);
	struct timespec run = { 0, 800 * 1000000L };
	nanosleep(&run, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++)
		T_EQ(pthread_join(th[i], NULL), 0);
	t_drain(kq, take);
	t_watch_done();
	if (atomic_load(&failed))
		T_FAIL("%d of the handlers' kevent() calls failed (last: %s)",
		       atomic_load(&failed), strerror(atomic_load(&fail_errno)));
	if (atomic_load(&starved))
		fprintf(stderr, "note: %d handler calls found the queue full with "
			"both loops starved\n", atomic_load(&starved));
	unsigned last = atomic_load(&next_id);
	unsigned total = t_triggers_seen(seen, FIRST, last < MAXID ? last : MAXID);
	if (total != atomic_load(&made))
		T_FAIL("%u triggers made by the handlers, %u reported", atomic_load(&made), total);
	t_storm_enough(100);
	return 0;
}
