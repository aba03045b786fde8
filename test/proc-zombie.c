/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD of NOTE_EXIT on a child that is already a zombie is accepted
 * and the exit record {pid, EVFILT_PROC, EV_CLEAR|EV_EOF|EV_ONESHOT,
 * NOTE_EXIT, 0x700, udata} is there at once (zero-timeout collection):
 * FreeBSD filt_procattach finds zombies for NOTE_EXIT (pfind_any) and
 * activates the knote immediately.  The program can still waitpid() it.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int kq, st = 0;

	t_fail_after(5, "proc-zombie did not finish within 5 s");
	pid_t pid = fork();
	if (pid < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(7);
	t_kid_reap_at_exit(pid);

	t_kid_wait_exit(pid);

	kq = t_kqueue();
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	int n = t_get(kq, ev, 4);
	T_EQ(n, 1);
	T_EXIT_RECORD(&ev[0], pid, 0x700, &kq);
	T_NO_EVENTS(kq);

	st = t_kid_reap(pid, WNOHANG);
	T_EQ(st, 0x700);
	close(kq);
	return 0;
}
