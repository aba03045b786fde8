/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A vfork() child shares its parent's memory until it execs or exits.  Its
 * close(), dup2() and close_range() (a spawn helper tidying descriptors,
 * made here from a library that does not link libkq and from the program)
 * close the child's copies only: the parent's knotes and kqueues live on.
 */
#include "../t.h"
#include "foreign.h"

#include <sys/wait.h>

static void check(int do_exec)
{
	int kq = t_kqueue(), p[2], q[2];
	struct kevent ev[4];

	t_pipe(p);
	t_pipe(q);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	t_change(kq, q[0], EVFILT_READ, EV_ADD, 0, 0, (void *)2);

	pid_t pid = vfork();
	if (pid == 0) {
		foreign_close(p[0]);
		foreign_dup2(p[1], q[0]);
		close(kq);
		foreign_close_range((unsigned)q[1], (unsigned)q[1], 0);
		if (do_exec) {
			char *argv[] = { "true", NULL };
			execv("/bin/true", argv);
		}
		_exit(0);
	}
	T_ASSERT(pid > 0);
	int st;
	T_ASSERT(waitpid(pid, &st, 0) == pid && WIFEXITED(st));

	/* the parent's kqueue and knotes are intact */
	t_write(p[1], "a", 1);
	t_write(q[1], "bc", 2);
	T_EQ(t_wait(kq, ev, 4, 1000), 2);
	if (ev[0].ident != (uintptr_t)p[0]) {
		struct kevent t = ev[0];
		ev[0] = ev[1];
		ev[1] = t;
	}
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, (void *)1);
	T_KEVENT(&ev[1], q[0], EVFILT_READ, 0, 0, 2, (void *)2);
	close(kq);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

int main(void)
{
	check(0);
	check(1);
	return 0;
}
