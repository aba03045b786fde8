/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A child killed by SIGKILL yields a NOTE_EXIT record with data ==
 * SIGKILL (9), the wait status of a signal death without core dump
 * (FreeBSD KW_EXITCODE(0, SIGKILL)); the child stays a zombie for the
 * program's own waitpid(), which reports WIFSIGNALED / SIGKILL.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq, st = 0;

	t_fail_after(5, "proc-exit-sigkill did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 0);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	T_ASSERT(kill(pid, SIGKILL) == 0);

	int n = t_wait(kq, ev, 4, 2000);
	T_EQ(n, 1);
	T_EXIT_RECORD(&ev[0], pid, SIGKILL, NULL);

	st = t_kid_reap(pid, WNOHANG);
	T_EQ(st, SIGKILL);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
