/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A handler that calls kevent() on a kqueue while its own thread is inside
 * close() of a descriptor with a knote in that kqueue must return: with
 * the records due, or with EDEADLK when close() was in the middle of
 * removing the knote (libkq's close() records the kqueue as held instead of
 * blocking signals, as kevent() does), never hang and never fail otherwise.
 *
 * For 1.5 s, with a timer sending SIGALRM to the thread every 50 us, the
 * main loop makes a socketpair, adds a READ knote on one end (a byte
 * buffered on it), and closes it; a second socket keeps a level READ
 * knote with a byte buffered, so a handler's kevent() that gets through
 * returns its record.  The handler acts only while the loop is in close().
 * A watchdog thread fails the test if the loop stops.
 */
#include "t_storm.h"

#define SENTINEL 4245

static int kq, steady;
static volatile sig_atomic_t in_close, bad_errno, bad_record;
static atomic_ulong got_records, got_edeadlk;

static void on_alarm(int sig)
{
	int e = errno;
	(void)sig;
	t_watch_handled();
	if (in_close) {
		struct kevent ev[4];
		struct timespec z = { 0, 0 };
		int n = kevent(kq, NULL, 0, ev, 4, &z);
		if (n < 0 && errno == EDEADLK)
			atomic_fetch_add(&got_edeadlk, 1);
		else if (n < 0)
			bad_errno = errno;
		else {
			/* the steady knote; the closing socket's too if the
			 * handler came before close() reached the kqueue */
			for (int i = 0; i < n; i++)
				if (ev[i].filter != EVFILT_READ || ev[i].data != 1)
					bad_record = 1;
			atomic_fetch_add(&got_records, 1);
		}
	}
	errno = e;
}

int main(void)
{
	t_watch_start("signal-storm-kevent-in-close: kevent() in a handler "
		      "interrupting close()", 2000, 20000);
	kq = t_kqueue();
	int st[2];
	t_socketpair(st);
	steady = st[0];
	t_write(st[1], "s", 1);
	t_change(kq, steady, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_on_signal(SIGALRM, on_alarm, SA_RESTART);

	struct t_storm storm;
	t_storm_start(&storm, SIGALRM, 50000);
	unsigned long rounds = 0;
	while (!t_storm_over(&storm, 1500)) {
		int sp[2];
		t_watch_stage("socketpair and EV_ADD");
		t_socketpair(sp);
		t_write(sp[1], "x", 1);
		t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, (void *)(uintptr_t)sp[0]);
		t_watch_stage("close()");
		errno = SENTINEL;
		in_close = 1;
		int r = close(sp[0]);
		in_close = 0;
		if (r != 0 || errno != SENTINEL)
			T_FAIL("close(%d) = %d, errno %d", sp[0], r, errno);
		T_EQ(close(sp[1]), 0);
		t_watch_stage("checking the kqueue");
		struct kevent ev[4];
		int n = t_get(kq, ev, 4);
		if (n != 1 || ev[0].ident != (uintptr_t)steady)
			T_FAIL("%d records after the close, the first for %d",
			       n, n > 0 ? (int)ev[0].ident : -1);
		if (bad_errno)
			T_FAIL("a handler's kevent() failed with errno %d", (int)bad_errno);
		if (bad_record)
			T_FAIL("a handler's kevent() returned a wrong record");
		rounds++;
		t_watch_tick();
	}
	t_storm_stop_quiet(&storm);
	t_watch_done();
	t_storm_enough(1000);
	fprintf(stderr, "%lu rounds; handler kevent() in close(): %lu with records, "
		"%lu EDEADLK\n", rounds, atomic_load(&got_records), atomic_load(&got_edeadlk));
	return 0;
}
