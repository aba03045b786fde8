/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * setrlimit() and prlimit(), so that libkq sees the program lower
 * RLIMIT_NOFILE.  The process's spare descriptor for reading eventfd
 * counters at the descriptor limit (filter/efdinfo.c) sits high, where
 * libkq keeps its own (hide.c); a soft limit lowered to or below its
 * number leaves it where closing it frees nothing an open may take, and a
 * program that lowers the limit to reach EMFILE would lose its counts
 * there.  After a successful change of RLIMIT_NOFILE that leaves the
 * spare at or above the soft limit, the spare moves under it.
 *
 * Otherwise these are glibc's functions (2.36, 64-bit): the one system
 * call, prlimit64, that glibc's setrlimit() and prlimit() make, with the
 * same arguments, so the same results and errno (EINVAL for a resource
 * the kernel does not know or a soft limit above the hard one, EPERM,
 * ESRCH, EFAULT; a NULL limit sets nothing), errno unchanged on success.
 * prlimit() on another process changes nothing of libkq's: the limit
 * looked at is this process's own, read after the call.  Async-signal-safe
 * as the system call (kq_efdinfo_limit_changed() says how).  What is not
 * seen: a raw prlimit64 system call, and another process's prlimit() on
 * this one; the spare then stays where it was.
 *
 * Only where struct rlimit is struct rlimit64 (64-bit C libraries): the
 * 32-bit functions convert between the two, and are left to glibc.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#include <limits.h>
#include <sys/resource.h>

#if ULONG_MAX > 0xffffffffUL

_Static_assert(sizeof(struct rlimit) == sizeof(struct rlimit64), "rlimit is rlimit64");

static int limits(pid_t pid, int resource, const struct rlimit *new, struct rlimit *old)
{
	long r = KQ_SYSCALL(SYS_prlimit64, pid, resource, new, old);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	/* a vfork() child's limits are its own */
	if (resource == RLIMIT_NOFILE && new && !kq_foreign_process())
		kq_efdinfo_limit_changed();
	return 0;
}

int KQ_INTERPOSE(setrlimit)(__rlimit_resource_t resource, const struct rlimit *rlim)
{
	return limits(0, (int)resource, rlim, NULL);
}

int KQ_INTERPOSE(setrlimit64)(__rlimit_resource_t resource, const struct rlimit64 *rlim)
{
	return limits(0, (int)resource, (const struct rlimit *)rlim, NULL);
}

int KQ_INTERPOSE(prlimit)(pid_t pid, enum __rlimit_resource resource,
			  const struct rlimit *new, struct rlimit *old)
{
	return limits(pid, (int)resource, new, old);
}

int KQ_INTERPOSE(prlimit64)(pid_t pid, enum __rlimit_resource resource,
			    const struct rlimit64 *new, struct rlimit64 *old)
{
	return limits(pid, (int)resource, (const struct rlimit *)new, (struct rlimit *)old);
}

#endif
