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
#include "t.h"

#include <sys/wait.h>

#define MAXFILL 512

static pid_t kid;

static void kill_kid(void)
{
	if (kid > 0) {
		kill(kid, SIGKILL);
		waitpid(kid, NULL, 0);
	}
}

int main(void)
{
	int kq = t_kqueue(), p[2];
	t_pipe(p);
	kid = fork();
	T_ASSERT(kid >= 0);
	if (kid == 0) {
		char c;
		close(p[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	atexit(kill_kid);

	int err = t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_FORK, 0, NULL);
	if (err == ENOTSUP)
		T_SKIP("NOTE_FORK not available here (no proc connector)");
	T_EQ(err, 0);
	t_change(kq, (uintptr_t)kid, EVFILT_PROC, EV_DELETE, 0, 0, NULL);

	struct rlimit old, low;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &old) == 0);
	int top = open("/dev/null", O_RDONLY | O_CLOEXEC);
	T_ASSERT(top >= 0);
	low = old;
	low.rlim_cur = (rlim_t)top + 8;
	if (low.rlim_cur > old.rlim_cur)
		T_SKIP("RLIMIT_NOFILE %llu too small", (unsigned long long)old.rlim_cur);
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &low) == 0);
	int fill[MAXFILL], nfill = 0;
	fill[nfill++] = top;
	for (;;) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			T_EQ(errno, EMFILE);
			break;
		}
		T_ASSERT(nfill < MAXFILL);
		fill[nfill++] = fd;
	}

	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_FORK, 0, NULL), EMFILE);
	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_TRACK, 0, NULL), EMFILE);
	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_EXEC | NOTE_EXIT, 0,
			  NULL), EMFILE);
	T_EQ(t_change_err(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL), EMFILE);

	for (int i = 0; i < nfill; i++)
		close(fill[i]);
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &old) == 0);
	t_change(kq, (uintptr_t)kid, EVFILT_PROC, EV_ADD, NOTE_FORK | NOTE_TRACK | NOTE_EXIT, 0,
		 NULL);

	/* the knote works: SIGKILL ends the child (wait status 9) */
	close(p[0]);
	kill(kid, SIGKILL);
	struct kevent ev[4];
	T_EQ(t_wait(kq, ev, 4, 5000), 1);
	T_KEVENT(&ev[0], kid, EVFILT_PROC, EV_CLEAR | EV_EOF | EV_ONESHOT, NOTE_EXIT, SIGKILL, NULL);
	close(p[1]);
	T_EQ(waitpid(kid, NULL, 0), kid);
	kid = 0;
	return 0;
}
