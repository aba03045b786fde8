/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the tests whose threads (or processes) block in
 * kevent() while the test acts: a wakeup can only be checked once the
 * waiter really sleeps, which only the kernel's view of the task says
 * ('S' in /proc/.../stat), not the waiter itself.
 */
#ifndef KQ_TEST_T_THREAD_H
#define KQ_TEST_T_THREAD_H

#include "t.h"

#include <stdatomic.h>
#include <sys/syscall.h>

/* The state letter of a /proc stat file ('S' asleep, 'R' running, ...),
 * '?' if it cannot be read. */
static inline char t_stat_state(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return '?';
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* the name in parentheses may hold spaces and ')' itself */
	char *p = strrchr(buf, ')');
	return (p && p[1] == ' ') ? p[2] : '?';
}

/* The state letter of this process's thread tid. */
static inline char t_thread_state(int tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
	return t_stat_state(path);
}

/* The state letter of process pid. */
static inline char t_proc_state(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	return t_stat_state(path);
}

/* The calling thread's kernel id, for t_thread_state(). */
static inline int t_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

/* Waits until the thread whose id *tid holds (0 until it has started)
 * sleeps, and returns 1; returns 0 at once if done (may be NULL) is set
 * first.  Fails the test with "<who> never blocked" once t_now_ns() passes
 * end. */
__attribute__((format(printf, 4, 5)))
static inline int t_await_asleep(atomic_int *tid, atomic_int *done,
				 int64_t end, const char *who, ...)
{
	while (atomic_load(tid) == 0 || t_thread_state(atomic_load(tid)) != 'S') {
		if (done != NULL && atomic_load(done))
			return 0;
		if (t_now_ns() > end) {
			va_list ap;

			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);
			va_start(ap, who);
			vfprintf(stderr, who, ap);
			va_end(ap);
			fprintf(stderr, " never blocked\n");
			exit(1);
		}
		t_sleep_ms(1);
	}
	return 1;
}

/* Starts fn(arg) in the thread *th, which is to store its id in *tid and
 * set *done when its wait returns; returns 1 once it sleeps, 0 as soon as
 * *done is set (failing the test if it does neither within 2 s). */
static inline int t_start_waiter(pthread_t *th, void *(*fn)(void *),
				 void *arg, atomic_int *tid, atomic_int *done,
				 const char *who)
{
	int err = pthread_create(th, NULL, fn, arg);

	if (err != 0)
		T_FAIL("pthread_create: %s", strerror(err));
	return t_await_asleep(tid, done, t_now_ns() + 2000000000LL, "%s", who);
}

/* The first failure a thread other than the main one reported: a thread
 * cannot fail the test itself while the others run on. */
struct t_thread_failure {
	atomic_int failed;
	char msg[256];
};

static inline struct t_thread_failure *t_thread_failure_state(void)
{
	static struct t_thread_failure failure;
	return &failure;
}

/* Records a thread's failure (printf format) unless one was recorded. */
__attribute__((format(printf, 1, 2)))
static inline void t_thread_fail(const char *fmt, ...)
{
	struct t_thread_failure *f = t_thread_failure_state();
	va_list ap;

	if (atomic_exchange(&f->failed, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof f->msg, fmt, ap);
	va_end(ap);
}

/* Delete races: a record of the knote of `round` came from a call that
 * started after the EV_DELETE of every round up to `deleted` returned. */
static inline void t_thread_check_not_deleted(size_t round, size_t deleted)
{
	if (round <= deleted)
		t_thread_fail("knote of round %zu reported by a call that started "
			      "after its EV_DELETE returned (deleted up to round %zu)",
			      round, deleted);
}

/* Whether a thread has recorded a failure. */
static inline int t_thread_failed(void)
{
	return atomic_load(&t_thread_failure_state()->failed);
}

/* Fails the test with the failure a thread recorded, if any. */
static inline void t_thread_check(void)
{
	if (t_thread_failed())
		T_FAIL("%s", t_thread_failure_state()->msg);
}

/* Waits until all n threads whose ids tids[] hold sleep (2 s for all), then
 * settle_ms more, for them to be inside kevent() rather than about to be. */
static inline void t_all_asleep(atomic_int *tids, int n, long settle_ms)
{
	int64_t end = t_now_ns() + 2000000000LL;

	for (int i = 0; i < n; i++)
		t_await_asleep(&tids[i], NULL, end, "thread %d", i);
	t_sleep_ms(settle_ms);
}

/* Fails if a waiter stored an errno or -1 (a foreign record) in *bad. */
static inline void t_waiters_ok(atomic_int *bad)
{
	if (atomic_load(bad))
		T_FAIL("a waiter failed or got a foreign record (%d)",
		       atomic_load(bad));
}

/* After one activation watched by competing threads: *count (the records
 * they took) reaches want within 2 s and is still want 30 ms later, and no
 * waiter went wrong. */
static inline void t_taken_once(atomic_int *count, int want, atomic_int *bad,
				const char *what)
{
	int64_t end = t_now_ns() + 2000000000LL;

	while (atomic_load(count) < want) {
		if (t_now_ns() > end)
			T_FAIL("%s, round %d: no thread got the record", what,
			       want);
		t_sleep_ms(1);
	}
	t_sleep_ms(30);   /* room for a (wrong) second delivery */
	int c = atomic_load(count);
	if (c != want)
		T_FAIL("%s: one activation delivered %d times", what,
		       c - want + 1);
	t_waiters_ok(bad);
}

/* Joins the n threads th[], all of which must end within sec seconds. */
static inline void t_join_all(pthread_t *th, int n, int sec, const char *why)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += sec;
	for (int i = 0; i < n; i++)
		if (pthread_timedjoin_np(th[i], NULL, &dl) != 0)
			T_FAIL("thread %d %s", i, why);
}

#endif /* KQ_TEST_T_THREAD_H */
