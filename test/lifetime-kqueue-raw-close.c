/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue's number closed where libkq cannot see it (syscall(SYS_close),
 * or any close() in a libkq built with KQ_LIBC_REPLACEMENTS=OFF), then
 * given to other files:
 *   - a pipe at the number is watched as a pipe, not taken for the closed
 *     kqueue: EVFILT_WRITE on it is accepted (a kqueue refuses WRITE) and
 *     EVFILT_READ reports its byte count;
 *   - a fork() child keeps the pipe at that number (libkq's fork handler
 *     closes the kqueues' numbers in the child, but not one that a pipe,
 *     socket or file has taken since);
 *   - a new kqueue given the number is a working, empty kqueue, and the
 *     closed one's descriptors are released then: a loop of kqueue() and
 *     such closes leaves no more than one kqueue's behind.
 */
#include "t.h"

#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue();
	void *ud = (void *)0x4b0;

	/* the closed kqueue's number goes to a pipe's read end, and the
	 * next free number to its write end */
	int old = t_kqueue();
	t_change(old, 1, EVFILT_USER, EV_ADD, NOTE_TRIGGER, 0, NULL);
	t_raw_close(old);
	int p[2];
	t_pipe(p);
	if (p[0] != old)
		T_SKIP("pipe() took number %d, not the freed %d", p[0], old);
	t_write(p[1], "abc", 3);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, ud);
	t_change(kq, p[0], EVFILT_WRITE, EV_ADD, 0, 0, ud);   /* a pipe accepts it */
	t_change(kq, p[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char c;
		_exit(read(p[0], &c, 1) == 1 && c == 'a' ? 0 : 1);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("the fork child lost the pipe at number %d (status %#x)", p[0], st);
	t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_ASSERT(close(p[0]) == 0 && close(p[1]) == 0);

	/* kqueues made and closed unseen, one after another at one number */
	int base = t_count_fds();
	for (int i = 0; i < 50; i++) {
		int k = t_kqueue();
		t_change(k, 1, EVFILT_TIMER, EV_ADD, 0, 60000, NULL);
		t_change(k, 2, EVFILT_USER, EV_ADD, 0, 0, NULL);
		t_raw_close(k);
	}
	int left = t_count_fds() - base;
	int k = t_kqueue();
	T_NO_EVENTS(k);   /* none of the old knotes */
	T_EQ(t_change_err(k, 2, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);
	T_ASSERT(close(k) == 0);
	T_ASSERT(close(kq) == 0);
	/* at most one closed kqueue's descriptors (the last) stay behind */
	int one = t_count_fds() - base;
	if (left > 4 || one > 4)
		T_FAIL("%d, then %d descriptors left behind by kqueues closed unseen", left, one);
	return 0;
}
