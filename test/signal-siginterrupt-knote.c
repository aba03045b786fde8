/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * signal() honours siginterrupt() also while the signal has an
 * EVFILT_SIGNAL knote (libkq then keeps the program's disposition aside and
 * runs its handler from its own): after siginterrupt(SIGALRM, 1), EV_ADD of
 * a SIGALRM knote and signal(SIGALRM, h), a SIGALRM that arrives during a
 * blocking read() runs h once and the read fails with EINTR instead of
 * restarting; the knote counts the send.  After siginterrupt(SIGALRM, 0)
 * and signal() again, the same read is restarted and returns the byte that
 * arrives later.
 *
 * The read is on an empty pipe; a one-shot 50 ms timer sends SIGALRM.  A
 * restarted read would block forever: a watchdog thread fails the test
 * after 3 s.
 */
#include "t_storm.h"

#include <sys/time.h>

static volatile sig_atomic_t hits;

static void on_alarm(int sig)
{
	(void)sig;
	hits++;
}

static void timer_50ms(void)
{
	struct itimerval it = { .it_value = { 0, 50000 } };
	T_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer replaces signal() with its own, which never sets
	 * SA_RESTART whatever siginterrupt() said: shown with this program
	 * built without libkq. */
	T_SKIP("signal() is ThreadSanitizer's own here");
#endif
	t_watch_start("signal-siginterrupt-knote: read() after "
		      "siginterrupt(SIGALRM, 1) and signal(SIGALRM) was "
		      "restarted, not interrupted", 3000, 10000);
	int p[2], ud;
	char c;
	t_pipe(p);
	int kq = t_kqueue();

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	T_EQ(siginterrupt(SIGALRM, 1), 0);
#pragma GCC diagnostic pop
	t_change(kq, SIGALRM, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_ASSERT(signal(SIGALRM, on_alarm) != SIG_ERR);
	t_watch_stage("read() that SIGALRM should interrupt");
	timer_50ms();
	T_ERRNO(read(p[0], &c, 1), EINTR);
	T_EQ(hits, 1);
	t_watch_tick();
	struct kevent ev[2];
	T_EQ(t_wait(kq, ev, 2, 2000), 1);
	T_KEVENT(&ev[0], SIGALRM, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	T_EQ(siginterrupt(SIGALRM, 0), 0);
#pragma GCC diagnostic pop
	T_ASSERT(signal(SIGALRM, on_alarm) == on_alarm);
	t_watch_stage("read() that SIGALRM should not interrupt");
	t_write_later(p[1], 300);
	timer_50ms();
	T_EQ(read(p[0], &c, 1), 1);
	T_EQ(c, 'w');
	T_EQ(hits, 2);
	T_EQ(t_wait(kq, ev, 2, 2000), 1);
	T_KEVENT(&ev[0], SIGALRM, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	t_watch_done();
	return 0;
}
