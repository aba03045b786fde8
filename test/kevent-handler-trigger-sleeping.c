/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The self-wake of an event loop: a signal handler triggers an EVFILT_USER
 * knote on the kqueue its own thread sleeps in (kevent() with no timeout).
 * FreeBSD: the handler's kevent() works, the sleep returns (EINTR, as the
 * signal interrupts it) and the trigger is reported, at the latest by the
 * next kevent().  100 rounds, one trigger each: the handler triggers once
 * per round, so a trigger lost is a loop asleep for good (the watchdog
 * fails the test).  Half the rounds wait with a record list of 1, half
 * with 8; one kqueue has a second, idle knote on a pipe so its sleep is
 * the general one.
 */
#include "t_storm.h"

#define ROUNDS 100

static int kq;
static volatile sig_atomic_t armed, failed, fail_errno, fired;

static void on_alarm(int sig)
{
	(void)sig;
	int e = errno;
	t_watch_handled();
	if (armed) {
		armed = 0;
		struct kevent ch;
		EV_SET(&ch, 7, EVFILT_USER, 0, NOTE_TRIGGER, 0, (void *)0x77);
		if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0) {
			failed++;
			fail_errno = errno;
		}
		fired++;
	}
	errno = e;
}

static void run(int with_pipe)
{
	kq = t_kqueue();
	t_change(kq, 7, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, (void *)0x77);
	int p[2] = { -1, -1 };
	if (with_pipe) {
		T_ASSERT(pipe(p) == 0);
		t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	}
	for (int round = 0; round < ROUNDS; round++) {
		struct kevent ev[8];
		int nev = round % 2 ? 8 : 1, n;
		armed = 1;
		do {
			n = kevent(kq, NULL, 0, ev, nev, NULL);
		} while (n < 0 && errno == EINTR);
		if (n != 1)
			T_FAIL("round %d: kevent() returned %d (%s)", round, n,
			       n < 0 ? strerror(errno) : "");
		if (ev[0].ident != 7 || ev[0].filter != EVFILT_USER ||
		    ev[0].flags != EV_CLEAR || ev[0].fflags != 0 || ev[0].data != 0 ||
		    ev[0].udata != (void *)0x77)
			T_FAIL("round %d: record {ident=%lu filter=%d flags=0x%x "
			       "fflags=0x%x data=%lld udata=%p}", round,
			       (unsigned long)ev[0].ident, ev[0].filter, ev[0].flags,
			       ev[0].fflags, (long long)ev[0].data, ev[0].udata);
		t_watch_tick();
	}
	if (failed)
		T_FAIL("%d of the handler's triggers failed (last: %s)", (int)failed,
		       strerror(fail_errno));
	close(kq);
	if (with_pipe) {
		close(p[0]);
		close(p[1]);
	}
}

int main(void)
{
	t_watch_start("kevent-handler-trigger-sleeping: a handler triggers the "
		      "kqueue its thread sleeps in", 3000, 20000);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	struct t_storm st;
	t_storm_start(&st, SIGALRM, 2000000);   /* every 2 ms */
	t_watch_stage("one knote");
	run(0);
	t_watch_stage("with an idle pipe");
	run(1);
	t_storm_stop_quiet(&st);
	t_watch_done();
	return 0;
}
