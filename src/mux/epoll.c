/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Waiting on the kqueue's epoll set with a nanosecond timeout.
 *
 * epoll_pwait2() (Linux 5.11) takes a timespec; older kernels answer ENOSYS
 * once and we fall back to epoll_wait() with the timeout rounded UP to whole
 * milliseconds, so a kevent() timeout never ends early.  Timeouts beyond
 * INT_MAX ms simply come back early and the caller, which owns the deadline,
 * waits again.
 *
 * A sleeping wait is a cancellation point (see scan.c): epoll_wait() goes
 * through libc; epoll_pwait2() is a raw system call made one below (not
 * glibc's wrapper, which only glibc 2.35 and later have).  A zero timeout
 * is a raw system call that is not.
 */
#include "kq.h"
#include "sys.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/prctl.h>

#include <stdlib.h>

/* Cleared on the first refusal (ENOSYS from a kernel without it; EPERM or
 * EACCES from a sandbox, a container profile or systemd's
 * SystemCallFilter= older than the call), or at load time when the
 * environment says
 * LIBKQ_NO_EPOLL_PWAIT2=1 (so the fallback can be tested on new kernels).
 * secure_getenv(): a set-user-ID, set-group-ID or capability program
 * (AT_SECURE) is not steered by whoever starts it. */
static atomic_int have_pwait2 = 1;

__attribute__((constructor)) static void kq_epoll_probe_env(void)
{
	const char *v = secure_getenv("LIBKQ_NO_EPOLL_PWAIT2");
	if (v && v[0] == '1')
		atomic_store(&have_pwait2, 0);
}

/*
 * A sleep ends some tens of microseconds after its timeout even with no
 * timer slack: waking a thread (an idle CPU leaving its sleep state, a
 * virtual CPU being scheduled again) costs that much on its own, and on a
 * virtual machine the sleep and wake-up also cost the thread some 15-20 us
 * of CPU.  For a timeout of at most 1 ms, which a program asks for when
 * microseconds matter, the wait sleeps until a little before the deadline
 * and then polls the set until the deadline, so that it ends on time.
 *
 * How much before ("lead") is the smaller of the learned wake-up latency (a
 * running average of how late such sleeps woke, starting at 20 us, bounded
 * by LAG_MIN and LAG_MAX) and 1/LEAD_SHARE of the timeout: the polling, on
 * top of what the sleep itself costs, must leave the thread idle for most
 * of the wait.  A timeout no longer than the wake-up latency is polled
 * throughout: a sleep would end later than the poll and cost the thread
 * more CPU than polling for that long.
 *
 * A polled wait learns nothing, so a latency learned during a burst of
 * load would keep every such timeout polling (a whole CPU for a loop of
 * 100 us waits) long after the burst.  One wait in RESAMPLE of those
 * sleeps anyway, and what it shows counts for half of the new latency.
 */
#define LEAD_SHARE 8
#define LAG_MIN 1000
#define LAG_MAX 200000
#define RESAMPLE 64
static _Atomic int64_t wake_lag_ns = 20000;
static atomic_uint polled_waits;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * epoll_pwait2() as a system call, so that the library does not need glibc
 * 2.35; a kernel without it (< 5.11) answers ENOSYS, which the caller
 * remembers.  441 on every architecture numbered from the common table (all
 * but alpha, ia64 and mips); elsewhere, without the headers' number, the
 * millisecond fallback is used.
 */
#if !defined(SYS_epoll_pwait2) && !defined(__alpha__) && !defined(__ia64__) && \
	!defined(__mips__)
#if defined(__x86_64__) && defined(__ILP32__)
#define SYS_epoll_pwait2 (0x40000000 | 441)   /* x32 */
#else
#define SYS_epoll_pwait2 441
#endif
#endif

/* The kernel's struct __kernel_timespec: 64-bit fields on every ABI. */
struct kq_kernel_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

/*
 * glibc's epoll_pwait2() is a cancellation point, and kevent() sleeping here
 * must be one too: cancellation is made asynchronous for the duration of
 * the system call only, as glibc made its cancellable calls before 2.34.
 * Not inlined: a cancellation unwinds from this frame, which has no cleanup,
 * to the caller's call instruction, where kq_sleep()'s cleanup handler covers
 * it (an unwind from an arbitrary instruction in the caller might not).
 * Returns the count or -errno.
 */
__attribute__((noinline)) static long pwait2_syscall(int epfd, struct epoll_event *evs,
						      int n, const struct kq_kernel_timespec *ts)
{
#ifdef SYS_epoll_pwait2
	int type;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &type);
	long r = KQ_SYSCALL(SYS_epoll_pwait2, epfd, evs, n, ts, NULL, 0);
	pthread_setcanceltype(type, NULL);
	return r;
#else
	(void)epfd, (void)evs, (void)n, (void)ts;
	return -ENOSYS;
#endif
}

/* One epoll_pwait2() sleep; -ENOSYS when the kernel has none or refuses it. */
static int pwait2_sleep(int epfd, struct epoll_event *evs, int n, int64_t timeout_ns,
			bool precise)
{
	struct kq_kernel_timespec ts = { .tv_sec = timeout_ns / 1000000000,
					 .tv_nsec = timeout_ns % 1000000000 };
	/* The kernel may end a sleep up to the thread's timer slack late (50
	 * us by default), which is most of a short timeout: for those, ask
	 * for no slack while we sleep. */
	long slack = precise ? prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) : -1;
	if (slack > 1)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	long r = pwait2_syscall(epfd, evs, n, &ts);
	if (slack > 1)
		prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
	/* epoll_pwait2() itself never answers EPERM or EACCES: those come
	 * from a filter that does not know the call, and mean ENOSYS here */
	if (sys_refused((int)r)) {
		atomic_store(&have_pwait2, 0);
		r = -ENOSYS;
	}
	return (int)r;
}

static int short_wait(int epfd, struct epoll_event *evs, int n, int64_t timeout_ns)
{
	int64_t start = mono_ns(), deadline = start + timeout_ns;
	int64_t lag = atomic_load_explicit(&wake_lag_ns, memory_order_relaxed);
	int64_t lead = timeout_ns / LEAD_SHARE < lag ? timeout_ns / LEAD_SHARE : lag;
	bool sample = timeout_ns <= lag &&
		      atomic_fetch_add_explicit(&polled_waits, 1, memory_order_relaxed) %
		      RESAMPLE == RESAMPLE - 1;
	if (timeout_ns > lag || sample) {
		int r = pwait2_sleep(epfd, evs, n, timeout_ns - lead, true);
		if (r != 0)
			return r;
		/* one sleep preempted for milliseconds would otherwise make
		 * every short timeout poll throughout for a while: a sample
		 * may at most double the latency it is averaged into */
		int64_t late = mono_ns() - (deadline - lead);
		if (late > 2 * lag)
			late = 2 * lag;
		lag += (late - lag) / (sample ? 2 : 8);
		lag = lag < LAG_MIN ? LAG_MIN : lag > LAG_MAX ? LAG_MAX : lag;
		atomic_store_explicit(&wake_lag_ns, lag, memory_order_relaxed);
	}
	for (;;) {
		int r = sys_epoll_poll(epfd, evs, n);
		if (r != 0 || mono_ns() >= deadline)
			return r;
	}
}

int kq_epoll_wait(int epfd, struct epoll_event *evs, int n, int64_t timeout_ns)
{
	if (timeout_ns == 0)
		return sys_epoll_poll(epfd, evs, n);
	int saved = errno, r;

	/* A whole number of milliseconds past the short ones (what event
	 * loops pass) needs no nanosecond wait: glibc's epoll_wait() sleeps as
	 * long, and is a cancellation point at a fraction of the cost of
	 * pwait2_syscall()'s two cancel-type changes. */
	if (timeout_ns > 0 && (timeout_ns <= KQ_SHORT_TIMEOUT_NS || timeout_ns % 1000000 != 0) &&
	    atomic_load_explicit(&have_pwait2, memory_order_relaxed)) {
		r = timeout_ns <= KQ_SHORT_TIMEOUT_NS
			? short_wait(epfd, evs, n, timeout_ns)
			: pwait2_sleep(epfd, evs, n, timeout_ns, false);
		if (r != -ENOSYS) {
			errno = saved;
			return r;
		}
	}
	int ms;
	if (timeout_ns < 0)
		ms = -1;
	else if (timeout_ns / 1000000 >= INT_MAX)
		ms = INT_MAX;
	else
		ms = (int)((timeout_ns + 999999) / 1000000);
	r = epoll_wait(epfd, evs, n, ms);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
}
