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
#include "t_siginterrupt.h"

int main(void)
{
	SIT_SKIP_TSAN();
	t_watch_start("signal-siginterrupt-knote: read() after "
		      "siginterrupt(SIGALRM, 1) and signal(SIGALRM) was "
		      "restarted, not interrupted", 3000, 10000);
	int p[2], ud;
	t_pipe(p);
	int kq = t_kqueue();

	sit_siginterrupt(1);
	t_change(kq, SIGALRM, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_ASSERT(signal(SIGALRM, sit_on_alarm) != SIG_ERR);
	sit_read_interrupted(p, 1);
	t_watch_tick();
	T_WAIT1(kq, 2000, SIGALRM, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);

	sit_siginterrupt(0);
	T_ASSERT(signal(SIGALRM, sit_on_alarm) == sit_on_alarm);
	sit_read_restarted(p, 2);
	T_WAIT1(kq, 2000, SIGALRM, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	t_watch_done();
	return 0;
}
