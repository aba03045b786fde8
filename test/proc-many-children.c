/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 100 children, each watched by its own NOTE_EXIT knote (udata = its
 * index), are released at the same moment (closing the pipe they all block
 * on) and exit concurrently with status i: exactly 100 records arrive, one
 * per child, none lost or duplicated, each {pid_i, EVFILT_PROC,
 * EV_CLEAR|EV_EOF|EV_ONESHOT, NOTE_EXIT, i << 8, i + 1}.  All children are
 * then reaped by the program with the same statuses.
 */
#include "t.h"

#include <sys/wait.h>

#define N 100

static pid_t kids[N];

static void kill_kids(void)
{
	for (int i = 0; i < N; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
}

int main(void)
{
	struct kevent ev[64];
	int gate[2], kq, seen[N] = { 0 }, got = 0;

	t_fail_after(5, "proc-many-children did not finish within 5 s");
	t_pipe(gate);
	atexit(kill_kids);
	for (int i = 0; i < N; i++) {
		pid_t pid = fork();

		if (pid < 0)
			T_FAIL("fork #%d: %s", i, strerror(errno));
		if (pid == 0) {
			char c;

			close(gate[1]);
			while (read(gate[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(i);
		}
		kids[i] = pid;
	}
	kq = t_kqueue();
	for (int i = 0; i < N; i++)
		t_change(kq, kids[i], EVFILT_PROC, EV_ADD, NOTE_EXIT, 0,
			 (void *)(uintptr_t)(i + 1));
	T_NO_EVENTS(kq);

	close(gate[1]);          /* every child reads EOF now */
	int64_t end = t_now_ns() + 4000000000LL;
	while (got < N && t_now_ns() < end) {
		int n = t_wait(kq, ev, 64, 200);

		for (int k = 0; k < n; k++) {
			uintptr_t u = (uintptr_t)ev[k].udata;

			if (u < 1 || u > N) {
				t_print_kevent("  record", &ev[k]);
				T_FAIL("record with unknown udata");
			}
			int i = (int)u - 1;
			T_KEVENT(&ev[k], kids[i], EVFILT_PROC,
				 EV_CLEAR | EV_EOF | EV_ONESHOT, NOTE_EXIT,
				 (int64_t)i << 8, (void *)u);
			if (seen[i]++)
				T_FAIL("child #%d (pid %d) reported twice", i,
				       (int)kids[i]);
			got++;
		}
	}
	if (got != N)
		T_FAIL("only %d of %d exit records arrived", got, N);
	T_NO_EVENTS(kq);

	for (int i = 0; i < N; i++) {
		int st;

		T_EQ(waitpid(kids[i], &st, 0), kids[i]);
		kids[i] = 0;
		T_EQ(st, i << 8);
	}
	close(kq);
	return 0;
}
