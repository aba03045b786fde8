/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Descriptor calls libkq catches so that BSD's rule holds: every close of a
 * descriptor number removes the knotes keyed by that number, in every kqueue,
 * and closing a kqueue's descriptor destroys it.  Linux gives a user-space
 * library no other notification (epoll keeps an entry alive while any dup of
 * the file exists, and happily reports it under the old number).
 *
 * The library's own versions run the knote removal, then the real call.  The
 * fast path for descriptors libkq never saw is one table load.  fclose() is
 * caught too.  What cannot be caught (raw syscall(SYS_close), io_uring
 * closes, other closes inside libc) is documented in docs/differences.md.
 *
 * The socket calls that give back an error libkq read for an EV_EOF record
 * are in sockio.c, the socket births in births.c.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#include <limits.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/*
 * Linked from libkq.a, this file's object is only taken into a program
 * that references one of its names itself; a program that never calls
 * close() directly would then keep glibc's for its libraries too.  The
 * kqueue code refers to this anchor so the object always comes along.
 */
const char kq_close_anchor = 1;

/* glibc's fclose() under its second public name. */
int _IO_fclose(FILE *);

/* A cancellation point, as glibc's: a cancellation already pending acts
 * before anything is done (the knotes stay with the open descriptor), and
 * one that comes while the close blocks (SO_LINGER) acts there.  Linux
 * always frees the number, even when close reports EINTR, so there is
 * nothing to undo on failure. */
int KQ_INTERPOSE(close)(int fd)
{
	pthread_testcancel();
	kq_fd_closing(fd);
	return __close(fd);
}

/* fclose() closes its descriptor inside the C library, where libkq's
 * close() is not called: a program that wraps a socket in a FILE (fdopen)
 * would otherwise leave the socket's knotes, and what libkq knows of the
 * number (fdtab.c), to the next file given it. */
int KQ_INTERPOSE(fclose)(FILE *f)
{
	int e = errno;
	int fd = f ? fileno(f) : -1;   /* -1 for memory streams */
	errno = e;
	if (fd >= 0)
		kq_fd_closing(fd);
	return _IO_fclose(f);
}

int KQ_INTERPOSE(dup3)(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd && kq_fdtab_busy(newfd) && sys_fcntl(oldfd, F_GETFD, 0) >= 0)
		kq_fd_closing(newfd);
	int r = (int)(syscall(SYS_dup3, oldfd, newfd, flags));
	if (r >= 0 && !kq_foreign_process())
		kq_fdtab_copied(oldfd);   /* births (fdtab.c) */
	return r;
}

int KQ_INTERPOSE(dup2)(int oldfd, int newfd)
{
	if (oldfd == newfd) {
		/* dup2(fd, fd) only checks that fd is valid */
		int r = sys_fcntl(oldfd, F_GETFD, 0);
		if (r < 0) {
			errno = -r;
			return -1;
		}
		return newfd;
	}
	return KQ_CALL(dup3)(oldfd, newfd, 0);
}

/* The highest descriptor number that can be open. */
static unsigned fd_ceiling(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur > 0 && rl.rlim_cur <= INT_MAX)
		return (unsigned)rl.rlim_cur - 1;
	return INT_MAX;
}

static void closing_range(unsigned first, unsigned last)
{
	if (first > INT_MAX)
		return;
	int top = last > INT_MAX ? INT_MAX : (int)last;
	for (int fd = (int)first; fd >= 0 && fd <= top; fd++) {
		fd = kq_fdtab_next_busy(fd, top);
		if (fd < 0)
			break;
		kq_fd_closing(fd);
	}
}

int KQ_INTERPOSE(close_range)(unsigned int first, unsigned int last, int flags)
{
	if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		closing_range(first, last);
	return (int)(syscall(SYS_close_range, first, last, flags));
}

void KQ_INTERPOSE(closefrom)(int lowfd)
{
	unsigned first = lowfd < 0 ? 0 : (unsigned)lowfd;
	closing_range(first, UINT_MAX);
	int e = errno;
	if (syscall(SYS_close_range, first, UINT_MAX, 0) != 0) {
		/* kernels before 5.9 */
		for (unsigned fd = first, top = fd_ceiling(); fd <= top; fd++)
			syscall(SYS_close, fd);
	}
	errno = e;
}
