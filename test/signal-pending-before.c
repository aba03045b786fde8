/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal already pending (blocked) before the knote is added is not
 * counted; only sends after the EV_ADD are (FreeBSD counts at send time, in
 * tdsendsignal; library decision: the same).  Checked: pending SIGUSR1,
 * EV_ADD, get -> nothing; the signal is still pending (sigtimedwait returns
 * it); a new send -> data 1.  Then: pending before the EV_ADD and delivered
 * to the program's handler by unblocking afterwards -> the handler runs,
 * no record; a new (unblocked) send -> data 1.
 */
#include "t_signal.h"

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

int main(void)
{
	t_fail_after(3, "signal-pending-before hung");
	t_on_signal(SIGUSR1, on_usr1, 0);
	sigset_t s;
	struct timespec z = { 0, 0 };
	ts_block(&s, SIGUSR1);
	int ud;

	/* Taken by sigtimedwait. */
	T_EQ(kill(getpid(), SIGUSR1), 0);
	int kq = t_kqueue();
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);
	t_sleep_ms(20);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
	T_NO_EVENTS(kq);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
	T_EQ(close(kq), 0);

	/* Delivered to the handler after the EV_ADD. */
	T_EQ(kill(getpid(), SIGUSR1), 0);
	kq = t_kqueue();
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(hits, 0);
	T_EQ(sigprocmask(SIG_UNBLOCK, &s, NULL), 0);
	T_EQ(hits, 1);
	T_NO_EVENTS(kq);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 2);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
