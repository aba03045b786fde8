/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An EV_ONESHOT signal knote reports the first send once
 * ({SIGUSR1, SIGNAL, EV_CLEAR|EV_ONESHOT, 0, 1, udata}) and is then gone:
 * a second send gives no record and EV_DELETE fails with ENOENT.  The
 * program's handler runs for both sends, and once the knote is gone the
 * program's disposition is back in the kernel as it was (sigaction query).
 * FreeBSD libkqueue/signal.c test_kevent_signal_oneshot.
 */
#include "t.h"

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

int main(void)
{
	t_fail_after(3, "signal-oneshot hung");
	t_on_signal(SIGUSR1, on_usr1, SA_RESTART);
	int kq = t_kqueue();
	int ud;

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD | EV_ONESHOT, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 1);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR | EV_ONESHOT, 0, 1,
		 &ud);
	T_NO_EVENTS(kq);

	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 2);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL),
	     ENOENT);

	struct sigaction cur;
	memset(&cur, 0, sizeof cur);
	T_EQ(sigaction(SIGUSR1, NULL, &cur), 0);
	T_ASSERT(cur.sa_handler == on_usr1);
	T_ASSERT((cur.sa_flags & SA_RESTART) != 0);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
