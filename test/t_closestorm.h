/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The body of the tests where a signal handler closes (or dup2()s over) a
 * descriptor that has a knote while the thread it interrupts is itself
 * closing or dup2()ing another descriptor with a knote, or changing knotes
 * with kevent().  close() and dup2() are async-signal-safe in the C library;
 * libkq's must be too.
 *
 * The main loop, for 1.5 s, with a timer sending SIGALRM to it every
 * 50 us:
 *   - refills a pool of pipes whose read ends have a READ knote and one
 *     byte buffered (each registration's udata is a tag never used again);
 *   - makes a pipe or a socketpair, adds a READ knote on it, and gets rid
 *     of it by close(), or by dup2() of /dev/null over it and then close();
 *     each call must succeed and leave errno alone;
 *   - collects records with a zero timeout: every record must belong to a
 *     registration that was live when the call began (a close or a dup2
 *     made in the handler removes the knote: no record may carry the tag
 *     of a descriptor closed before the call).
 * The handler acts only while the main loop is inside its close() or
 * dup2() (kevent() interrupted is signal-storm-kevent-close's case): it
 * takes one descriptor from the pool without locks and closes it, or
 * dup2()s /dev/null over it (the main loop closes that copy later).  A
 * watchdog thread fails the test if the loop stops.
 */
#ifndef T_CLOSESTORM_H
#define T_CLOSESTORM_H

#include "t_storm.h"

#define CS_POOL 16
#define CS_SENTINEL 4243

static _Atomic int cs_rd[CS_POOL];       /* read end with a knote, or -1 */
static _Atomic int cs_dupped[CS_POOL];   /* /dev/null copy to close, or -1 */
static int cs_wr[CS_POOL];               /* write end (main loop only) */
static uintptr_t cs_tag[CS_POOL];        /* udata of cs_rd[i]'s knote */
static uintptr_t cs_next_tag = 1;
static int cs_devnull;
static int cs_handler_dup2;
static atomic_uint cs_next_slot;
static volatile sig_atomic_t cs_handler_failed, cs_handler_errno;
static volatile sig_atomic_t cs_window;  /* main loop is in close()/dup2() */
static atomic_ulong cs_handler_done;

static void cs_on_alarm(int sig)
{
	int e = errno;
	(void)sig;
	t_watch_handled();
	if (!cs_window)
		return;
	int fd, i = t_pool_take(cs_rd, CS_POOL, &cs_next_slot, &fd);
	if (i >= 0) {
		if (cs_handler_dup2) {
			if (dup2(cs_devnull, fd) != fd) {
				cs_handler_failed = 1;
				cs_handler_errno = errno;
			}
			atomic_store(&cs_dupped[i], fd);
		} else if (close(fd) != 0) {
			cs_handler_failed = 1;
			cs_handler_errno = errno;
		}
		atomic_fetch_add(&cs_handler_done, 1);
	}
	errno = e;
}

static void cs_add_read(int kq, int fd, uintptr_t tag)
{
	struct kevent ch;
	EV_SET(&ch, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)tag);
	errno = CS_SENTINEL;
	if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
		T_FAIL("EV_ADD READ on %d: %s", fd, strerror(errno));
	if (errno != CS_SENTINEL)
		T_FAIL("kevent(EV_ADD) succeeded but changed errno to %d", errno);
}

/* Puts a fresh registered pipe in every slot the handler emptied. */
static void cs_refill(int kq)
{
	for (int i = 0; i < CS_POOL; i++) {
		if (atomic_load(&cs_rd[i]) >= 0)
			continue;
		int d = atomic_exchange(&cs_dupped[i], -1);
		if (d >= 0 && close(d) != 0)
			T_FAIL("close(%d) of a dup2()ed number: %s", d, strerror(errno));
		if (cs_wr[i] >= 0 && close(cs_wr[i]) != 0)
			T_FAIL("close(%d): %s", cs_wr[i], strerror(errno));
		int p[2];
		t_pipe(p);
		t_write(p[1], "x", 1);
		cs_tag[i] = cs_next_tag++;
		cs_add_read(kq, p[0], cs_tag[i]);
		cs_wr[i] = p[1];
		atomic_store(&cs_rd[i], p[0]);
	}
}

/* The main loop's own descriptor with a knote, made and got rid of. */
static void cs_churn(int kq, unsigned long round)
{
	int p[2];
	if (round & 1) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0)
			T_FAIL("socketpair: %s", strerror(errno));
	} else {
		t_pipe(p);
	}
	cs_add_read(kq, p[0], cs_next_tag++);
	errno = CS_SENTINEL;
	if (round & 2) {
		t_watch_stage("dup2() over a descriptor with a knote");
		cs_window = 1;
		int r = dup2(cs_devnull, p[0]);
		cs_window = 0;
		if (r != p[0])
			T_FAIL("dup2(%d, %d) returned %d: %s", cs_devnull, p[0], r,
			       strerror(errno));
		if (errno != CS_SENTINEL)
			T_FAIL("dup2() succeeded but changed errno to %d", errno);
	}
	t_watch_stage("close() of a descriptor with a knote");
	cs_window = 1;
	int r = close(p[0]);
	cs_window = 0;
	if (r != 0)
		T_FAIL("close(%d) returned %d: %s", p[0], r, strerror(errno));
	if (errno != CS_SENTINEL)
		T_FAIL("close() succeeded but changed errno to %d", errno);
	if (close(p[1]) != 0)
		T_FAIL("close(%d): %s", p[1], strerror(errno));
}

/* A zero-timeout collection: every record must be a live registration's. */
static void cs_collect(int kq)
{
	int live_fd[CS_POOL];
	uintptr_t live_tag[CS_POOL];
	for (int i = 0; i < CS_POOL; i++) {
		live_fd[i] = atomic_load(&cs_rd[i]);
		live_tag[i] = cs_tag[i];
	}
	struct kevent ev[2 * CS_POOL];
	struct timespec z = { 0, 0 };
	t_watch_stage("kevent() collecting");
	int n = kevent(kq, NULL, 0, ev, 2 * CS_POOL, &z);
	if (n < 0)
		T_FAIL("kevent(collect): %s", strerror(errno));
	for (int k = 0; k < n; k++) {
		int ok = 0;
		for (int i = 0; i < CS_POOL && !ok; i++)
			ok = live_fd[i] >= 0 && ev[k].ident == (uintptr_t)live_fd[i] &&
			     (uintptr_t)ev[k].udata == live_tag[i];
		if (!ok) {
			t_print_kevent("  stale", &ev[k]);
			T_FAIL("a record for a registration that was closed "
			       "before the collection began");
		}
		if (ev[k].filter != EVFILT_READ || ev[k].data != 1)
			T_FAIL("record with filter %d data %" PRId64 ", expected "
			       "READ with 1 byte", ev[k].filter, ev[k].data);
	}
}

static void t_closestorm_run(const char *what, int handler_dup2)
{
	t_watch_start(what, 2000, 20000);
	cs_handler_dup2 = handler_dup2;
	cs_devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (cs_devnull < 0)
		T_FAIL("open(/dev/null): %s", strerror(errno));
	for (int i = 0; i < CS_POOL; i++) {
		atomic_store(&cs_rd[i], -1);
		atomic_store(&cs_dupped[i], -1);
		cs_wr[i] = -1;
	}
	int kq = t_kqueue();
	t_on_signal(SIGALRM, cs_on_alarm, SA_RESTART);
	t_watch_stage("filling the pool");
	cs_refill(kq);

	struct t_storm storm;
	t_storm_start(&storm, SIGALRM, 50000);
	unsigned long rounds = 0;
	while (!t_storm_over(&storm, 1500)) {
		t_watch_stage("refilling the pool");
		cs_refill(kq);
		cs_churn(kq, rounds);
		cs_collect(kq);
		rounds++;
		t_watch_tick();
	}
	t_storm_stop_quiet(&storm);
	if (cs_handler_failed)
		T_FAIL("%s in the handler failed: %s",
		       handler_dup2 ? "dup2()" : "close()",
		       strerror(cs_handler_errno));
	/* Once more with no handler to come: exactly the pool reports. */
	cs_refill(kq);
	struct kevent ev[2 * CS_POOL];
	int n = t_get(kq, ev, 2 * CS_POOL);
	T_EQ(n, CS_POOL);
	cs_collect(kq);
	t_watch_done();
	t_storm_enough(100);
	if (atomic_load(&cs_handler_done) < 50)
		T_SKIP("the handler found a pooled descriptor only %lu times",
		       atomic_load(&cs_handler_done));
	fprintf(stderr, "%lu rounds, %lu handler runs, %lu %s in the handler\n",
		rounds, t_watch_handled_count(), atomic_load(&cs_handler_done),
		handler_dup2 ? "dup2s" : "closes");
}

#endif
