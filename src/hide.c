/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where libkq keeps the descriptors it holds for itself (a kqueue's
 * private epoll set, its waitset, the process's wake eventfd): out of the
 * program's way.  On FreeBSD a kqueue is one descriptor, so the number
 * after kqueue()'s is the program's next one.  These descriptors are put
 * at the top of the numbers the program may open (RLIMIT_NOFILE), at most
 * KQ_HIDE_TOP, going down: the kernel hands the program the lowest free
 * numbers, so they meet ours only when the program has almost all it may
 * have.  A cap on the top: a limit of a million would otherwise make the
 * kernel grow the process's descriptor table to a million entries.
 */
#include "kq.h"
#include "sys.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/resource.h>

#define KQ_HIDE_TOP  4096   /* numbers above it are never used */

static int hide_top(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > KQ_HIDE_TOP)
		return KQ_HIDE_TOP - 1;
	return rl.rlim_cur > 0 ? (int)rl.rlim_cur - 1 : 0;
}

/* Below the number libkq took last: where the next free one usually is.
 * Only a hint (a freed number above it is found by the search). */
static atomic_int hide_hint = INT_MAX;

/*
 * A close-on-exec copy of fd as high as it fits, or -errno.  F_DUPFD gives
 * the lowest free number at or above its floor: the floor goes down from
 * the top, by steps that double while nothing is free above it, so the
 * numbers fill from the top down in a few calls.  Async-signal-safe
 * (system calls only).
 */
int kq_fd_dup_high(int fd)
{
	int top = hide_top();
	int hint = atomic_load_explicit(&hide_hint, memory_order_relaxed);
	if (hint <= top && hint > 0) {
		int r = sys_fcntl(fd, F_DUPFD_CLOEXEC, hint - 1);
		if (r >= 0 && r <= top) {
			atomic_store_explicit(&hide_hint, r, memory_order_relaxed);
			return r;
		}
		if (r >= 0)
			sys_close(r);
	}
	for (int step = 1;; step *= 2) {
		int floor = top - step + 1;
		if (floor < 0)
			floor = 0;
		int r = sys_fcntl(fd, F_DUPFD_CLOEXEC, floor);
		if (r >= 0 && r > top && floor > 0) {
			sys_close(r);   /* above the top: a lower floor */
			continue;
		}
		if (r >= 0)
			atomic_store_explicit(&hide_hint, r, memory_order_relaxed);
		if (r >= 0 || r != -EMFILE || floor == 0)
			return r;
	}
}

/* fd moved high (the original closed); fd itself when no number above it
 * is free, which is then where it stays. */
int kq_fd_hide(int fd)
{
	int r = kq_fd_dup_high(fd);
	if (r < 0)
		return fd;
	if (r < fd) {
		sys_close(r);
		return fd;
	}
	sys_close(fd);
	return r;
}
