/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A vfork() child that resets a disposition before exec (Python's
 * subprocess does this for every signal) changes only its own disposition.
 * The child runs in the parent's memory, so had libkq's sigaction()/signal()
 * updated the disposition it keeps for the program there, the parent would
 * later die from a signal it ignores, or stop calling its handler.  The
 * parent must still count every send with EVFILT_SIGNAL and see its own
 * disposition unchanged; the child sees the parent's disposition as the old
 * one, as it would without libkq.
 */
#include "t.h"

#include <stdbool.h>
#include <sys/wait.h>

static volatile sig_atomic_t hits;

static void on_usr2(int sig)
{
	(void)sig;
	hits++;
}

/* Exit status of a vfork() child that sets sig to SIG_DFL, with signal()
 * or sigaction(), and exits 0 if the old disposition it was given is
 * `expect`.  The child only calls async-signal-safe functions and _exit. */
static int child_resets(int sig, bool with_sigaction, void (*expect)(int))
{
	struct sigaction dfl, old;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);

	pid_t pid = vfork();
	if (pid == 0) {
		void (*was)(int);
		if (with_sigaction) {
			if (sigaction(sig, &dfl, &old) != 0)
				_exit(3);
			was = old.sa_handler;
		} else {
			was = signal(sig, SIG_DFL);
		}
		_exit(was == expect ? 0 : 2);
	}
	T_ASSERT(pid > 0);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void check_disposition(int sig, void (*expect)(int))
{
	struct sigaction cur;
	T_ASSERT(sigaction(sig, NULL, &cur) == 0);
	if (cur.sa_handler != expect)
		T_FAIL("signal %d: the parent's disposition changed to %p "
		       "(expected %p)", sig, (void *)cur.sa_handler,
		       (void *)expect);
}

static void three_counted(int kq, int sig, void *ud)
{
	for (int i = 0; i < 3; i++)
		T_EQ(raise(sig), 0);
	T_WAIT1(kq, 2000, sig, EVFILT_SIGNAL, EV_CLEAR, 0, 3, ud);
	T_NO_EVENTS(kq);
}

int main(void)
{
	t_fail_after(10, "signal-vfork-child-disposition hung");
	int kq = t_kqueue();

	/* Ignored signal, child uses signal(). */
	T_ASSERT(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)1);
	T_EQ(child_resets(SIGUSR1, false, SIG_IGN), 0);
	check_disposition(SIGUSR1, SIG_IGN);
	three_counted(kq, SIGUSR1, (void *)1);
	check_disposition(SIGUSR1, SIG_IGN);

	/* Handled signal, child uses sigaction(). */
	t_on_signal(SIGUSR2, on_usr2, 0);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)2);
	T_EQ(child_resets(SIGUSR2, true, on_usr2), 0);
	check_disposition(SIGUSR2, on_usr2);
	three_counted(kq, SIGUSR2, (void *)2);
	T_EQ(hits, 3);
	check_disposition(SIGUSR2, on_usr2);

	/* The last EV_DELETE still puts the parent's dispositions back. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	check_disposition(SIGUSR1, SIG_IGN);
	check_disposition(SIGUSR2, on_usr2);
	T_EQ(raise(SIGUSR1), 0);
	T_EQ(raise(SIGUSR2), 0);
	T_EQ(hits, 4);
	alarm(0);
	return 0;
}
