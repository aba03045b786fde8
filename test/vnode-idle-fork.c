/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq keeps a closed kqueue's inotify instance open for a later kqueue.
 * A fork child shares that instance with its parent, so it must not use
 * it: the child closes its copy (it starts with no inotify instance), and
 * a kqueue the child makes and one the parent makes both see a change to
 * a file they both watch.  Sharing one instance, one of them would read
 * the other's events.
 */
#include "t_vnode.h"

#include <sys/wait.h>

int main(void)
{
	char path[128];
	int f = vt_file(path, sizeof path);
	int inotify0 = t_count_inotify();

	int kqa = t_kqueue();
	t_change(kqa, f, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, NULL);
	T_ASSERT(close(kqa) == 0);

	int ready[2], go[2];
	T_ASSERT(pipe(ready) == 0 && pipe(go) == 0);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (t_count_inotify() != inotify0)
			T_FAIL("the child has %d inotify instances, not %d",
			       t_count_inotify(), inotify0);
		int kq = t_kqueue();
		t_change(kq, f, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
			 (void *)0xc);
		t_write(ready[1], "r", 1);
		char c;
		T_ASSERT(read(go[0], &c, 1) == 1);
		WANT1_ONLY(kq, f, NOTE_WRITE | NOTE_EXTEND, 0xc);
		_exit(0);
	}
	/* a child that fails closes its ends: no wait for ever */
	close(ready[1]);
	close(go[0]);
	int kq = t_kqueue();
	t_change(kq, f, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
		 (void *)0xd);
	char c;
	T_ASSERT(read(ready[0], &c, 1) == 1);
	t_write(f, "x", 1);
	WANT1_ONLY(kq, f, NOTE_WRITE | NOTE_EXTEND, 0xd);
	t_write(go[1], "g", 1);
	int st;
	T_ASSERT(waitpid(pid, &st, 0) == pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("child failed (status %#x)", st);
	return 0;
}
