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
#include "t_siginterrupt.h"

int main(void)
{
	SIT_SKIP_TSAN();
	t_watch_start("signal-siginterrupt: read() after siginterrupt(SIGALRM, "
		      "1) and signal(SIGALRM) was restarted, not interrupted",
		      3000, 10000);
	int p[2];
	t_pipe(p);

	sit_siginterrupt(1);
	T_ASSERT(signal(SIGALRM, sit_on_alarm) != SIG_ERR);
	sit_read_interrupted(p, 1);
	struct sigaction cur;
	T_EQ(sigaction(SIGALRM, NULL, &cur), 0);
	if (cur.sa_flags & SA_RESTART)
		T_FAIL("signal() set SA_RESTART for a signal siginterrupt() "
		       "marked interrupting");
	t_watch_tick();

	/* Marked restarting again: the read resumes and gets the byte. */
	sit_siginterrupt(0);
	T_ASSERT(signal(SIGALRM, sit_on_alarm) == sit_on_alarm);
	T_EQ(sigaction(SIGALRM, NULL, &cur), 0);
	if (!(cur.sa_flags & SA_RESTART))
		T_FAIL("signal() did not set SA_RESTART after siginterrupt(0)");
	sit_read_restarted(p, 2);
	t_watch_done();
	return 0;
}
