/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_EXIT on a process of the same uid that is not our child (a
 * grandchild G, child of our child X): when G exits with status 9 and X
 * reaps it, one record {G, EVFILT_PROC, EV_CLEAR|EV_EOF|EV_ONESHOT,
 * NOTE_EXIT, 0x900, udata} arrives.
 * Deviation from FreeBSD: FreeBSD reports at G's exit; Linux gives a
 * non-child's exit status only once its real parent has reaped it
 * (PIDFD_GET_INFO, Linux >= 6.15), so libkq delivers the record at reap
 * time.  The test lets X reap G at once and only checks
 * that the record arrives with the exact status; on kernels before 6.15 it
 * skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534, so it checks what an unprivileged program gets.
 */
#include "t_proc_track.h"

int main(void)
{
	struct pt_pipes p;
	int kq;
	pid_t g;

	if (!pt_kernel_at_least(6, 15))
		T_SKIP("a non-child's exit status needs PIDFD_GET_INFO "
		       "(Linux 6.15)");
	pt_begin("proc-nonchild");

	/* X forks G at once; G waits on go, X (after reaping G) on gate. */
	pid_t x = pt_fork_piped(&p);
	if (x == 0) {
		g = pt_fork_or_exit(120);
		if (g == 0) {
			pt_wait_byte(p.go[0]);
			_exit(9);
		}
		pt_report_pid(p.report[1], g, 121);
		pt_reap_or_exit(g, 0x900, 122);
		pt_wait_byte(p.gate[0]);
		_exit(0);
	}
	g = pt_read_pid(p.report[0]);

	kq = t_kqueue();
	t_change(kq, g, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	T_NO_EVENTS(kq);
	t_write(p.go[1], "x", 1);

	T_WAIT1(kq, 2000, g, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT,
		 NOTE_EXIT, 0x900, &kq);
	T_NO_EVENTS(kq);

	t_write(p.gate[1], "x", 1);
	pt_reap(x, 0);
	T_NO_EVENTS(kq);
	close(kq);
	return 0;
}
