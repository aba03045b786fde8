/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * signal() honours siginterrupt(), as glibc's does: after
 * siginterrupt(SIGALRM, 1), a handler installed with signal(SIGALRM, h)
 * interrupts a blocking read() instead of restarting it, which fails with
 * EINTR.  (glibc's signal() sets SA_RESTART only for signals siginterrupt()
 * has not marked.)  And after siginterrupt(SIGALRM, 0) the same read is
 * restarted, and returns the byte that arrives later.
 *
 * The read is on an empty pipe; a one-shot 50 ms timer sends SIGALRM.  A
 * restarted read would block forever: a watchdog thread fails the test
 * after 3 s (alarm() cannot be used: SIGALRM is the signal under test).
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
	t_watch_start("signal-siginterrupt: read() after siginterrupt(SIGALRM, "
		      "1) and signal(SIGALRM) was restarted, not interrupted",
		      3000, 10000);
	int p[2];
	char c;
	t_pipe(p);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	T_EQ(siginterrupt(SIGALRM, 1), 0);
#pragma GCC diagnostic pop
	T_ASSERT(signal(SIGALRM, on_alarm) != SIG_ERR);
	t_watch_stage("read() that SIGALRM should interrupt");
	timer_50ms();
	T_ERRNO(read(p[0], &c, 1), EINTR);
	T_EQ(hits, 1);
	struct sigaction cur;
	T_EQ(sigaction(SIGALRM, NULL, &cur), 0);
	if (cur.sa_flags & SA_RESTART)
		T_FAIL("signal() set SA_RESTART for a signal siginterrupt() "
		       "marked interrupting");
	t_watch_tick();

	/* Marked restarting again: the read resumes and gets the byte. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	T_EQ(siginterrupt(SIGALRM, 0), 0);
#pragma GCC diagnostic pop
	T_ASSERT(signal(SIGALRM, on_alarm) == on_alarm);
	T_EQ(sigaction(SIGALRM, NULL, &cur), 0);
	if (!(cur.sa_flags & SA_RESTART))
		T_FAIL("signal() did not set SA_RESTART after siginterrupt(0)");
	t_watch_stage("read() that SIGALRM should not interrupt");
	t_write_later(p[1], 300);
	timer_50ms();
	T_EQ(read(p[0], &c, 1), 1);
	T_EQ(c, 'w');
	T_EQ(hits, 2);
	t_watch_done();
	return 0;
}
