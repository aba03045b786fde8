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

/* A close judged a descriptor private (fdtab.c, children): the window
 * that opened ends with the system call, also when a cancellation ends
 * the call. */
static void windows_end(void *mark)
{
	kq_fdtab_closed(*(unsigned *)mark);
}

/* A cancellation point, as glibc's: a cancellation already pending acts
 * before anything is done (the knotes stay with the open descriptor), and
 * one that comes while the close blocks (SO_LINGER) acts there.  Linux
 * always frees the number, even when close reports EINTR, so there is
 * nothing to undo on failure. */
int KQ_INTERPOSE(close)(int fd)
{
	pthread_testcancel();
	unsigned mark = kq_fdtab_windows();
	if (__builtin_expect(kq_fd_closing(fd) < 0, 0)) {
		errno = EBADF;   /* libkq's own: a free number to the program */
		return -1;
	}
	if (kq_fdtab_windows() == mark)
		return __close(fd);
	int r;
	pthread_cleanup_push(windows_end, &mark);
	r = __close(fd);
	pthread_cleanup_pop(1);
	return r;
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
	/* a stream of libkq's popen(): its child is waited for (spawn.c) */
	pid_t child = f ? kq_popen_forget(f) : -1;
	unsigned mark = kq_fdtab_windows();
	if (fd >= 0)
		kq_fd_closing(fd);
	int r;
	pthread_cleanup_push(windows_end, &mark);
	r = _IO_fclose(f);
	pthread_cleanup_pop(1);
	return child > 0 ? kq_popen_wait(child, r) : r;
}

/*
 * Numbers libkq holds for itself (hide.c) are free numbers to the program:
 * one as the source is EBADF.  One as the target is the program's once
 * libkq's descriptor has moved out of the way (move.c); EBUSY, which
 * Linux's dup2() and dup3() return for a number another thread is
 * opening, when it cannot move (the caller is a signal handler inside a
 * kevent() of its thread).  Returns 1 when a descriptor moved.
 */
static int dup_hidden(int oldfd, int newfd, int flags)
{
	if (kq_fd_hidden_live(oldfd))
		return -EBADF;
	if (!kq_fd_hidden_live(newfd))
		return 0;
	/* what the real call would refuse, refused before anything moves */
	if (sys_fcntl(oldfd, F_GETFD, 0) < 0)
		return -EBADF;
	if (oldfd == newfd || (flags & ~O_CLOEXEC))
		return -EINVAL;
	return 2;
}

/* Whether newfd's knotes and records go before the call (a descriptor
 * replaced by dup2() is closed). */
static bool replacing(int oldfd, int newfd)
{
	return oldfd != newfd && kq_fdtab_busy(newfd) && sys_fcntl(oldfd, F_GETFD, 0) >= 0;
}

/* From the look at newfd to the system call, a gap libkq's own new
 * numbers wait out (hide.c).  What takes locks (a move of libkq's
 * descriptor, the close of the number's knotes) happens outside it, and
 * the number is looked at again after. */
int KQ_INTERPOSE(dup3)(int oldfd, int newfd, int flags)
{
	unsigned mark = kq_fdtab_windows();
	/* a vfork() child's table is its own: libkq has nothing there */
	bool mine = !kq_foreign_process(), moved = false, closed = false;
	if (!mine && replacing(oldfd, newfd))
		kq_fd_closing(newfd);
	for (int tries = 0; mine; tries++) {
		kq_dup_window_open();
		int h = dup_hidden(oldfd, newfd, flags);
		if (h == 0 && (closed || !replacing(oldfd, newfd)))
			break;   /* the gap stays open until the system call */
		kq_dup_window_close();
		if (h == 0) {
			kq_fd_closing(newfd);
			closed = true;
			continue;
		}
		if (h == 2 && tries < 8)
			h = kq_fd_move_out(newfd);
		else if (h == 2)
			h = -EBUSY;
		if (h < 0) {
			kq_fdtab_closed(mark);
			errno = -h;
			return -1;
		}
		moved |= h > 0;
	}
	int r = (int)(syscall(SYS_dup3, oldfd, newfd, flags));
	if (mine)
		kq_dup_window_close();
	kq_fdtab_closed(mark);
	if (r < 0 && moved) {
		/* the copy left at newfd is nobody's: not the program's */
		int e = errno;
		sys_close(newfd);
		errno = e;
	}
	if (r >= 0 && !kq_foreign_process())
		kq_fdtab_copied(oldfd);   /* births (fdtab.c) */
	return r;
}

int KQ_INTERPOSE(dup2)(int oldfd, int newfd)
{
	if (oldfd == newfd) {
		/* dup2(fd, fd) only checks that fd is valid */
		int r = kq_fd_hidden_live(oldfd) ? -EBADF : sys_fcntl(oldfd, F_GETFD, 0);
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

/* The next number in [from, to] libkq holds for itself, or -1. */
static long next_hidden(unsigned from, unsigned to)
{
	int top = to > INT_MAX ? INT_MAX : (int)to;
	for (long fd = from; fd <= top; fd++) {
		fd = kq_fdtab_next_busy((int)fd, top);
		if (fd < 0)
			return -1;
		if (kq_fd_hidden_live((int)fd))
			return fd;
	}
	return -1;
}

/* close_range() on the pieces of [first, last] between libkq's own
 * numbers, which stay open (close of such a number is EBADF, and a range
 * skips what is not open). */
static long range_call(unsigned first, unsigned last, int flags)
{
	if (first <= INT_MAX && kq_fdtab_next_busy((int)first, last > INT_MAX ? INT_MAX : (int)last) >= 0) {
		long h;
		while (first <= last && (h = next_hidden(first, last)) >= 0) {
			if ((unsigned long)h > first) {
				long r = syscall(SYS_close_range, first, (unsigned)h - 1, flags);
				if (r != 0)
					return r;
			}
			if ((unsigned long)h >= last)
				return 0;
			first = (unsigned)h + 1;
		}
		if (first > last)
			return 0;
	}
	return syscall(SYS_close_range, first, last, flags);
}

int KQ_INTERPOSE(close_range)(unsigned int first, unsigned int last, int flags)
{
	unsigned mark = kq_fdtab_windows();
	if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last)
		closing_range(first, last);
	int r = (int)range_call(first, last, flags);
	kq_fdtab_closed(mark);
	return r;
}

void KQ_INTERPOSE(closefrom)(int lowfd)
{
	unsigned first = lowfd < 0 ? 0 : (unsigned)lowfd;
	unsigned mark = kq_fdtab_windows();
	closing_range(first, UINT_MAX);
	int e = errno;
	if (range_call(first, UINT_MAX, 0) != 0) {
		/* kernels before 5.9 */
		for (unsigned fd = first, top = fd_ceiling(); fd <= top; fd++)
			if (!kq_fd_hidden_live((int)fd))
				syscall(SYS_close, fd);
	}
	kq_fdtab_closed(mark);
	errno = e;
}
