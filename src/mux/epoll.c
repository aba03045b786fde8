/*
 * Waiting on the kqueue's epoll set with a nanosecond timeout.
 *
 * epoll_pwait2() (Linux 5.11) takes a timespec; older kernels answer ENOSYS
 * once and we fall back to epoll_wait() with the timeout rounded UP to whole
 * milliseconds, so a kevent() timeout never ends early.  Timeouts beyond
 * INT_MAX ms simply come back early and the caller, which owns the deadline,
 * waits again.
 *
 * A sleeping wait goes through libc (a cancellation point, see scan.c); a
 * zero timeout is a raw system call that is not.
 */
#include "kq.h"
#include "sys.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/prctl.h>

#define SHORT_TIMEOUT_NS 1000000   /* 1 ms */

#include <stdlib.h>

/* Cleared on the first ENOSYS, or at load time when the environment says
 * LIBKQ_NO_EPOLL_PWAIT2=1 (so the fallback can be tested on new kernels). */
static atomic_int have_pwait2 = 1;

__attribute__((constructor)) static void kq_epoll_probe_env(void)
{
	const char *v = getenv("LIBKQ_NO_EPOLL_PWAIT2");
	if (v && v[0] == '1')
		atomic_store(&have_pwait2, 0);
}

int kq_epoll_wait(int epfd, struct epoll_event *evs, int n, int64_t timeout_ns)
{
	if (timeout_ns == 0)
		return sys_epoll_poll(epfd, evs, n);
	int saved = errno, r;

	if (timeout_ns > 0 && atomic_load_explicit(&have_pwait2, memory_order_relaxed)) {
		struct timespec ts = { .tv_sec = timeout_ns / 1000000000,
				       .tv_nsec = timeout_ns % 1000000000 };
		/* The kernel may end a sleep up to the thread's timer slack
		 * late (50 us by default), which is most of a short timeout:
		 * for those, ask for no slack while we sleep. */
		bool precise = timeout_ns <= SHORT_TIMEOUT_NS;
		long slack = precise ? prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) : -1;
		if (slack > 1)
			prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		r = epoll_pwait2(epfd, evs, n, &ts, NULL);
		int e = errno;
		if (slack > 1)
			prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
		errno = e;
		if (r >= 0 || errno != ENOSYS)
			goto out;
		atomic_store(&have_pwait2, 0);
	}
	int ms;
	if (timeout_ns < 0)
		ms = -1;
	else if (timeout_ns / 1000000 >= INT_MAX)
		ms = INT_MAX;
	else
		ms = (int)((timeout_ns + 999999) / 1000000);
	r = epoll_wait(epfd, evs, n, ms);
out:
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
}
