/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A NOTE_EXIT knote that is disabled when the child exits reports
 * nothing while disabled; EV_ENABLE makes the exit record appear at once
 * (FreeBSD keeps the activation of a disabled knote and queues it on
 * enable), with data = wait status (0x200).  It is still one-shot: after
 * it, EV_DELETE fails with ENOENT.
 * The EV_DISABLE and EV_ENABLE changes carry fflags NOTE_EXIT because on
 * FreeBSD every change to an existing knote replaces its fflags
 * (kqueue_register: kn_sfflags = kev->fflags); an EV_DISABLE with fflags 0
 * would remove NOTE_EXIT and the exit would then drop the knote silently.
 */
#include "t_proc.h"

int main(void)
{
	struct kevent ev[4];
	int gate[2], kq, st;

	t_fail_after(5, "proc-disabled did not finish within 5 s");
	pid_t pid = t_spawn_gated(gate, 2);
	kq = t_kqueue();

	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &kq);
	t_change(kq, pid, EVFILT_PROC, EV_DISABLE, NOTE_EXIT, 0, &kq);
	t_write(gate[1], "x", 1);

	t_kid_wait_exit(pid);
	T_EQ(t_wait(kq, ev, 4, 300), 0);

	t_change(kq, pid, EVFILT_PROC, EV_ENABLE, NOTE_EXIT, 0, &kq);
	T_EQ(t_get(kq, ev, 4), 1);
	T_EXIT_RECORD(&ev[0], pid, 0x200, &kq);
	T_NO_EVENTS(kq);
	t_change_fails(kq, pid, EVFILT_PROC, EV_DELETE, NULL, ENOENT);

	st = t_kid_reap(pid, WNOHANG);
	T_EQ(st, 0x200);
	close(kq);
	return 0;
}
