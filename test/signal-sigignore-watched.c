/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sigignore() on a signal a knote watches makes the program's disposition
 * SIG_IGN while the knote still counts every send (FreeBSD counts ignored
 * signals), and the last EV_DELETE leaves the signal really ignored.
 */
#include "t.h"

/* the calls under test are obsolescent, and glibc says so */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static volatile sig_atomic_t ran;

static void h(int sig) { (void)sig; ran++; }

int main(void)
{
	int kq = t_kqueue();

	T_ASSERT(signal(SIGUSR2, h) != SIG_ERR);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	T_EQ(sigignore(SIGUSR2), 0);
	T_ASSERT(raise(SIGUSR2) == 0);
	T_ASSERT(raise(SIGUSR2) == 0);
	T_EQ(ran, 0);
	T_WAIT1(kq, 2000, SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 2, NULL);

	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	struct sigaction sa;
	T_ASSERT(sigaction(SIGUSR2, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == SIG_IGN);
	T_ASSERT(raise(SIGUSR2) == 0);   /* ignored: the process lives */
	T_EQ(sigignore(0), -1);
	T_EQ(errno, EINVAL);
	return 0;
}
