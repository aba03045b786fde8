/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_CLEAR is forced on proc knotes (FreeBSD
 * filt_procattach sets it), so returned flags include it though EV_ADD
 * did not ask for it:
 *  1. NOTE_EXIT knote added with plain EV_ADD: the exit record's flags are
 *     EV_CLEAR|EV_EOF|EV_ONESHOT.
 *  2. NOTE_FORK knote added with plain EV_ADD on a child that forks: the
 *     record is {X, EVFILT_PROC, EV_CLEAR, NOTE_FORK, -, udata}, and it is
 *     edge-triggered: once collected it is not reported again while X
 *     lives.  X then exits; no NOTE_EXIT was asked for, so nothing more.
 * Part 2 needs the netlink proc connector: if its EV_ADD fails with ENOTSUP
 * the test skips (part 1 has then passed).
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t_proc_track.h"

int main(void)
{
	struct kevent ev[4];
	struct pt_pipes p;
	int gate[2], kq;

	pt_begin("proc-clear-forced");
	kq = t_kqueue();

	/* 1. NOTE_EXIT */
	t_pipe(gate);
	pid_t k = pt_gated_kid(gate, 0);
	t_change(kq, k, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, &gate);
	t_write(gate[1], "x", 1);
	T_WAIT1(kq, 2000, k, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT,
		 NOTE_EXIT, 0, &gate);
	pt_reap(k, 0);
	close(gate[1]);
	T_NO_EVENTS(kq);

	/* 2. NOTE_FORK */
	pid_t x = pt_fork_piped(&p);
	if (x == 0) {
		pt_wait_byte(p.go[0]);
		pt_fork_reaped_or_exit(120);
		pt_wait_byte(p.gate[0]);
		_exit(0);
	}
	pt_add_proc(kq, x, NOTE_FORK, &p);
	T_NO_EVENTS(kq);
	t_write(p.go[1], "x", 1);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], x, EVFILT_PROC, EV_CLEAR, NOTE_FORK, ev[0].data, &p);
	T_EQ(t_wait(kq, ev, 4, 100), 0);
	T_NO_EVENTS(kq);

	t_write(p.gate[1], "x", 1);
	pt_reap(x, 0);
	pt_no_more(kq, 100);
	close(kq);
	return 0;
}
