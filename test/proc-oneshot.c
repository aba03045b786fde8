/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NOTE_EXIT knote is one-shot (filt_proc sets EV_ONESHOT at exit):
 * after its record has been collected, nothing more is reported (also after
 * the child is reaped), and EV_DELETE of it fails with ENOENT.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq;

	t_fail_after(5, "proc-oneshot did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 0);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
	T_ASSERT(kill(pid, SIGKILL) == 0);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_EXIT_RECORD(&ev[0], pid, SIGKILL, NULL);

	T_EQ(t_wait(kq, ev, 4, 100), 0);
	t_change_fails(kq, pid, EVFILT_PROC, EV_DELETE, NULL, ENOENT);

	t_kid_reap(pid, 0);
	T_EQ(t_wait(kq, ev, 4, 100), 0);
	t_change_fails(kq, pid, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	close(kq);
	return 0;
}
