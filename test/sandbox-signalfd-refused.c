/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_SIGNAL keeps counting where a sandbox refuses signalfd() (EPERM,
 * EACCES) or the kernel has none (ENOSYS).  In a child under a seccomp
 * filter the test installs (one per answer):
 *  - EV_ADD of SIGUSR1, which the program ignores, succeeds; two sends
 *    give {SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 2, udata};
 *  - a send from another thread while kevent() sleeps wakes it with data 1;
 *  - SIGUSR2, blocked, sent once before a waiting kevent(): data 1, twice
 *    over; the signal stays pending for the program (sigtimedwait() takes
 *    it).  (Without a signalfd nothing wakes a kevent() already asleep
 *    for a blocked signal, and a zero-timeout call may not see it yet:
 *    docs/differences.md.)
 *  - with pidfd_open() refused as well, a child that exits with 3 while
 *    kevent() sleeps wakes it with its NOTE_EXIT record, data 0x300.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t_seccomp.h"
#include "t_proc.h"
#include "t_signal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#include <sys/signalfd.h>

static void *send_later(void *arg)
{
	(void)arg;
	t_sleep_ms(50);
	kill(getpid(), SIGUSR1);
	return NULL;
}

static int child(int err)
{
	if (t_seccomp_refuse(SYS_signalfd4, err) != 0)
		return 77;
	sigset_t none;
	sigemptyset(&none);
	if (signalfd(-1, &none, 0) != -1 || errno != err)
		return 77;
	t_fail_after(10, "sandbox-signalfd-refused did not finish within 10 s");
	int kq = t_kqueue(), ud;
	struct timespec z = { 0, 0 };

	signal(SIGUSR1, SIG_IGN);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_NO_EVENTS(kq);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_GET1(kq, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 2, &ud);
	T_NO_EVENTS(kq);

	t_thread_nosig(send_later, NULL);
	T_WAIT1(kq, 3000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);

	sigset_t s;
	ts_block(&s, SIGUSR2);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, &kq);
	T_NO_EVENTS(kq);
	T_EQ(kill(getpid(), SIGUSR2), 0);
	T_WAIT1(kq, 3000, SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &kq);
	T_NO_EVENTS(kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR2);
	T_EQ(kill(getpid(), SIGUSR2), 0);
	T_WAIT1(kq, 3000, SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &kq);
	T_EQ(sigtimedwait(&s, NULL, &z), SIGUSR2);
	T_NO_EVENTS(kq);

	/* pidfd_open() refused too: a child's exit, announced by SIGCHLD
	 * alone, still wakes a sleeping call */
	if (t_seccomp_refuse(SYS_pidfd_open, err) != 0)
		return 77;
	int gate[2];
	pid_t pid = t_spawn_gated(gate, 3);
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &ud);
	T_NO_EVENTS(kq);
	t_write_later(gate[1], 50);
	struct kevent ev[2];
	T_EQ(t_wait(kq, ev, 2, 3000), 1);
	T_EXIT_RECORD(&ev[0], pid, 0x300, &ud);
	T_EQ(t_kid_reap(pid, WNOHANG), 0x300);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "signalfd()");
	return 0;
}
