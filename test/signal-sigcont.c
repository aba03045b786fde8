/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A process W with knotes on SIGCONT and SIGSTOP
 * (both at SIG_DFL) is stopped with SIGSTOP and continued with SIGCONT by
 * its parent: it really stops and continues (waitpid WUNTRACED/WCONTINUED),
 * then W finds exactly one record {SIGCONT, SIGNAL, EV_CLEAR, 0, 1} and none
 * for SIGSTOP (uncatchable: accepted, never fires, as in
 * signal-bad-ident).  A SIGCONT W sends itself while running is counted
 * too.  mheily/libkqueue "sigcont"; FreeBSD counts
 * SIGCONT like any signal.  The parent kills W if anything hangs.
 */
#include "t_signal.h"

static pid_t w_pid;

static void on_deadline(int sig)
{
	static const char msg[] = "FAIL: signal-sigcont hung\n";
	(void)sig;
	if (w_pid > 0)
		kill(w_pid, SIGKILL);
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* nothing more to do */
	}
	_exit(1);
}

static void watcher(int ready, int go)
{
	int kq = t_kqueue();
	int ud;
	char c;

	t_change(kq, SIGCONT, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	t_change(kq, SIGSTOP, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	t_write(ready, "r", 1);
	ssize_t r;
	while ((r = read(go, &c, 1)) < 0 && errno == EINTR)
		;
	T_EQ(r, 1);
	T_WAIT1(kq, 2000, SIGCONT, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);

	T_EQ(kill(getpid(), SIGCONT), 0);
	T_WAIT1(kq, 2000, SIGCONT, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
	exit(0);
}

int main(void)
{
	int ready[2], go[2];
	w_pid = ts_fork_ready_go(ready, go);
	if (w_pid == 0)
		watcher(ready[1], go[0]);
	t_on_signal(SIGALRM, on_deadline, 0);
	alarm(3);

	char c;
	int st;
	T_EQ(read(ready[0], &c, 1), 1);
	T_EQ(kill(w_pid, SIGSTOP), 0);
	T_EQ(waitpid(w_pid, &st, WUNTRACED), w_pid);
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP)
		T_FAIL("W did not stop (status 0x%x)", st);
	T_EQ(kill(w_pid, SIGCONT), 0);
	T_EQ(waitpid(w_pid, &st, WCONTINUED), w_pid);
	if (!WIFCONTINUED(st))
		T_FAIL("W did not continue (status 0x%x)", st);
	t_write(go[1], "g", 1);
	ts_reap_ok("W", w_pid);
	alarm(0);
	return 0;
}
