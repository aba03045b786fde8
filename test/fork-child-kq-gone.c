/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fork child has none of its parent's kqueues (FreeBSD
 * fdcopy does not copy kqueue descriptors): for a kqueue from
 * kqueue() holding READ, USER and TIMER knotes, one from
 * kqueuex(KQUEUE_CLOEXEC) and an empty one from kqueue1(0), the child's
 * fstat(), fcntl(F_GETFD), kevent() (collect, and a change) and close() on
 * the number all fail with EBADF.  The parent's kqueues keep working.
 */
#include "t.h"

#include <sys/wait.h>

static int fails_ebadf(long r)
{
	return r == -1 && errno == EBADF;
}

static int child(const int *kqs, int n)
{
	struct kevent ch, ev;
	struct timespec z = { 0, 0 };
	struct stat st;
	int bad = 0;

	alarm(4);
	for (int i = 0; i < n; i++) {
		int k = kqs[i];
		EV_SET(&ch, 1, EVFILT_USER, EV_ADD, 0, 0, NULL);
		errno = 0;
		if (!fails_ebadf(fstat(k, &st))) {
			fprintf(stderr, "child: fstat(%d) not EBADF (%d)\n", k,
				errno);
			bad = 1;
		}
		if (!fails_ebadf(fcntl(k, F_GETFD))) {
			fprintf(stderr, "child: fcntl(%d) not EBADF (%d)\n", k,
				errno);
			bad = 1;
		}
		if (!fails_ebadf(kevent(k, NULL, 0, &ev, 1, &z))) {
			fprintf(stderr, "child: kevent(%d) collect not EBADF "
				"(%d)\n", k, errno);
			bad = 1;
		}
		if (!fails_ebadf(kevent(k, &ch, 1, NULL, 0, &z))) {
			fprintf(stderr, "child: kevent(%d) change not EBADF "
				"(%d)\n", k, errno);
			bad = 1;
		}
		if (!fails_ebadf(close(k))) {
			fprintf(stderr, "child: close(%d) not EBADF (%d)\n", k,
				errno);
			bad = 1;
		}
	}
	return bad;
}

int main(void)
{
	int kqs[3], p[2];
	struct kevent ev[8];
	void *u = (void *)0xf01;

	t_fail_after(5, "fork-child-kq-gone: still running after 5 s");
	kqs[0] = t_kqueue();
	kqs[1] = kqueuex(KQUEUE_CLOEXEC);
	kqs[2] = kqueue1(0);
	T_ASSERT(kqs[1] >= 0 && kqs[2] >= 0);
	t_pipe(p);
	t_change(kqs[0], p[0], EVFILT_READ, EV_ADD, 0, 0, u);
	t_change(kqs[0], 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, u);
	t_change(kqs[0], 2, EVFILT_TIMER, EV_ADD, NOTE_SECONDS, 60, u);
	t_change(kqs[1], 3, EVFILT_USER, EV_ADD, 0, 0, u);

	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		_exit(child(kqs, 3));
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("child saw a kqueue of its parent (status 0x%x)", st);

	t_write(p[1], "x", 1);
	t_change(kqs[0], 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, u);
	T_EQ(t_get(kqs[0], ev, 8), 2);
	t_change(kqs[1], 3, EVFILT_USER, 0, NOTE_TRIGGER, 0, u);
	T_EQ(t_get(kqs[1], ev, 8), 1);
	T_KEVENT(&ev[0], 3, EVFILT_USER, 0, 0, 0, u);
	T_NO_EVENTS(kqs[2]);
	alarm(0);
	return 0;
}
