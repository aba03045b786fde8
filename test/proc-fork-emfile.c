/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * At the descriptor limit (RLIMIT_NOFILE reached), EV_ADD of an
 * EVFILT_PROC knote asking for NOTE_FORK or NOTE_TRACK fails with EMFILE,
 * the error of the descriptor (the kqueue's proc connector socket, the
 * process's pidfd) that could not be made, not with ENOTSUP as if the
 * kernel had no connector; NOTE_EXIT alone fails the same way (its pidfd).
 * Once descriptors are free again the same changes succeed.  Skipped where
 * NOTE_FORK is not available at all (no connector).
 */
#include "t_fdfill.h"
#include "t_proc.h"

int main(void)
{
	int kq = t_kqueue(), p[2];
	pid_t kid = t_spawn_gated(p, 0);

	int err = t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_FORK, 0, NULL);
	if (err == ENOTSUP)
		T_SKIP("NOTE_FORK not available here (no proc connector)");
	T_EQ(err, 0);
	t_change(kq, (uintptr_t)kid, EVFILT_PROC, EV_DELETE, 0, 0, NULL);

	struct t_fdfill fill;
	t_fdfill(&fill);

	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_FORK, 0, NULL), EMFILE);
	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_TRACK, 0, NULL), EMFILE);
	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_EXEC | NOTE_EXIT, 0,
			  NULL), EMFILE);
	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL), EMFILE);

	t_fdfill_undo(&fill);
	t_change(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_FORK | NOTE_TRACK | NOTE_EXIT, 0,
		 NULL);

	/* the knote works: SIGKILL ends the child (wait status 9) */
	close(p[0]);
	kill(kid, SIGKILL);
	struct kevent ev[4];
	T_EQ(t_wait(kq, ev, 4, 5000), 1);
	T_EXIT_RECORD(&ev[0], kid, SIGKILL, NULL);
	close(p[1]);
	t_kid_reap(kid, 0);
	return 0;
}
