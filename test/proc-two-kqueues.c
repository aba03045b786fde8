/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two kqueues watch the same child with NOTE_EXIT (different udata);
 * when it exits (status 5) each kqueue reports its own record with data
 * 0x500 and its own udata.  The child is reaped by the program afterwards.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq1, kq2, st;

	t_fail_after(5, "proc-two-kqueues did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 5);
	kq1 = t_kqueue();
	kq2 = t_kqueue();

	t_change(kq1, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq1);
	t_change(kq2, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq2);
	T_NO_EVENTS(kq1);
	T_NO_EVENTS(kq2);
	t_write(gate[1], "x", 1);

	T_EQ(t_wait(kq1, ev, 4, 2000), 1);
	T_EXIT_RECORD(&ev[0], pid, 0x500, &kq1);
	T_EQ(t_wait(kq2, ev, 4, 2000), 1);
	T_EXIT_RECORD(&ev[0], pid, 0x500, &kq2);
	T_NO_EVENTS(kq1);
	T_NO_EVENTS(kq2);

	st = t_kid_reap(pid, WNOHANG);
	T_EQ(st, 0x500);
	close(kq1);
	close(kq2);
	return 0;
}
