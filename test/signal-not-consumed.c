/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * With SIGUSR1 blocked, the knote reports a send without consuming
 * the signal: after the record, sigpending() still shows SIGUSR1 and
 * sigtimedwait() returns it with its original siginfo (kill: SI_USER and
 * our pid; sigqueue: SI_QUEUE and the queued value), and only once (a second
 * zero-timeout sigtimedwait() fails with EAGAIN).  FreeBSD man page
 * ("lower precedence" than normal delivery) and kqueue_peek_signal.c.
 */
#include "t_signal.h"

int main(void)
{
	t_fail_after(3, "signal-not-consumed hung");
	sigset_t s;
	ts_block(&s, SIGUSR1);

	int kq = t_kqueue();
	struct timespec z = { 0, 0 };
	siginfo_t si;
	sigset_t pend;
	int ud;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);

	/* kill() */
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_EQ(sigpending(&pend), 0);
	T_EQ(sigismember(&pend, SIGUSR1), 1);
	ts_take_kill(&s, SIGUSR1);
	T_ERRNO(sigtimedwait(&s, &si, &z), EAGAIN);
	T_NO_EVENTS(kq);

	/* sigqueue() with a value: the value reaches sigtimedwait(). */
	union sigval v = { .sival_int = 4242 };
	T_EQ(sigqueue(getpid(), SIGUSR1, v), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	memset(&si, 0, sizeof si);
	T_EQ(sigtimedwait(&s, &si, &z), SIGUSR1);
	T_EQ(si.si_code, SI_QUEUE);
	T_EQ(si.si_pid, getpid());
	T_EQ(si.si_value.sival_int, 4242);
	T_ERRNO(sigtimedwait(&s, &si, &z), EAGAIN);
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
