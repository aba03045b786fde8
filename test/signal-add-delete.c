/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of {SIGUSR1, EVFILT_SIGNAL} succeeds (kevent() returns 0,
 * no record); after EV_DELETE a SIGUSR1 sent to the process produces no
 * record and a second EV_DELETE fails with ENOENT; a fresh EV_ADD works
 * again.  SIGUSR1 stays blocked, so the process cannot be killed; the
 * pending signal is taken with sigtimedwait() between the steps.
 * FreeBSD libkqueue/signal.c add/del tests.
 */
#include "t_signal.h"

static void block_usr1(void)
{
	sigset_t s;
	ts_block(&s, SIGUSR1);
}

/* Takes the pending SIGUSR1 (must be there) without waiting. */
static void take_usr1(void)
{
	sigset_t s;
	struct timespec z = { 0, 0 };
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR1);
}

int main(void)
{
	t_fail_after(3, "signal-add-delete hung");
	block_usr1();
	int kq = t_kqueue();
	struct kevent ch, ev[4];
	int ud;

	/* EV_ADD: kevent() returns 0 and writes no record. */
	EV_SET(&ch, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_EQ(t_kevent1(kq, &ch, ev, 4), 0);
	T_ASSERT(t_untouched(&ev[0]));
	T_NO_EVENTS(kq);

	/* A deleted knote sees nothing. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_NO_EVENTS(kq);
	take_usr1();
	T_EQ(t_change_err(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL),
	     ENOENT);

	/* Added again: counts again. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	take_usr1();
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
