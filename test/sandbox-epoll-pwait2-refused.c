/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() keeps working in a sandbox that refuses epoll_pwait2(), the
 * call libkq sleeps in for timeouts finer than a millisecond: container
 * profiles and systemd's SystemCallFilter= older than the call answer it
 * with EPERM (or EACCES, or ENOSYS) rather than the ENOSYS of a kernel
 * without it.  In a child under a seccomp filter the test installs (one
 * child per answer: EPERM, EACCES, ENOSYS), ten kevent() calls with a
 * 0.5 ms timeout and nothing ready each return 0 records, and not earlier
 * than the timeout; a record that is ready is returned as usual.
 * Skipped where seccomp filters cannot be installed.
 */
#include "t.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

/* Refuses system call nr with errno err; everything else is allowed. */
static int refuse(long nr, int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof f / sizeof f[0], f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int child(int err)
{
	if (refuse(SYS_epoll_pwait2, err) != 0)
		return 77;
	/* the filter answers as it should */
	if (syscall(SYS_epoll_pwait2, -1, NULL, 0, NULL, NULL, 0) != -1 || errno != err)
		return 77;
	int kq = t_kqueue();
	int p[2];
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	struct kevent ev;
	struct timespec ts = { 0, 500000 };
	for (int i = 0; i < 10; i++) {
		int64_t t0 = t_now_ns();
		int n = kevent(kq, NULL, 0, &ev, 1, &ts);
		int64_t took = t_now_ns() - t0;
		if (n != 0) {
			fprintf(stderr, "FAIL: errno %d: call %d returned %d (errno %d)\n",
				err, i, n, errno);
			return 1;
		}
		if (took < 500000) {
			fprintf(stderr, "FAIL: errno %d: call %d returned after %lld ns\n",
				err, i, (long long)took);
			return 1;
		}
	}
	t_write(p[1], "ab", 2);
	if (kevent(kq, NULL, 0, &ev, 1, &ts) != 1) {
		fprintf(stderr, "FAIL: errno %d: no record for a ready pipe\n", err);
		return 1;
	}
	T_KEVENT(&ev, p[0], EVFILT_READ, 0, 0, 2, NULL);
	return 0;
}

int main(void)
{
	static const int errs[] = { EPERM, EACCES, ENOSYS };
	for (unsigned i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		pid_t pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0)
			_exit(child(errs[i]));
		int st;
		T_ASSERT(waitpid(pid, &st, 0) == pid);
		if (!WIFEXITED(st))
			T_FAIL("child for errno %d died of signal %d", errs[i], WTERMSIG(st));
		if (WEXITSTATUS(st) == 77)
			T_SKIP("cannot install a seccomp filter here");
		if (WEXITSTATUS(st) != 0)
			T_FAIL("with epoll_pwait2() refused with errno %d", errs[i]);
	}
	return 0;
}
