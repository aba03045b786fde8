/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The exit status, and "exit is reported without reaping": a child that
 * calls _exit(3) yields one NOTE_EXIT record whose data is the wait status
 * 0x300 (FreeBSD KW_EXITCODE); afterwards the child is still a zombie that
 * the program itself reaps with waitpid(WNOHANG), getting the same status.
 * Sequenced with a pipe: the child exits only after the knote exists.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq, st = 0;

	t_fail_after(5, "proc-exit-status did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 3);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &st);
	T_NO_EVENTS(kq);
	t_write(gate[1], "x", 1);

	int n = t_wait(kq, ev, 4, 2000);
	T_EQ(n, 1);
	T_EXIT_RECORD(&ev[0], pid, 0x300, &st);

	/* Not reaped by the library: the zombie is still ours to collect. */
	st = t_kid_reap(pid, WNOHANG);
	T_EQ(st, 0x300);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
