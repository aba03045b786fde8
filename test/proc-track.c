/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_TRACK|NOTE_FORK|NOTE_EXIT|NOTE_EXEC (udata U) on a child X that
 * forks a grandchild G which exits at once (status 1): X reports NOTE_FORK
 * and later NOTE_EXIT (data 0); G gets its own knote (same fflags and
 * udata) whose NOTE_CHILD record (ident G, data = X's pid) is separate from
 * G's NOTE_EXIT record (data 0x100) -- never merged (FreeBSD PR 180385,
 * FreeBSD proc.c proc_track) -- every record carries U, nothing reports
 * NOTE_TRACKERR.  Sequenced with pipes: X reaps G and exits only after
 * G's NOTE_CHILD and X's NOTE_FORK have been collected (G is a zombie by
 * then), so the outcome does not depend on timing.
 * NOTE_FORK/NOTE_TRACK need the netlink proc connector: if EV_ADD fails
 * with ENOTSUP the test skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t_proc_track.h"

int main(void)
{
	struct pt_pipes p;
	int kq;

	pt_begin("proc-track");

	pid_t x = pt_fork_piped(&p);
	if (x == 0) {
		pt_wait_byte(p.go[0]);
		pid_t g = pt_fork_or_exit(120);
		if (g == 0)
			_exit(1);
		pt_report_pid(p.report[1], g, 121);
		pt_wait_byte(p.gate[0]);
		pt_reap_or_exit(g, 0x100, 122);
		_exit(0);
	}

	pt_watch(&kq, x, NOTE_TRACK | NOTE_FORK | NOTE_EXIT | NOTE_EXEC);
	t_write(p.go[1], "x", 1);
	pid_t g = pt_read_pid(p.report[0]);

	pt_await(kq, g, NOTE_CHILD, "grandchild NOTE_CHILD");
	pt_await(kq, x, NOTE_FORK, "child NOTE_FORK");
	t_write(p.gate[1], "x", 1);
	pt_await(kq, g, NOTE_EXIT, "grandchild NOTE_EXIT");
	pt_await(kq, x, NOTE_EXIT, "child NOTE_EXIT");
	pt_no_more(kq, 100);

	struct pt_seen *sx = pt_find_seen(x), *sg = pt_find_seen(g);
	if (pt_nseen() != 2 || sx->all != (NOTE_FORK | NOTE_EXIT) ||
	    sg->all != (NOTE_CHILD | NOTE_EXIT)) {
		pt_dump_seen();
		T_FAIL("child: want NOTE_FORK, NOTE_EXIT; grandchild: want "
		       "NOTE_CHILD, NOTE_EXIT; no other process");
	}
	T_EQ(sx->exit_data, 0);
	T_EQ(sg->child_data, x);
	T_EQ(sg->exit_data, pt_nonchild_status(0x100));
	pt_reap(x, 0);
	close(kq);
	return 0;
}
