/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of a NOTE_EXIT knote followed by EV_DELETE: when the child is
 * then killed, no record arrives (FreeBSD proc.c add_and_delete), and a
 * second EV_DELETE fails with ENOENT.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq, st;

	t_fail_after(5, "proc-delete did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 0);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	T_NO_EVENTS(kq);
	t_change(kq, pid, EVFILT_PROC, EV_DELETE, 0, 0, NULL);
	T_ASSERT(kill(pid, SIGKILL) == 0);

	t_kid_wait_exit(pid);
	T_EQ(t_wait(kq, ev, 4, 300), 0);
	t_change_fails(kq, pid, EVFILT_PROC, EV_DELETE, NULL, ENOENT);

	st = t_kid_reap(pid, 0);
	T_EQ(st, SIGKILL);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
