/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal handler's kevent() on the kqueue its own thread sleeps in may
 * land just as the sleep's system call returns with reports the sleeping
 * call has not processed yet; the handler's call must collect what they
 * say, and the sleeping call must not report them again.
 *
 * Ping-pong: a writer thread puts one byte in a pipe, then waits until
 * that byte's record was seen; the main thread sleeps in kevent() (no
 * timeout) on the pipe's EV_CLEAR READ knote.  A timer sends SIGALRM to
 * the main thread every 100 us; the handler adds and deletes a second
 * pipe's knote and deletes an absent user knote in one call (which must
 * not fail), and collects with a zero timeout.  Each record of the pipe,
 * wherever it is collected, must say 1 byte, and comes exactly once per
 * byte: a record lost stops the ping-pong (the watchdog fails the test),
 * a record twice is counted.
 */
#include "t_storm.h"

#include <pthread.h>

#define BYTES 20000

static int kq, a[2], b[2];
static atomic_int seen, twice, bad, handler_calls, handler_took;
static volatile sig_atomic_t errs, last_errno, bad_n;
static struct kevent bad_rec;

/* One record of pipe a: its byte is read, once. */
static void took(const struct kevent *e)
{
	if (e->ident != (uintptr_t)a[0] || e->filter != EVFILT_READ ||
	    e->flags != EV_CLEAR || e->fflags != 0 || e->data != 1 ||
	    e->udata != (void *)0xa) {
		atomic_fetch_add(&bad, 1);
		return;
	}
	char c;
	if (read(a[0], &c, 1) != 1)
		atomic_fetch_add(&twice, 1);   /* a record for a byte already read */
	else
		atomic_fetch_add(&seen, 1);
}

static void on_alarm(int sig)
{
	(void)sig;
	int e = errno;
	t_watch_handled();
	struct kevent ch[3], ev[4];
	struct timespec zero = { 0, 0 };
	EV_SET(&ch[0], b[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch[1], b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[2], 99, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	int n = kevent(kq, ch, 3, ev, 4, &zero);
	atomic_fetch_add(&handler_calls, 1);
	/* The absent knote's ENOENT record when the thread slept; none
	 * when the handler came while the interrupted call held the
	 * kqueue (its changes are then left to that call). */
	if (n < 0 || n > 1 || (n == 1 && (ev[0].ident != 99 || ev[0].flags != EV_ERROR ||
					   ev[0].data != ENOENT))) {
		if (!errs && n > 0) {
			bad_rec = ev[0];
			bad_n = n;
		}
		errs++;
		last_errno = n < 0 ? errno : 0;
	}
	n = kevent(kq, NULL, 0, ev, 4, &zero);
	if (n < 0) {
		errs++;
		last_errno = errno;
	}
	for (int i = 0; i < n; i++) {
		took(&ev[i]);
		atomic_fetch_add(&handler_took, 1);
	}
	errno = e;
}

static void *writer(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (int i = 0; i < BYTES; i++) {
		while (atomic_load(&seen) + atomic_load(&bad) < i)
			sched_yield();
		if (write(a[1], "x", 1) != 1)
			return NULL;
	}
	return NULL;
}

int main(void)
{
	t_watch_start("kevent-handler-sleeper-reports: a handler's kevent() while "
		      "its thread sleeps in one", 3000, 60000);
	kq = t_kqueue();
	T_ASSERT(pipe(a) == 0);
	T_ASSERT(pipe(b) == 0);
	t_change(kq, a[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, (void *)0xa);
	/* the handler's EV_ADD then finds its storage made (no malloc() in
	 * a handler) */
	t_change(kq, b[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, b[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	pthread_t w;
	T_ASSERT(pthread_create(&w, NULL, writer, NULL) == 0);
	struct t_storm st;
	t_storm_start(&st, SIGALRM, 100000);
	t_watch_stage("ping-pong");
	int last = -1;
	while (atomic_load(&seen) + atomic_load(&bad) < BYTES) {
		struct kevent ev[4];
		int n = kevent(kq, NULL, 0, ev, 4, NULL);
		if (n < 0 && errno != EINTR)
			T_FAIL("kevent(): %s", strerror(errno));
		for (int i = 0; i < n; i++)
			took(&ev[i]);
		/* progress is a byte seen, not a call (EINTR comes anyway) */
		int now = atomic_load(&seen) + atomic_load(&bad);
		if (now != last) {
			last = now;
			t_watch_tick();
		}
	}
	t_storm_stop_quiet(&st);
	t_watch_done();
	pthread_join(w, NULL);
	if (bad)
		T_FAIL("%d records of the pipe with wrong fields", (int)bad);
	if (twice)
		T_FAIL("%d records for a byte already read", (int)twice);
	if (bad_n)
		T_FAIL("a handler's call with changes returned %d records, the first "
		       "{ident=%lu filter=%d flags=0x%x fflags=0x%x data=%lld}", (int)bad_n,
		       (unsigned long)bad_rec.ident, bad_rec.filter, bad_rec.flags,
		       bad_rec.fflags, (long long)bad_rec.data);
	if (errs)
		T_FAIL("%d of the handler's kevent() calls failed (last: %s)", (int)errs,
		       strerror(last_errno));
	printf("%d handler calls, %d records collected by the handler\n",
	       atomic_load(&handler_calls), atomic_load(&handler_took));
	t_storm_enough(200);
	return 0;
}
