/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An EVFILT_PROC knote registered with fflags 0 (no NOTE_EXIT) on a
 * child produces no record when the child exits, and the knote is silently
 * gone afterwards: EV_DELETE fails with ENOENT (FreeBSD filt_proc sets
 * EV_DROP when no requested note fired by the exit).  The child is still
 * the program's to reap.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq, st;

	t_fail_after(5, "proc-no-exit-note did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 4);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, 0, 0, NULL);
	T_NO_EVENTS(kq);
	t_write(gate[1], "x", 1);

	t_kid_wait_exit(pid);
	/* The exit has happened; give the library a full wait to see it. */
	T_EQ(t_wait(kq, ev, 4, 300), 0);
	t_change_fails(kq, pid, EVFILT_PROC, EV_DELETE, NULL, ENOENT);

	st = t_kid_reap(pid, WNOHANG);
	T_EQ(st, 0x400);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
