/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NOTE_TRACK alone (udata U) on the program's own pid, then fork a
 * child K: one record {K, EVFILT_PROC, ..., NOTE_CHILD, data = our pid, U}
 * with no NOTE_TRACKERR (FreeBSD contrib/netbsd-tests t_proc3.c).  Nothing
 * else: our own knote did not ask for NOTE_FORK, and K's knote (fflags
 * NOTE_TRACK, no NOTE_EXIT) is dropped silently when K exits (FreeBSD
 * EV_DROP), so EV_DELETE of it then fails with ENOENT while our own knote
 * still exists.  K exits only after its NOTE_CHILD record was collected.
 * NOTE_TRACK needs the netlink proc connector: if EV_ADD fails with ENOTSUP
 * the test skips.
 * Privilege: if run as root, the whole test runs in a child that first
 * drops to uid/gid 65534 (the connector's availability depends on it).
 */
#include "t_proc_track.h"

int main(void)
{
	int gate[2], kq;

	pt_begin("proc-track-self");
	t_pipe(gate);
	pid_t me = getpid();

	pt_watch(&kq, me, NOTE_TRACK);

	pid_t k = pt_gated_kid(gate, 0);

	pt_await(kq, k, NOTE_CHILD, "NOTE_CHILD");
	t_write(gate[1], "x", 1);
	pt_reap(k, 0);
	pt_no_more(kq, 200);

	struct pt_seen *s = pt_find_seen(k);
	if (pt_nseen() != 1 || s->all != NOTE_CHILD) {
		pt_dump_seen();
		T_FAIL("want exactly one NOTE_CHILD record, for the child");
	}
	T_EQ(s->child_data, me);
	t_change_fails(kq, k, EVFILT_PROC, EV_DELETE, NULL, ENOENT);
	t_change(kq, me, EVFILT_PROC, EV_DELETE, 0, 0, NULL);
	close(kq);
	return 0;
}
