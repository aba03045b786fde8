/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * As root, track (NOTE_FORK|NOTE_TRACK, udata U) a child X that drops
 * to uid/gid 65534 (nobody) and then forks Y.  FreeBSD's expectation is
 * used: X's NOTE_FORK record carries no NOTE_TRACKERR and Y is tracked --
 * a NOTE_CHILD record {Y, ..., data = X's pid, U} arrives -- because
 * FreeBSD creates the child knote whenever the forking process may see its
 * child (p_cansee), which holds here.  (NetBSD's t_proc2, which tests this
 * case, wants NOTE_TRACKERR; FreeBSD's build disables that test because
 * FreeBSD does not set it: CheriBSD's Makefile notes it "fails
 * ke.fflags & NOTE_TRACKERR".)  Neither knote asked for NOTE_EXIT, so both
 * vanish silently when X and Y exit.
 * Privilege: needs root (setuid to 65534 in X); skipped otherwise.  The
 * watcher stays root, as in the original test; the unprivileged part is X.
 * NOTE_FORK/NOTE_TRACK need the netlink proc connector: if EV_ADD fails
 * with ENOTSUP the test skips.
 */
#include "t_proc_track.h"

int main(void)
{
	struct pt_pipes p;
	int kq;

	if (geteuid() != 0)
		T_SKIP("needs root: the tracked child must setuid(65534)");
	t_fail_after(5, "proc-track-setuid did not finish within 5 s");
	signal(SIGPIPE, SIG_IGN);

	/* X's gate is Y's: Y exits when the test opens it. */
	pid_t x = pt_fork_piped(&p);
	if (x == 0) {
		pt_wait_byte(p.go[0]);
		if (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
		    setuid(65534) != 0)
			_exit(120);
		pid_t y = pt_fork_or_exit(121);
		if (y == 0) {
			pt_wait_byte(p.gate[0]);
			_exit(0);
		}
		pt_report_pid(p.report[1], y, 122);
		pt_reap_or_exit(y, 0, 123);
		_exit(0);
	}

	pt_watch(&kq, x, NOTE_FORK | NOTE_TRACK);
	t_write(p.go[1], "x", 1);
	pid_t y = pt_read_pid(p.report[0]);

	pt_await(kq, x, NOTE_FORK, "NOTE_FORK");
	pt_await(kq, y, NOTE_CHILD, "NOTE_CHILD");
	t_write(p.gate[1], "x", 1);
	pt_reap(x, 0);
	pt_no_more(kq, 200);

	struct pt_seen *sx = pt_find_seen(x), *sy = pt_find_seen(y);
	if (pt_nseen() != 2 || sx->all != NOTE_FORK || sy->all != NOTE_CHILD) {
		pt_dump_seen();
		T_FAIL("want NOTE_FORK for the child, NOTE_CHILD for its child");
	}
	T_EQ(sy->child_data, x);
	t_change_fails(kq, x, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq, y, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	close(kq);
	return 0;
}
