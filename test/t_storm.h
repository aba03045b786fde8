/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers for the tests that call the C library functions libkq replaces
 * from a signal handler while the thread it interrupts is inside one of
 * them ("signal storms").
 *
 * The storm is a POSIX timer aimed at one thread (SIGEV_THREAD_ID), so the
 * handler always runs on the thread doing the main loop, whatever helper
 * threads a sanitizer runtime starts.
 *
 * A handler that deadlocks on a lock its own thread holds cannot be broken
 * from that thread: alarm() would only run one more handler on top of the
 * stuck one, and SIGALRM may be the storm's own signal.  The watchdog is
 * therefore another thread, with every signal blocked, that fails the test
 * (with the stage the main loop last announced) when the loop's progress
 * counter stops moving, or at an overall deadline.
 */
#ifndef T_STORM_H
#define T_STORM_H

#include "t.h"

#include <stdatomic.h>
#include <sys/syscall.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* ---- watchdog ---- */

struct t_watch {
	_Atomic(const char *) stage;     /* what the main loop is doing */
	atomic_ulong progress;           /* bumped by the main loop */
	atomic_ulong handled;            /* bumped by the handler */
	atomic_int done;
	atomic_int storm;                /* a storm was started */
	long stall_ms, total_ms;
	const char *what;
};

static inline struct t_watch *t_watch_state(void)
{
	static struct t_watch w;
	return &w;
}

static inline void t_watch_stage(const char *stage)
{
	atomic_store_explicit(&t_watch_state()->stage, stage, memory_order_relaxed);
}

static inline void t_watch_tick(void)
{
	atomic_fetch_add_explicit(&t_watch_state()->progress, 1, memory_order_relaxed);
}

/* For the storm's handler: lock-free, async-signal-safe. */
static inline void t_watch_handled(void)
{
	atomic_fetch_add_explicit(&t_watch_state()->handled, 1, memory_order_relaxed);
}

static inline unsigned long t_watch_handled_count(void)
{
	return atomic_load_explicit(&t_watch_state()->handled, memory_order_relaxed);
}

static inline void *t_watch_main(void *arg)
{
	struct t_watch *w = arg;
	int64_t start = t_now_ns(), last_move = start;
	unsigned long last = atomic_load(&w->progress);

	for (;;) {
		struct timespec ts = { 0, 20 * 1000000L };
		nanosleep(&ts, NULL);
		if (atomic_load(&w->done))
			return NULL;
		int64_t now = t_now_ns();
		unsigned long p = atomic_load(&w->progress);
		if (p != last) {
			last = p;
			last_move = now;
		}
		const char *why = NULL;
		if (now - last_move > w->stall_ms * 1000000LL)
			why = "no progress";
		else if (now - start > w->total_ms * 1000000LL)
			why = "overall deadline passed";
		if (why == NULL)
			continue;
		/* The stuck thread may hold any lock (malloc's, libkq's):
		 * format on the stack, write with the bare system call (not
		 * the library's write()), leave at once. */
		char msg[512];
		const char *stage = atomic_load(&w->stage);
		char runs[64] = "";
		if (atomic_load(&w->storm))
			snprintf(runs, sizeof runs, ", %lu handler runs",
				 atomic_load(&w->handled));
		int n = snprintf(msg, sizeof msg, "FAIL: %s: %s for %ld ms, "
				 "stalled in: %s (%lu iterations%s)\n", w->what,
				 why, (long)((now - last_move) / 1000000),
				 stage ? stage : "?", p, runs);
		if (n > 0 && syscall(SYS_write, 2, msg, (size_t)n) < 0) {
			/* nothing more to do */
		}
		_exit(1);
	}
}

/* Starts the watchdog: the test fails if the main loop makes no progress
 * (t_watch_tick) for stall_ms, or is not over (t_watch_done) in total_ms. */
static inline void t_watch_start(const char *what, long stall_ms, long total_ms)
{
	struct t_watch *w = t_watch_state();

	w->what = what;
	w->stall_ms = stall_ms;
	w->total_ms = total_ms;
	t_watch_stage("start");
	t_thread_nosig(t_watch_main, w);
}

static inline void t_watch_done(void)
{
	atomic_store(&t_watch_state()->done, 1);
}

/* ---- storm ---- */

struct t_storm {
	timer_t id;
	int sig;
	int64_t start;   /* when the timer was armed */
};

/* Sends sig to the calling thread every interval_ns nanoseconds. */
static inline void t_storm_start(struct t_storm *s, int sig, long interval_ns)
{
	struct sigevent sev;
	struct itimerspec its;

	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &s->id) != 0)
		T_FAIL("timer_create: %s", strerror(errno));
	s->sig = sig;
	atomic_store(&t_watch_state()->storm, 1);
	its.it_value.tv_sec = 0;
	its.it_value.tv_nsec = interval_ns;
	its.it_interval = its.it_value;
	if (timer_settime(s->id, 0, &its, NULL) != 0)
		T_FAIL("timer_settime: %s", strerror(errno));
	s->start = t_now_ns();
}

/* Stops the timer; a signal it left pending is still delivered (the
 * handler must cope with that). */
static inline void t_storm_stop(struct t_storm *s)
{
	if (timer_delete(s->id) != 0)
		T_FAIL("timer_delete: %s", strerror(errno));
}

/* Stops the storm for good: the timer deleted and then its signal blocked,
 * so that no signal the timer left pending runs the handler any more (for
 * checks that must see the last state, with no handler to come). */
static inline void t_storm_stop_quiet(struct t_storm *s)
{
	sigset_t set;

	t_watch_stage("stopping the storm");
	t_storm_stop(s);
	sigemptyset(&set);
	sigaddset(&set, s->sig);
	T_EQ(sigprocmask(SIG_BLOCK, &set, NULL), 0);
}

/* Whether the storm has lasted ms since it started (cheap enough for every
 * iteration of a main loop). */
static inline int t_storm_over(const struct t_storm *s, long ms)
{
	return t_now_ns() - s->start >= ms * 1000000LL;
}

/* A storm too thin to mean anything (a starved machine) is a skip. */
static inline void t_storm_enough(unsigned long min_handled)
{
	unsigned long n = t_watch_handled_count();
	if (n < min_handled)
		T_SKIP("the handler ran only %lu times (%lu wanted): the "
		       "machine is too loaded for this test", n, min_handled);
}

/* ---- a pool of descriptors the handler takes from ---- */

/* For a handler: takes one descriptor out of pool[0..n-1] (-1 marks an empty
 * slot) without locks, looking from the slot after the one the previous
 * taker began at, so that successive runs spread over the pool.  Returns
 * the slot, the descriptor in *fd, or -1 if every slot is empty. */
static inline int t_pool_take(_Atomic int *pool, unsigned n, atomic_uint *next, int *fd)
{
	unsigned start = atomic_fetch_add_explicit(next, 1, memory_order_relaxed);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = (start + k) % n;
		int d = atomic_exchange(&pool[i], -1);
		if (d >= 0) {
			*fd = d;
			return (int)i;
		}
	}
	return -1;
}

/* ---- the System V idiom ---- */

/* A SIGALRM handler that re-installs itself with signal() on every run, as
 * System V programs do: it must complete whatever its thread was doing.
 * It saves and restores errno, so the interrupted call sees no change. */
static inline volatile sig_atomic_t *t_sysv_failed(void)
{
	static volatile sig_atomic_t failed;
	return &failed;
}

static inline void t_sysv_on_alarm(int sig)
{
	int e = errno;
	if (signal(sig, t_sysv_on_alarm) == SIG_ERR)
		*t_sysv_failed() = 1;
	t_watch_handled();
	errno = e;
}

/* Installs t_sysv_on_alarm for SIGALRM, with signal() too. */
static inline void t_sysv_install(void)
{
	if (signal(SIGALRM, t_sysv_on_alarm) == SIG_ERR)
		T_FAIL("signal(SIGALRM): %s", strerror(errno));
}

/* Ends a storm of SIGALRM at t_sysv_on_alarm and the watchdog: every
 * signal() in the handler must have succeeded, and the storm must have
 * been thick enough to mean something. */
static inline void t_sysv_storm_end(struct t_storm *s)
{
	t_watch_stage("stopping the storm");
	t_storm_stop(s);
	t_watch_done();
	if (*t_sysv_failed())
		T_FAIL("signal() failed inside the handler");
	t_storm_enough(100);
}

/* ---- triggers a handler made ---- */

/* For a handler: enables the disabled EV_ONESHOT EVFILT_USER knote id and
 * triggers it, udata = id, in one kevent() call; its result. */
static inline int t_trigger(int kq, uintptr_t id)
{
	struct kevent ch[2];
	EV_SET(&ch[0], id, EVFILT_USER, EV_ENABLE, 0, 0, NULL);
	EV_SET(&ch[1], id, EVFILT_USER, 0, NOTE_TRIGGER, 0, (void *)id);
	return kevent(kq, ch, 2, NULL, 0, NULL);
}

/* The knotes t_trigger() expects, idents first .. end - 1 on kq (EV_ONESHOT
 * EVFILT_USER, disabled), and handler installed for SIGALRM. */
static inline void t_trigger_prepare(int kq, uintptr_t first, uintptr_t end,
				     void (*handler)(int))
{
	for (uintptr_t id = first; id < end; id++)
		t_change(kq, id, EVFILT_USER, EV_ADD | EV_ONESHOT | EV_DISABLE, 0, 0, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
}

/* A record of one of the EV_ONESHOT EVFILT_USER knotes numbered first ..
 * end - 1 that a handler enabled and triggered with udata = ident: fails
 * the test on any other field. */
static inline void t_trigger_check(const struct kevent *e, uintptr_t first, uintptr_t end)
{
	if (e->filter != EVFILT_USER || e->ident < first || e->ident >= end ||
	    e->flags != EV_ONESHOT || e->fflags != 0 || e->data != 0 ||
	    e->udata != (void *)e->ident)
		T_FAIL("unexpected record {ident=%lu filter=%d flags=0x%x "
		       "fflags=0x%x data=%lld udata=%p}",
		       (unsigned long)e->ident, e->filter, e->flags, e->fflags,
		       (long long)e->data, e->udata);
}

/* How many records seen[] counted for the knotes first .. last - 1. */
static inline unsigned t_triggers_seen(const unsigned char *seen, unsigned first, unsigned last)
{
	unsigned total = 0;
	for (unsigned id = first; id < last; id++)
		total += seen[id];
	return total;
}

/* Collects what kq holds (zero timeouts) until a call returns nothing,
 * each batch to take(). */
static inline void t_drain(int kq, void (*take)(const struct kevent *, int))
{
	struct kevent ev[8];
	struct timespec zero = { 0, 0 };
	t_watch_stage("drain");
	for (;;) {
		int n = kevent(kq, NULL, 0, ev, 8, &zero);
		if (n < 0)
			T_FAIL("kevent(): %s", strerror(errno));
		if (n == 0)
			return;
		take(ev, n);
	}
}

#endif
