/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program handler installed with SA_RESETHAND keeps its one-shot meaning
 * while a knote watches the signal (the program's disposition is kept and
 * chained):
 * the first SIGUSR1 runs the handler once and is counted, after which the
 * disposition is SIG_DFL (sigaction query) and the next SIGUSR1 terminates
 * the process (as on FreeBSD, where the kernel resets the action on
 * delivery).  Checked with SA_RESETHAND set before the EV_ADD and set while
 * the knote exists; each in a child process, which reports its progress
 * through a pipe before the fatal send.
 */
#include "t_signal.h"


static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	T_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
}

static void scenario(int before, int out)
{
	int kq = t_kqueue();
	struct sigaction cur;
	int ud;

	t_fail_after(2, "signal-resethand: child hung");
	if (before)
		install();
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	if (!before)
		install();
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 1);
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	memset(&cur, 0, sizeof cur);
	T_EQ(sigaction(SIGUSR1, NULL, &cur), 0);
	if (cur.sa_handler != SIG_DFL)
		T_FAIL("disposition after the first delivery is %p, expected "
		       "SIG_DFL", (void *)cur.sa_handler);
	t_write(out, "k", 1);
	kill(getpid(), SIGUSR1);
	T_FAIL("survived the second SIGUSR1 (hits %d)", (int)hits);
}

static void run(const char *name, int before)
{
	int p[2];
	pid_t pid = ts_fork_pipe(p);
	if (pid == 0)
		scenario(before, p[1]);
	int st;
	char c;
	T_EQ(waitpid(pid, &st, 0), pid);
	ssize_t r = read(p[0], &c, 1);
	close(p[0]);
	if (r != 1)
		T_FAIL("%s: child failed before the second send (status "
		       "0x%x)", name, st);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGUSR1)
		T_FAIL("%s: second SIGUSR1 did not kill (status 0x%x)", name,
		       st);
}

int main(void)
{
	t_fail_after(4, "signal-resethand hung");
	run("SA_RESETHAND before EV_ADD", 1);
	run("SA_RESETHAND while the knote exists", 0);
	alarm(0);
	return 0;
}
