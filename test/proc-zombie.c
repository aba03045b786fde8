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
	siginfo_t si;
	int kq, st = 0;

	t_fail_after(5, "proc-zombie did not finish within 5 s");
	pid_t pid = fork();
	if (pid < 0)
		T_FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(7);
	t_kid_reap_at_exit(pid);

	/* Wait until it is a zombie, without reaping it. */
	memset(&si, 0, sizeof si);
	T_ASSERT(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0);
	T_EQ(si.si_pid, pid);

	kq = t_kqueue();
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	int n = t_get(kq, ev, 4);
	T_EQ(n, 1);
	T_KEVENT(&ev[0], pid, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT,
		 NOTE_EXIT, 0x700, &kq);
	T_NO_EVENTS(kq);

	pid_t r = waitpid(pid, &st, WNOHANG);
	if (r != pid)
		T_FAIL("waitpid(%d, WNOHANG) after the record returned %d (%s)",
		       (int)pid, (int)r, r < 0 ? strerror(errno) : "not ready");
	t_kid_reaped();
	T_EQ(st, 0x700);
	close(kq);
	return 0;
}
