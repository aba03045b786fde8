/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal a vfork() child receives is the child's, not the parent's: it
 * must not be counted by the parent's EVFILT_SIGNAL knotes (FreeBSD counts
 * sends to the watching process only).  The child inherits libkq's handler
 * and runs it in the parent's memory, and libkq's sigwaitinfo() too, so
 * both must know they run in another process.
 */
#include "t.h"

#include <sys/wait.h>

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

static void child_done(pid_t pid)
{
	T_ASSERT(pid > 0);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		T_FAIL("vfork child failed at step %d", WEXITSTATUS(st));
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer runs handlers late, at its own safe points, and
	 * this test counts handler runs */
	T_SKIP("handler timing is ThreadSanitizer's own here");
#endif
	t_fail_after(10, "signal-vfork-child-not-counted hung");
	int kq = t_kqueue();
	struct kevent ev[4];
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);

	/* Delivered to the handler the child inherited.  (kill(getpid()):
	 * getpid() is the child's own id; raise() would go by the thread
	 * descriptor, which the child shares with the parent.) */
	t_on_signal(SIGUSR1, on_usr1, 0);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)1);
	pid_t pid = vfork();
	if (pid == 0)
		_exit(kill(getpid(), SIGUSR1) == 0 ? 0 : 1);
	child_done(pid);
	/* the program's handler ran in the child, as without libkq */
	T_EQ(hits, 1);

	/* Taken by the child with sigwaitinfo() while blocked. */
	T_EQ(sigprocmask(SIG_BLOCK, &usr2, NULL), 0);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)2);
	pid = vfork();
	if (pid == 0) {
		if (kill(getpid(), SIGUSR2) != 0)
			_exit(1);
		_exit(sigwaitinfo(&usr2, NULL) == SIGUSR2 ? 0 : 2);
	}
	child_done(pid);

	T_NO_EVENTS(kq);

	/* The parent's own sends still count. */
	T_EQ(raise(SIGUSR1), 0);
	T_EQ(hits, 2);
	T_EQ(kill(getpid(), SIGUSR2), 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 2);
	if (ev[0].ident != SIGUSR1) {
		struct kevent t = ev[0];
		ev[0] = ev[1];
		ev[1] = t;
	}
	T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, (void *)1);
	T_KEVENT(&ev[1], SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 1, (void *)2);
	T_NO_EVENTS(kq);
	alarm(0);
	return 0;
}
