/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A child watched with NOTE_EXIT|NOTE_FORK|NOTE_EXEC forks a
 * grandchild, reaps it, then execs a program (this test binary with
 * "--exit 6") that exits with status 6: all three notes are reported for
 * the child (split over records or merged; FreeBSD accumulates
 * fflags of an EV_CLEAR knote until collected), the exit record last with
 * data 0x600 and EV_CLEAR|EV_EOF|EV_ONESHOT, udata echoed, nothing about the
 * untracked grandchild.  The child is not sequenced between fork, exec and
 * exit: FreeBSD reports all three however fast they happen.
 * NOTE_FORK/NOTE_EXEC need the netlink proc connector: if EV_ADD fails with
 * ENOTSUP the test skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t_proc_track.h"

int main(int argc, char **argv)
{
	struct pt_pipes p;
	int kq;

	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		_exit(atoi(argv[2]));   /* the exec'd program */
	pt_begin("proc-fork-exec");

	pid_t x = pt_fork_piped(&p);
	if (x == 0) {
		pt_wait_byte(p.go[0]);
		pt_fork_reaped_or_exit(120);
		execl("/proc/self/exe", argv[0], "--exit", "6", (char *)NULL);
		_exit(122);
	}

	pt_watch(&kq, x, NOTE_EXIT | NOTE_FORK | NOTE_EXEC);
	t_write(p.go[1], "x", 1);

	pt_await(kq, x, NOTE_EXIT, "NOTE_EXIT");
	struct pt_seen *s = pt_find_seen(x);
	if (s->all != (NOTE_EXIT | NOTE_FORK | NOTE_EXEC)) {
		pt_dump_seen();
		T_FAIL("child reported fflags 0x%x, expected NOTE_EXIT|"
		       "NOTE_FORK|NOTE_EXEC", s->all);
	}
	T_EQ(s->exit_data, 0x600);
	if (pt_nseen() != 1) {
		pt_dump_seen();
		T_FAIL("records about %d processes, expected only the child",
		       pt_nseen());
	}
	pt_no_more(kq, 100);
	pt_reap(x, 0x600);
	close(kq);
	return 0;
}
