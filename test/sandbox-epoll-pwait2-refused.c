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
#include "t_seccomp.h"

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

static int child(int err)
{
	if (t_seccomp_refuse(SYS_epoll_pwait2, err) != 0)
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
	t_seccomp_run(child, "epoll_pwait2()");
	return 0;
}
