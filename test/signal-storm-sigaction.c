/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigaction() and signal() are async-signal-safe (POSIX lists both): a
 * handler that re-installs itself with signal(), the System V idiom, must
 * complete even when it interrupts its own thread inside sigaction() or
 * signal().  libkq replaces both, for every program that links it, kqueue
 * or not, so this program makes no kqueue at all.
 *
 * A timer sends SIGALRM to the main thread every 50 us for 1.5 s while
 * the thread changes dispositions in a loop: SIGUSR1 and SIGUSR2 through
 * sigaction() and signal(), and SIGALRM's own through both (the handler's
 * signal).  A watchdog thread fails the test if the loop stops.  Each call
 * of the loop must also return what glibc's returns (0, the previous
 * handler) and leave errno alone: the handler saves and restores errno, so
 * nothing the interrupted call sees may change.
 */
#include "t_storm.h"

#define SENTINEL 4242

static void on_usr_a(int sig)
{
	(void)sig;
}

static void on_usr_b(int sig)
{
	(void)sig;
}

/* One sigaction() of the loop: installs fn for sig, expects prev before. */
static void set_checked(int sig, void (*fn)(int), void (*prev)(int), int flags)
{
	struct sigaction sa = t_sigact(fn, flags), old;

	memset(&old, 0, sizeof old);
	errno = SENTINEL;
	int r = sigaction(sig, &sa, &old);
	if (r != 0)
		T_FAIL("sigaction(%d) returned %d (errno %d)", sig, r, errno);
	if (errno != SENTINEL)
		T_FAIL("sigaction(%d) succeeded but changed errno to %d", sig, errno);
	if (old.sa_handler != prev)
		T_FAIL("sigaction(%d) reported the wrong previous handler", sig);
}

int main(void)
{
	t_watch_start("signal-storm-sigaction: sigaction()/signal() in a "
		      "handler interrupting them", 2000, 20000);
	t_sysv_install();
	t_on_signal(SIGUSR1, on_usr_a, 0);
	if (signal(SIGUSR2, on_usr_a) == SIG_ERR)
		T_FAIL("signal(SIGUSR2): %s", strerror(errno));

	struct t_storm storm;
	t_storm_start(&storm, SIGALRM, 50000);
	unsigned long rounds = 0;
	while (!t_storm_over(&storm, 1500)) {
		t_watch_stage("sigaction(SIGUSR1)");
		set_checked(SIGUSR1, on_usr_b, on_usr_a, SA_RESTART);
		set_checked(SIGUSR1, on_usr_a, on_usr_b, 0);

		t_watch_stage("signal(SIGUSR2)");
		errno = SENTINEL;
		void (*prev)(int) = signal(SIGUSR2, on_usr_b);
		if (prev != on_usr_a || errno != SENTINEL)
			T_FAIL("signal(SIGUSR2) gave %p (errno %d)",
			       (void *)(uintptr_t)prev, errno);
		prev = signal(SIGUSR2, on_usr_a);
		if (prev != on_usr_b || errno != SENTINEL)
			T_FAIL("signal(SIGUSR2) gave %p (errno %d)",
			       (void *)(uintptr_t)prev, errno);

		t_watch_stage("signal(SIGALRM) and sigaction(SIGALRM)");
		prev = signal(SIGALRM, t_sysv_on_alarm);
		if (prev != t_sysv_on_alarm || errno != SENTINEL)
			T_FAIL("signal(SIGALRM) gave %p (errno %d)",
			       (void *)(uintptr_t)prev, errno);
		struct sigaction cur;
		if (sigaction(SIGALRM, NULL, &cur) != 0 || errno != SENTINEL)
			T_FAIL("sigaction(SIGALRM, NULL) failed or changed "
			       "errno (%d)", errno);
		if (cur.sa_handler != t_sysv_on_alarm)
			T_FAIL("SIGALRM's handler is no longer the program's");
		rounds++;
		t_watch_tick();
	}
	t_sysv_storm_end(&storm);
	fprintf(stderr, "%lu rounds, %lu handler runs\n", rounds,
		t_watch_handled_count());
	return 0;
}
