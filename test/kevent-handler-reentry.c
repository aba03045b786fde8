/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal handler calls kevent() on the kqueue its own thread was
 * interrupted inside (a kevent() with changes, or a close() removing a
 * knote from it), as a program's handler waking its loop does.  On
 * FreeBSD kevent() is one system call, so the handler's call always works.
 *
 * The main loop, for 0.8 s under a timer sending SIGALRM to the thread
 * every 100 us: adds and deletes a pipe's READ knote in one kevent() call
 * that also collects records, then adds a knote on a fresh pipe and
 * closes it.  Each handler call enables and triggers one of 60,000
 * EVFILT_USER knotes made beforehand (EV_ONESHOT, disabled; made there
 * because a handler's kevent() that creates a knote may call malloc(),
 * which a handler may not), in one call that must succeed; udata becomes
 * the ident.  Every trigger
 * must come out exactly once, with FreeBSD's fields, by the end (the
 * handler's change may be applied by the call it interrupted, before that
 * call lets the kqueue go).  A handler's kevent() on another kqueue works
 * throughout.
 *
 * Up to 512 queued changes wait for the interrupted call; more fail with
 * ENOMEM (documented).  Every kevent() of the loop on kq applies the queue
 * before it returns (a close() leaves the changes to the next kevent()),
 * so a handler's call may fail so only after more than 256 handler runs in
 * a row with none of the loop's kevent() calls returning in between: a
 * starved loop, as on a loaded machine where each handler run outlasts
 * the timer's period.  Such failures are counted apart; any other fails.
 */
#include "t_storm.h"

#define FIRST 1000
#define MAXID (FIRST + 60000)
#define QUEUE 512   /* changes that may wait; each handler run queues 2 */

static int kq, other, pfd[2];
static volatile sig_atomic_t other_bad, failed, fail_errno, starved;
/* handler runs since the loop's last kevent() on kq returned */
static volatile sig_atomic_t streak, max_streak;
static atomic_uint next_id = FIRST;
static atomic_uint made;
static unsigned char seen[MAXID];

static void on_alarm(int sig)
{
	(void)sig;
	int e = errno;
	unsigned id = atomic_fetch_add(&next_id, 1);
	if (++streak > max_streak)
		max_streak = streak;
	if (id < MAXID) {
		if (t_trigger(kq, id) == 0) {
			atomic_fetch_add(&made, 1);
		} else if (errno == ENOMEM && streak > QUEUE / 2) {
			starved++;
		} else {
			failed++;
			fail_errno = errno;
		}
	}
	struct kevent ev;
	struct timespec zero = { 0, 0 };
	int r = kevent(other, NULL, 0, &ev, 1, &zero);
	if (r != 1 || ev.ident != (uintptr_t)pfd[0])
		other_bad++;
	t_watch_handled();
	errno = e;
}

static void take(const struct kevent *ev, int n)
{
	for (int i = 0; i < n; i++) {
		t_trigger_check(&ev[i], FIRST, MAXID);
		if (seen[ev[i].ident]++)
			T_FAIL("trigger %lu reported twice", (unsigned long)ev[i].ident);
	}
}

int main(void)
{
	t_watch_start("kevent-handler-reentry: kevent() in a handler "
		      "interrupting kevent() or close() on the same kqueue", 2000, 10000);
	kq = t_kqueue();
	other = t_kqueue();
	T_ASSERT(pipe(pfd) == 0);
	T_EQ(write(pfd[1], "x", 1), 1);
	t_change(other, pfd[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	int q[2];
	T_ASSERT(pipe(q) == 0);
	t_trigger_prepare(kq, FIRST, MAXID, on_alarm);
	struct t_storm st;
	t_storm_start(&st, SIGALRM, 100000);
	struct kevent ch[2], ev[8];
	struct timespec zero = { 0, 0 };
	t_watch_stage("kevent");
	while (!t_storm_over(&st, 800)) {
		EV_SET(&ch[0], q[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		EV_SET(&ch[1], q[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		int n = kevent(kq, ch, 2, ev, 8, &zero);
		streak = 0;
		if (n < 0)
			T_FAIL("kevent() with changes: %s", strerror(errno));
		take(ev, n);
		int p[2];
		T_ASSERT(pipe(p) == 0);
		t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		streak = 0;
		T_ASSERT(close(p[0]) == 0);
		T_ASSERT(close(p[1]) == 0);
		t_watch_tick();
	}
	t_storm_stop_quiet(&st);
	t_drain(kq, take);
	t_watch_done();
	if (failed)
		T_FAIL("%d of the handler's kevent() calls failed (last: %s; "
		       "longest run of handlers without the loop's calls: %d)",
		       (int)failed, strerror(fail_errno), (int)max_streak);
	if (starved)
		fprintf(stderr, "note: %d handler calls found the queue full after "
			"%d handler runs in a row starved the loop\n",
			(int)starved, (int)max_streak);
	if (other_bad)
		T_FAIL("%d handler calls on the other kqueue went wrong", (int)other_bad);
	unsigned last = atomic_load(&next_id);
	unsigned total = t_triggers_seen(seen, FIRST, last < MAXID ? last : MAXID);
	if (total != atomic_load(&made))
		T_FAIL("%u triggers made by the handler, %u reported", atomic_load(&made), total);
	t_storm_enough(100);
	return 0;
}
