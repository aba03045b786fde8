/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fully static program (cc -static ... libkq.a): there is no dynamic
 * loader, so nothing in libkq, its replacements of libc functions above
 * all, may depend on a run-time symbol lookup.  The common calls each work
 * as in a dynamic program: kqueue() and kevent() on a pipe, a signal knote
 * with the signal ignored, a timer, close() dropping knotes, a replaced
 * read()/write()/sigaction()/sigtimedwait(), and a fork child without the
 * parent's kqueues.
 */
#include "../t.h"

#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue(), p[2];
	struct kevent ev[4];

	T_ASSERT(pipe(p) == 0);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_NO_EVENTS(kq);
	T_EQ(write(p[1], "abc", 3), 3);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 3, NULL);

	/* the knote dies with the descriptor */
	T_ASSERT(close(p[0]) == 0);
	T_ASSERT(pipe(p) == 0);
	struct kevent d;
	EV_SET(&d, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_ERRNO(kevent(kq, &d, 1, NULL, 0, NULL), ENOENT);

	/* an ignored signal is still counted */
	T_ASSERT(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	T_ASSERT(raise(SIGUSR1) == 0);
	T_ASSERT(raise(SIGUSR1) == 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 2, NULL);
	struct sigaction sa;
	T_ASSERT(sigaction(SIGUSR1, NULL, &sa) == 0);
	T_ASSERT(sa.sa_handler == SIG_IGN);

	t_change(kq, 7, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 10, NULL);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], 7, EVFILT_TIMER, EV_ONESHOT | EV_CLEAR, 0, 1, NULL);

	/* sigtimedwait() of a blocked, watched signal */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	T_ASSERT(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
	T_ASSERT(raise(SIGUSR2) == 0);
	struct timespec ts = { 1, 0 };
	siginfo_t si;
	T_EQ(sigtimedwait(&set, &si, &ts), SIGUSR2);
	T_EQ(si.si_code, SI_USER);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit(kevent(kq, NULL, 0, ev, 4, &(struct timespec){ 0, 0 }) == -1 &&
		      errno == EBADF ? 0 : 1);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	T_ASSERT(close(kq) == 0);
	return 0;
}
