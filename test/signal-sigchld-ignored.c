/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SIGCHLD set to SIG_IGN by the program keeps its meaning: children are
 * reaped automatically (waitpid() then fails with ECHILD) and, as on FreeBSD
 * where an ignored SIGCHLD is not generated at all, no SIGCHLD record is
 * reported.  Checked with SIG_IGN set before the knote exists and set while
 * it exists.  Positive control first: with SIGCHLD at SIG_DFL a child's exit
 * is reported ({SIGCHLD, SIGNAL, EV_CLEAR, 0, 1}) and the child stays a
 * zombie for waitpid().  Each variant runs in its own child process (its own
 * SIGCHLD disposition and children).
 */
#include "t_signal.h"

#include <sys/wait.h>

static pid_t spawn_exit(int code)
{
	pid_t pid = fork();
	if (pid < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(code);
	return pid;
}

/* The child is gone (auto-reaped): waitpid() waits for it, then ECHILD. */
static void expect_autoreaped(pid_t pid)
{
	int st;
	errno = 0;
	pid_t r = waitpid(pid, &st, 0);
	if (r != -1 || errno != ECHILD)
		T_FAIL("waitpid(%d) = %d (errno %d): child not auto-reaped "
		       "under SIG_IGN", (int)pid, (int)r, errno);
}

static void ignore_chld(void)
{
	if (signal(SIGCHLD, SIG_IGN) == SIG_ERR)
		T_FAIL("signal(SIGCHLD, SIG_IGN): %s", strerror(errno));
}

/* SIG_DFL control, then SIG_IGN set while the knote exists. */
static void ign_after(void)
{
	int kq = t_kqueue();
	int ud;

	t_change(kq, SIGCHLD, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	pid_t c = spawn_exit(3);
	T_WAIT1(kq, 2000, SIGCHLD, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	int st;
	T_EQ(waitpid(c, &st, 0), c);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	T_NO_EVENTS(kq);

	ignore_chld();
	for (int i = 0; i < 3; i++)
		expect_autoreaped(spawn_exit(0));
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
}

/* SIG_IGN set before the knote exists. */
static void ign_before(void)
{
	ignore_chld();
	int kq = t_kqueue();
	t_change(kq, SIGCHLD, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	for (int i = 0; i < 3; i++)
		expect_autoreaped(spawn_exit(0));
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
}

static void run(const char *name, void (*fn)(void))
{
	int st = ts_run_child(fn, "signal-sigchld-ignored: child hung");

	ts_expect_ok(name, st);
}

int main(void)
{
	run("SIG_IGN set while the knote exists", ign_after);
	run("SIG_IGN set before the knote", ign_before);
	return 0;
}
