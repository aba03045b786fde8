/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A handler that interrupts kevent() and closes a descriptor with a knote
 * in that very kqueue must complete (close() is async-signal-safe), and the
 * knote must be gone for every kevent() call that begins after the close:
 * no record for it, EV_DELETE of the number (given to a new socket) fails
 * with ENOENT, and an EV_ADD of the new socket at that number reports the
 * new socket's data with the new udata.
 *
 * The kqueue holds a READ knote on each socket of a pool (one to three
 * bytes buffered, udata a tag never used again) and on a fixed pipe.  For
 * 1.5 s, with a timer sending SIGALRM to the thread every 50 us, the main
 * loop calls kevent() with two changes (EV_DISABLE and EV_ENABLE of the
 * pipe's knote) and a zero timeout, and checks every record against the
 * registrations live when the call began.  While the thread is inside that
 * call, the handler takes a pooled socket without locks and closes it.
 * After each call the loop puts a new socket at every number the handler
 * closed.  A watchdog thread fails the test if the loop stops.
 */
#include "t_storm.h"

#define POOL 8
#define SENTINEL 4244

static _Atomic int rd[POOL];          /* socket with a knote, or -1 */
static int num[POOL];                 /* its number (main loop only) */
static int peer[POOL];                /* the other end (main loop only) */
static uintptr_t tag[POOL];
static int64_t bytes[POOL];
static uintptr_t next_tag = 1;
static atomic_uint next_slot;
static atomic_ulong closed;
static volatile sig_atomic_t window, handler_failed, handler_errno;

static void on_alarm(int sig)
{
	int e = errno;
	(void)sig;
	t_watch_handled();
	if (!window)
		return;
	int fd;
	if (t_pool_take(rd, POOL, &next_slot, &fd) >= 0) {
		if (close(fd) != 0) {
			handler_failed = 1;
			handler_errno = errno;
		}
		atomic_fetch_add(&closed, 1);
	}
	errno = e;
}

/* A new socket at number n (free), registered in slot i. */
static void place(int kq, int i, int n)
{
	int sp[2];
	t_socketpair(sp);
	if (sp[1] == n) {
		int t = sp[0];
		sp[0] = sp[1];
		sp[1] = t;
	}
	if (n >= 0 && sp[0] != n) {
		if (dup2(sp[0], n) != n)
			T_FAIL("dup2(%d, %d): %s", sp[0], n, strerror(errno));
		if (close(sp[0]) != 0)
			T_FAIL("close(%d): %s", sp[0], strerror(errno));
		sp[0] = n;
	}
	/* The number's old knote, if any survived, would be found here. */
	int err = t_change_err(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	if (err != ENOENT)
		T_FAIL("EV_DELETE READ on %d (closed by the handler, now a new "
		       "socket) gave %d (%s), expected ENOENT: the closed "
		       "descriptor's knote is still there", sp[0], err,
		       strerror(err));
	tag[i] = next_tag++;
	bytes[i] = 1 + (int64_t)(tag[i] % 3);
	t_write(sp[1], "abc", (size_t)bytes[i]);
	t_wait_inq(sp[0], (int)bytes[i]);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, (void *)tag[i]);
	num[i] = sp[0];
	peer[i] = sp[1];
	atomic_store(&rd[i], sp[0]);
}

/* Gives every slot the handler emptied a new socket at the same number. */
static void refill(int kq)
{
	for (int i = 0; i < POOL; i++) {
		if (atomic_load(&rd[i]) >= 0)
			continue;
		if (close(peer[i]) != 0)
			T_FAIL("close(%d): %s", peer[i], strerror(errno));
		place(kq, i, num[i]);
	}
}

int main(void)
{
	t_watch_start("signal-storm-kevent-close: close() in a handler "
		      "interrupting kevent()", 2000, 20000);
	int kq = t_kqueue();
	int fixed[2];
	t_pipe(fixed);
	t_write(fixed[1], "x", 1);
	t_change(kq, fixed[0], EVFILT_READ, EV_ADD, 0, 0, fixed);
	for (int i = 0; i < POOL; i++)
		place(kq, i, -1);
	t_on_signal(SIGALRM, on_alarm, SA_RESTART);

	struct kevent ch[2];
	EV_SET(&ch[0], fixed[0], EVFILT_READ, EV_DISABLE, 0, 0, fixed);
	EV_SET(&ch[1], fixed[0], EVFILT_READ, EV_ENABLE, 0, 0, fixed);
	struct timespec zero = { 0, 0 };
	struct t_storm storm;
	t_storm_start(&storm, SIGALRM, 50000);
	unsigned long rounds = 0;
	int quiet = 0;
	for (;;) {
		if (!quiet && t_storm_over(&storm, 1500)) {
			/* one last round with no handler to come */
			t_storm_stop_quiet(&storm);
			quiet = 1;
		}
		t_watch_stage("refilling the pool");
		refill(kq);

		int live[POOL];
		uintptr_t live_tag[POOL];
		int64_t live_bytes[POOL];
		for (int i = 0; i < POOL; i++) {
			live[i] = atomic_load(&rd[i]);
			live_tag[i] = tag[i];
			live_bytes[i] = bytes[i];
		}
		struct kevent ev[2 * POOL + 2];
		t_watch_stage("kevent() with changes, zero timeout");
		errno = SENTINEL;
		window = 1;
		int n = kevent(kq, ch, 2, ev, 2 * POOL + 2, &zero);
		window = 0;
		if (n < 0)
			T_FAIL("kevent: %s", strerror(errno));
		if (errno != SENTINEL)
			T_FAIL("kevent() succeeded but changed errno to %d", errno);
		int saw_fixed = 0;
		for (int k = 0; k < n; k++) {
			if (ev[k].ident == (uintptr_t)fixed[0] && ev[k].udata == fixed) {
				T_KEVENT(&ev[k], fixed[0], EVFILT_READ, 0, 0, 1, fixed);
				saw_fixed++;
				continue;
			}
			int ok = 0;
			for (int i = 0; i < POOL && !ok; i++)
				if (live[i] >= 0 && ev[k].ident == (uintptr_t)live[i] &&
				    (uintptr_t)ev[k].udata == live_tag[i]) {
					T_KEVENT(&ev[k], live[i], EVFILT_READ, 0, 0,
						 live_bytes[i], live_tag[i]);
					ok = 1;
				}
			if (!ok) {
				t_print_kevent("  stale", &ev[k]);
				T_FAIL("a record for a registration that was "
				       "closed before the call began");
			}
		}
		if (saw_fixed != 1)
			T_FAIL("the fixed pipe was reported %d times", saw_fixed);
		if (quiet) {
			T_EQ(n, POOL + 1);
			break;
		}
		rounds++;
		t_watch_tick();
	}
	t_watch_done();
	if (handler_failed)
		T_FAIL("close() in the handler failed: %s", strerror(handler_errno));
	t_storm_enough(100);
	if (atomic_load(&closed) < 50)
		T_SKIP("the handler interrupted kevent() only %lu times",
		       atomic_load(&closed));
	fprintf(stderr, "%lu rounds, %lu handler runs, %lu closes inside "
		"kevent()\n", rounds, t_watch_handled_count(), atomic_load(&closed));
	return 0;
}
