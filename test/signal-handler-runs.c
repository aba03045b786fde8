/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The program's own SIGUSR1 handler still runs while a signal knote
 * exists, once per send, and the knote reports every send (FreeBSD: kqueue
 * notification does not replace normal delivery, kqueue(2)).  Checked with
 * a plain handler installed before the EV_ADD (10 sends, handler count 10,
 * ten records of data 1), then an SA_SIGINFO handler installed by the
 * program after the EV_ADD (its siginfo is the real one: SIGUSR1, SI_USER,
 * our pid; sigqueue's value arrives), with the mask the program asked for
 * in force inside the handler (SIGUSR1 itself and sa_mask's SIGUSR2
 * blocked) and the mask outside untouched.
 */
#include "t.h"

static volatile sig_atomic_t hits, info_hits, bad_info, bad_mask;
static volatile sig_atomic_t last_value;

static void on_usr1(int sig)
{
	if (sig != SIGUSR1)
		bad_info = 1;
	hits++;
}

static void on_usr1_info(int sig, siginfo_t *si, void *ctx)
{
	sigset_t m;

	(void)ctx;
	if (sig != SIGUSR1 || si == NULL || si->si_signo != SIGUSR1 ||
	    si->si_pid != getpid())
		bad_info = 1;
	else if (si->si_code == SI_QUEUE)
		last_value = si->si_value.sival_int;
	else if (si->si_code != SI_USER)
		bad_info = 1;
	if (sigprocmask(SIG_BLOCK, NULL, &m) != 0 ||
	    sigismember(&m, SIGUSR1) != 1 || sigismember(&m, SIGUSR2) != 1)
		bad_mask = 1;
	info_hits++;
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer interposes sigaction() itself and runs handlers
	 * late, at its own safe points, for signals that do not arrive inside
	 * one of its interceptors (sigqueue, pthread_kill to another thread):
	 * shown with a program that does not use libkq at all. */
	T_SKIP("handler timing and dispositions are ThreadSanitizer's own here");
#endif
	t_fail_after(3, "signal-handler-runs hung");
	t_on_signal(SIGUSR1, on_usr1, 0);
	int kq = t_kqueue();
	int ud;
	sigset_t before, now;
	T_EQ(sigprocmask(SIG_BLOCK, NULL, &before), 0);
	T_EQ(sigismember(&before, SIGUSR1), 0);

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	for (int i = 1; i <= 10; i++) {
		T_EQ(kill(getpid(), SIGUSR1), 0);
		T_EQ(hits, i);
		T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
		T_NO_EVENTS(kq);
	}
	T_EQ(bad_info, 0);

	/* The program changes its handler while the knote exists. */
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	memset(&old, 0, sizeof old);
	sa.sa_sigaction = on_usr1_info;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	T_EQ(sigaction(SIGUSR1, &sa, &old), 0);
	T_ASSERT(old.sa_handler == on_usr1);   /* what the program had */

	for (int i = 1; i <= 5; i++) {
		T_EQ(kill(getpid(), SIGUSR1), 0);
		T_EQ(info_hits, i);
	}
	union sigval v = { .sival_int = 77 };
	T_EQ(sigqueue(getpid(), SIGUSR1, v), 0);
	T_EQ(info_hits, 6);
	T_EQ(last_value, 77);
	T_EQ(hits, 10);
	T_EQ(bad_info, 0);
	if (bad_mask)
		T_FAIL("inside the handler SIGUSR1 and SIGUSR2 were not both "
		       "blocked");
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 6, &ud);
	T_NO_EVENTS(kq);

	T_EQ(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&before, sig) != sigismember(&now, sig))
			T_FAIL("signal mask changed for signal %d", sig);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
