/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * signal() and sigaction() made by a shared library that does not link
 * libkq change the program's disposition without ending EVFILT_SIGNAL's
 * counting (FreeBSD counts every send, whatever the disposition): the new
 * handler runs for each signal, and an ignored signal is still counted.
 */
#include "../t.h"
#include "foreign.h"

static volatile sig_atomic_t handled;

static void handler(int sig)
{
	(void)sig;
	handled++;
}

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[2];

	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD | EV_CLEAR, 0, 0, (void *)1);
	T_ASSERT(foreign_signal(SIGUSR1, handler) != SIG_ERR);
	raise(SIGUSR1);
	raise(SIGUSR1);
	T_EQ(handled, 2);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 2, (void *)1);

	/* ignored through sigaction(): still counted, the process lives on */
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD | EV_CLEAR, 0, 0, (void *)2);
	T_ASSERT(foreign_sigaction(SIGUSR2, SIG_IGN, 0) == 0);
	for (int i = 0; i < 3; i++)
		raise(SIGUSR2);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 3, (void *)2);

	/* the program sees the disposition the library set */
	struct sigaction old;
	T_ASSERT(sigaction(SIGUSR2, NULL, &old) == 0);
	T_ASSERT(old.sa_handler == SIG_IGN);
	T_ASSERT(sigaction(SIGUSR1, NULL, &old) == 0);
	T_ASSERT(old.sa_handler == handler);
	return 0;
}
