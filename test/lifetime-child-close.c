/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Descriptors closed in a fork child do not touch the parent's knotes:
 * the child has its own descriptor table (and no kqueue at all),
 * so its close(), dup2() onto a watched number and closefrom(3) remove
 * nothing in the parent (closing removes knotes per process).  The parent's
 * queued READ event is still reported, with more data later, and its WRITE
 * knote on the pipe's write end still reports.
 */
#include "t.h"

#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue(), p[2], q[2];
	void *ur = (void *)0x901, *uw = (void *)0x902;
	struct kevent ev[8];

	t_fail_after(5, "lifetime-child-close: still running after 5 s");
	t_pipe(p);
	t_pipe(q);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ur);
	t_change(kq, p[1], EVFILT_WRITE, EV_ADD, 0, 0, uw);
	t_write(p[1], "ab", 2);
	T_EQ(t_get(kq, ev, 8), 2);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		alarm(4);
		if (close(p[0]) != 0 || dup2(q[0], p[1]) != p[1])
			_exit(2);
		closefrom(3);
		_exit(0);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	int n = t_get(kq, ev, 8);
	T_EQ(n, 2);
	for (int i = 0; i < n; i++) {
		if (ev[i].filter == EVFILT_READ)
			T_KEVENT(&ev[i], p[0], EVFILT_READ, 0, 0, 2, ur);
		else
			T_KEVENT_MIN(&ev[i], p[1], EVFILT_WRITE, 0, 0, 1, uw);
	}
	t_write(p[1], "c", 1);
	n = t_get(kq, ev, 8);
	T_EQ(n, 2);
	for (int i = 0; i < n; i++)
		if (ev[i].filter == EVFILT_READ)
			T_KEVENT(&ev[i], p[0], EVFILT_READ, 0, 0, 3, ur);
	alarm(0);
	return 0;
}
