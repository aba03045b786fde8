/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A vfork() child runs in its parent's memory with descriptors of its
 * own.  A socket it makes must leave libkq's tables (the parent's) alone:
 * otherwise the parent, taking a pipe at the same number, is believed to
 * hold a private socket there, and closing that pipe while a dup keeps it
 * open skips the removal of its epoll entry.  The kqueue would then stay
 * readable with nothing to report, and a waiting kevent() would wake again
 * and again.
 */
#include "t.h"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue();

	pid_t pid = vfork();
	if (pid == 0) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		_exit(s >= 0 ? 0 : 1);
	}
	T_ASSERT(pid > 0);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	/* the number the child's socket had is the parent's lowest free */
	int p[2];
	T_ASSERT(pipe2(p, O_CLOEXEC) == 0);
	T_EQ(write(p[1], "x", 1), 1);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	/* a copy libkq does not see made (a raw system call, as a library
	 * might): nothing but a wrong birth could make the pipe look private */
	int keep = (int)syscall(SYS_dup, p[0]);
	T_ASSERT(keep >= 0);
	T_ASSERT(close(p[0]) == 0);

	struct pollfd pf = { .fd = kq, .events = POLLIN };
	T_EQ(poll(&pf, 1, 0), 0);
	struct kevent ev[2];
	T_EQ(t_wait(kq, ev, 2, 100), 0);
	return 0;
}
