/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Children for the EVFILT_PROC tests (test/proc-*.c).  A test that fails
 * exits at once, and a child it left running would outlive it: the child
 * named with t_kid_reap_at_exit() is killed and reaped at exit unless the
 * test has reaped it itself and said so with t_kid_reaped().
 */
#ifndef T_PROC_H
#define T_PROC_H

#include "t.h"

#include <sys/wait.h>

static inline pid_t *t_kid_state(void)
{
	static pid_t kid;
	return &kid;
}

static inline void t_kid_kill(void)
{
	pid_t kid = *t_kid_state();

	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
}

/* pid is killed and reaped at exit (one child per test). */
static inline void t_kid_reap_at_exit(pid_t pid)
{
	*t_kid_state() = pid;
	atexit(t_kid_kill);
}

/* The child is reaped already: nothing to do at exit. */
static inline void t_kid_reaped(void)
{
	*t_kid_state() = 0;
}

/* Makes the pipe gate and forks a child that blocks reading gate[0] (byte
 * or EOF), then _exit(code); it is reaped at exit unless the test does it. */
static inline pid_t t_spawn_gated(int gate[2], int code)
{
	t_pipe(gate);
	pid_t pid = fork();

	if (pid < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		char c;

		close(gate[1]);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(code);
	}
	t_kid_reap_at_exit(pid);
	return pid;
}

/* Waits until the child pid has exited, leaving it a zombie to reap. */
static inline void t_kid_wait_exit(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	T_ASSERT(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0);
	T_EQ(si.si_pid, pid);
}

/* Reaps the child pid, which waitpid(options) must return, and gives its
 * wait status. */
static inline int t_kid_reap(pid_t pid, int options)
{
	int st = 0;
	pid_t r = waitpid(pid, &st, options);

	if (r != pid)
		T_FAIL("waitpid(%d, 0x%x) returned %d (%s)", (int)pid, options,
		       (int)r, r < 0 ? strerror(errno) : "not ready");
	t_kid_reaped();
	return st;
}

/* The one record of a NOTE_EXIT knote: wait status data. */
#define T_EXIT_RECORD(ev, pid, data, udata)                                \
	T_KEVENT((ev), (pid), EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT, \
		 NOTE_EXIT, (data), (udata))

#endif
