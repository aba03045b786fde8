/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A NOTE_EXIT knote on a running child
 * reports nothing while the child runs; when the child is killed (SIGTERM)
 * exactly one record arrives: {pid, EVFILT_PROC, EV_CLEAR|EV_EOF|EV_ONESHOT,
 * NOTE_EXIT, wait status (15), udata}.  FreeBSD: filt_procattach forces
 * EV_CLEAR, filt_proc adds EV_EOF|EV_ONESHOT at exit; returned flags never
 * carry EV_ADD.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq, st;

	t_fail_after(5, "proc-exit-kill did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 0);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	T_NO_EVENTS(kq);
	T_ASSERT(kill(pid, SIGTERM) == 0);

	int n = t_wait(kq, ev, 4, 2000);
	T_EQ(n, 1);
	T_EXIT_RECORD(&ev[0], pid, SIGTERM, &kq);
	T_NO_EVENTS(kq);

	st = t_kid_reap(pid, 0);
	T_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	close(kq);
	return 0;
}
