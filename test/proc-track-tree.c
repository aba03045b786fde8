/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kqueue paper's example of tracking a process tree (section 5):
 * EVFILT_PROC with NOTE_FORK|NOTE_TRACK|NOTE_EXEC|NOTE_EXIT (udata U) on
 * process A (our child).  A forks B and C; C forks D; D execs a program
 * (this test binary with "--exit 5") which exits.  Expected, per process,
 * over all its records (split or merged as FreeBSD may):
 *   A: NOTE_FORK, then NOTE_EXIT (data 0x100); no NOTE_CHILD, no NOTE_EXEC
 *   B: NOTE_CHILD (data = A), NOTE_EXIT (data 0x200)
 *   C: NOTE_CHILD (data = A), NOTE_FORK, NOTE_EXIT (data 0x400)
 *   D: NOTE_CHILD (data = C), NOTE_EXEC, NOTE_EXIT (data 0x500)
 * every record with udata U and EV_CLEAR, no NOTE_TRACKERR, and a
 * NOTE_CHILD record never merged with the process's own NOTE_EXIT (FreeBSD
 * PR 180385).  Records about no other process; nothing after the exits.
 * Sequenced with pipes so the outcome does not depend on timing: each of
 * B, C, D waits until its NOTE_CHILD record has been collected before it
 * goes on; A and C reap their children.  B, C and D are not our children:
 * see pt_nonchild_status() for when and with what data their exit is reported.
 * NOTE_FORK/NOTE_EXEC/NOTE_TRACK need the netlink proc connector: if EV_ADD
 * fails with ENOTSUP the test skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t_proc_track.h"

/* Process A: forks B and C (reporting their pids), reaps both, exits 1. */
static void run_a(int go, int gb, int gc, int gd, int report, char *self)
{
	pt_wait_byte(go);
	pid_t b = pt_fork_or_exit(120);
	if (b == 0) {
		pt_wait_byte(gb);
		_exit(2);
	}
	pt_report_pid(report, b, 121);
	pid_t c = pt_fork_or_exit(122);
	if (c == 0) {
		pt_wait_byte(gc);
		pid_t d = pt_fork_or_exit(123);
		if (d == 0) {
			pt_wait_byte(gd);
			execl("/proc/self/exe", self, "--exit", "5",
			      (char *)NULL);
			_exit(124);
		}
		pt_report_pid(report, d, 125);
		pt_reap_or_exit(d, 0x500, 126);
		_exit(4);
	}
	pt_report_pid(report, c, 127);
	pt_reap_or_exit(b, 0x200, 128);
	pt_reap_or_exit(c, 0x400, 129);
	_exit(1);
}

int main(int argc, char **argv)
{
	int go[2], gb[2], gc[2], gd[2], report[2], kq;

	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		_exit(atoi(argv[2]));   /* the program D execs */
	pt_begin("proc-track-tree");
	t_pipe(go);
	t_pipe(gb);
	t_pipe(gc);
	t_pipe(gd);
	t_pipe(report);

	pid_t a = pt_fork();
	if (a == 0) {
		close(go[1]);
		close(gb[1]);
		close(gc[1]);
		close(gd[1]);
		close(report[0]);
		run_a(go[0], gb[0], gc[0], gd[0], report[1], argv[0]);
	}
	close(go[0]);
	close(gb[0]);
	close(gc[0]);
	close(gd[0]);
	close(report[1]);

	pt_watch(&kq, a, NOTE_FORK | NOTE_TRACK | NOTE_EXEC | NOTE_EXIT);
	t_write(go[1], "x", 1);

	pid_t b = pt_read_pid(report[0]);
	pid_t c = pt_read_pid(report[0]);
	pt_await(kq, b, NOTE_CHILD, "B's NOTE_CHILD");
	pt_await(kq, c, NOTE_CHILD, "C's NOTE_CHILD");
	pt_await(kq, a, NOTE_FORK, "A's NOTE_FORK");
	t_write(gb[1], "x", 1);
	t_write(gc[1], "x", 1);
	pid_t d = pt_read_pid(report[0]);
	pt_await(kq, d, NOTE_CHILD, "D's NOTE_CHILD");
	pt_await(kq, c, NOTE_FORK, "C's NOTE_FORK");
	t_write(gd[1], "x", 1);

	pt_await(kq, d, NOTE_EXIT | NOTE_EXEC, "D's NOTE_EXEC and NOTE_EXIT");
	pt_await(kq, b, NOTE_EXIT, "B's NOTE_EXIT");
	pt_await(kq, c, NOTE_EXIT, "C's NOTE_EXIT");
	pt_await(kq, a, NOTE_EXIT, "A's NOTE_EXIT");
	pt_no_more(kq, 100);

	pt_expect(a, "A", NOTE_FORK | NOTE_EXIT, 0, 0x100);
	pt_expect(b, "B", NOTE_CHILD | NOTE_EXIT, a, pt_nonchild_status(0x200));
	pt_expect(c, "C", NOTE_CHILD | NOTE_FORK | NOTE_EXIT, a,
		  pt_nonchild_status(0x400));
	pt_expect(d, "D", NOTE_CHILD | NOTE_EXEC | NOTE_EXIT, c,
		  pt_nonchild_status(0x500));
	if (pt_nseen() != 4) {
		pt_dump_seen();
		T_FAIL("records about %d processes, expected 4", pt_nseen());
	}
	pt_reap(a, 0x100);
	close(kq);
	return 0;
}
