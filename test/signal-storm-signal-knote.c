/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A handler that re-installs itself with signal() (the System V idiom) must
 * complete when it interrupts its own thread while that thread adds or
 * deletes an EVFILT_SIGNAL knote for some other signal: the knote's EV_ADD
 * and EV_DELETE change that signal's disposition behind the program's back,
 * and whatever libkq guards that with must not be waited for by signal(),
 * which is async-signal-safe.
 *
 * A timer sends SIGALRM to the main thread every 50 us for 1.5 s while the
 * thread adds and deletes a SIGUSR1 knote in a loop; a watchdog thread fails
 * the test if the loop stops.  Afterwards SIGUSR1's disposition is the
 * program's again, SIGALRM's is the handler, and a SIGUSR1 knote still
 * counts a send.
 */
#include "t_storm.h"

static volatile sig_atomic_t usr1_hits;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_hits++;
}

int main(void)
{
	t_watch_start("signal-storm-signal-knote: signal() in a handler "
		      "interrupting EVFILT_SIGNAL changes", 2000, 20000);
	t_sysv_install();
	t_on_signal(SIGUSR1, on_usr1, 0);
	int kq = t_kqueue();
	int ud;

	struct t_storm storm;
	t_storm_start(&storm, SIGALRM, 50000);
	unsigned long rounds = 0;
	while (!t_storm_over(&storm, 1500)) {
		struct kevent ch;
		t_watch_stage("EV_ADD of a SIGUSR1 knote");
		EV_SET(&ch, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
		if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
			T_FAIL("EV_ADD SIGUSR1: %s", strerror(errno));
		t_watch_stage("EV_DELETE of the SIGUSR1 knote");
		EV_SET(&ch, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
		if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
			T_FAIL("EV_DELETE SIGUSR1: %s", strerror(errno));
		rounds++;
		t_watch_tick();
	}
	t_sysv_storm_end(&storm);

	struct sigaction cur;
	T_EQ(sigaction(SIGALRM, NULL, &cur), 0);
	if (cur.sa_handler != t_sysv_on_alarm)
		T_FAIL("SIGALRM's handler is no longer the program's");
	T_EQ(sigaction(SIGUSR1, NULL, &cur), 0);
	if (cur.sa_handler != on_usr1)
		T_FAIL("SIGUSR1's handler is no longer the program's");

	/* The knote machinery still works: one send, one count, one run. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(usr1_hits, 1);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	fprintf(stderr, "%lu rounds, %lu handler runs\n", rounds,
		t_watch_handled_count());
	return 0;
}
