/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FreeBSD 15's kqueuex(KQUEUE_CPONFORK) copies the queue into fork
 * children, so a one-shot timer fires once in the parent and once in the
 * child.  Deviation from FreeBSD: a user-space queue cannot be copied
 * (every kernel-side registration would have to be re-created in the
 * child), so the library refuses the flag with EINVAL, also combined with
 * KQUEUE_CLOEXEC, creating no descriptor.  With an
 * ordinary kqueue the FreeBSD test's scenario gives: the one-shot timer
 * fires once in the parent and never in the child, which has no kqueue.
 * (FreeBSD's further tests, a CPONFORK queue dropping knotes on other
 * kqueues, do not apply; rfork does not exist on Linux.)
 */
#include "t.h"

#include <sys/wait.h>

int main(void)
{
	struct kevent ev[4];
	void *u = (void *)0x1301;

	t_fail_after(5, "fork-cponfork: still running after 5 s");
	int probe = dup(0);
	T_ASSERT(probe >= 0);
	T_EQ(close(probe), 0);
	T_ERRNO(kqueuex(KQUEUE_CPONFORK), EINVAL);
	T_ERRNO(kqueuex(KQUEUE_CPONFORK | KQUEUE_CLOEXEC), EINVAL);
	int again = dup(0);
	T_EQ(again, probe);   /* no descriptor was created */
	T_EQ(close(again), 0);

	int kq = t_kqueue();
	t_change(kq, 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_MSECONDS, 100,
		 u);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		struct timespec to = { 0, 300 * 1000000L };
		alarm(4);
		int n = kevent(kq, NULL, 0, ev, 4, &to);
		_exit(n == -1 && errno == EBADF ? 0 : 1);
	}
	T_WAIT1(kq, 2000, 1, EVFILT_TIMER, EV_CLEAR | EV_ONESHOT, 0, 1, u);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("the child had the parent's kqueue (status 0x%x)", st);
	T_NO_EVENTS(kq);
	alarm(0);
	return 0;
}
