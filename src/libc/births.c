/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calls that make sockets and copy descriptors, caught so that libkq
 * knows what a new socket is and whether it may have copies (fdtab.c,
 * births) without asking the kernel:
 *   socket, socketpair, accept, accept4   a socket is born: its kind follows
 *                                         from the arguments (an accepted
 *                                         one is its listener's kind), and
 *                                         it is private (below);
 *   setsockopt(SO_RCVLOWAT)               the low-water mark is no longer
 *                                         the default;
 *   dup, fcntl(F_DUPFD*), F_SETFD         a copy may exist now (dup2, dup3
 *                                         in close.c; SCM_RIGHTS in
 *                                         sockio.c).
 * A socket made some other way (inside the C library, a raw system call)
 * is simply unknown and classified by its first knote.  Exported as
 * src/export.h describes.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"
#include "filter/fdkind.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* See close.c: keeps this object in programs linked with libkq.a. */
const char kq_births_anchor = 1;

/*
 * A new socket is private (fdtab.c, births) if no child can copy it unseen.
 * In libkq.so, when the program's calls that make children are all libkq's
 * (fork's handlers, vfork, posix_spawn, system, popen: kq_children_seen()
 * in seen.c), any socket can be.  Otherwise only a close-on-exec socket, as
 * an exec drops it: in libkq.a, whose program's posix_spawn() is the C
 * library's (libc/spawn.c), where vfork() is not libkq's (not x86-64), and
 * when the C library's names come first in the lookup order.
 */
#ifdef KQ_SHARED_LIB
#define CHILDREN_SEEN kq_children_seen()
#else
#define CHILDREN_SEEN false
#endif

static void born(int fd, int kind, bool cloexec, unsigned ep)
{
	/* a vfork() child's descriptors are its own, not the parent's whose
	 * tables it shares (fork.c) */
	if (kq_foreign_process())
		return;
	/* The number was a kqueue's, or had knotes, and was closed where libkq
	 * could not see (a raw system call): release that kqueue and the
	 * knotes the old file left on the number, as kqueue() does when it is
	 * given such a number. */
	if (kq_fdtab_kq(fd) || kq_fdtab_interest_of(fd) > 0)
		kq_fd_reborn(fd);
	if (kind)
		kq_fdtab_born(fd, kind, cloexec || CHILDREN_SEEN, ep);
	else if (kq_fdtab_birth_kind(fd))
		kq_fdtab_clear(fd);   /* left by a close libkq did not see */
}

int KQ_INTERPOSE(socket)(int domain, int type, int protocol)
{
	/* the epoch before the descriptor exists (fdtab.c, children) */
	unsigned ep = kq_fdtab_epoch();
	int fd = (int)syscall(SYS_socket, domain, type, protocol);
	if (fd >= 0)
		born(fd, kq_socket_kind(domain, type, protocol), (type & SOCK_CLOEXEC) != 0, ep);
	return fd;
}

int KQ_INTERPOSE(socketpair)(int domain, int type, int protocol, int sv[2])
{
	unsigned ep = kq_fdtab_epoch();
	int r = (int)syscall(SYS_socketpair, domain, type, protocol, sv);
	if (r == 0) {
		int kind = kq_socket_kind(domain, type, protocol);
		born(sv[0], kind, (type & SOCK_CLOEXEC) != 0, ep);
		born(sv[1], kind, (type & SOCK_CLOEXEC) != 0, ep);
	}
	return r;
}

/* A connection accepted from `lfd` is of its listener's kind. */
static void accepted(int lfd, int fd, int flags, unsigned ep)
{
	int k = kq_fdtab_birth_kind(lfd);
	born(fd, (k == KQ_FD_TCP || k == KQ_FD_STREAM) ? k : 0, (flags & SOCK_CLOEXEC) != 0, ep);
}

/* accept and accept4 are cancellation points, as glibc's. */
int KQ_INTERPOSE(accept4)(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	unsigned ep = kq_fdtab_epoch();
	long c = KQ_CANCELLABLE(SYS_accept4, fd, addr, len, flags);
	if (c < 0) {
		errno = (int)-c;
		return -1;
	}
	accepted(fd, (int)c, flags, ep);
	return (int)c;
}

int KQ_INTERPOSE(accept)(int fd, struct sockaddr *addr, socklen_t *len)
{
	unsigned ep = kq_fdtab_epoch();
#ifdef SYS_accept
	long c = KQ_CANCELLABLE(SYS_accept, fd, addr, len);
#else
	long c = KQ_CANCELLABLE(SYS_accept4, fd, addr, len, 0);
#endif
	if (c < 0) {
		errno = (int)-c;
		return -1;
	}
	accepted(fd, (int)c, 0, ep);
	return (int)c;
}

/* Only SO_RCVLOWAT matters: a READ knote on a socket libkq saw made need
 * not ask for it unless it was set.  Not a cancellation point. */
int KQ_INTERPOSE(setsockopt)(int fd, int level, int name, const void *val, socklen_t len)
{
	/* inline: servers set options on every request (TCP_CORK on and off) */
	long r = KQ_SYSCALL(SYS_setsockopt, fd, level, name, val, len);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (level == SOL_SOCKET && name == SO_RCVLOWAT && !kq_foreign_process())
		kq_fdtab_set_lowat(fd);
	return 0;
}

int KQ_INTERPOSE(dup)(int fd)
{
	int c = (int)syscall(SYS_dup, fd);
	if (c >= 0 && !kq_foreign_process()) {
		kq_fdtab_copied(fd);
		born(c, 0, false, 0);
	}
	return c;
}

/* What a successful fcntl() changed for the births. */
static void fcntl_done(int fd, int cmd, unsigned long arg, int r)
{
	if (kq_foreign_process())
		return;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		kq_fdtab_copied(fd);
		born(r, 0, false, 0);
		break;
	case F_SETFD:
		/* no longer closed by an exec: a child made unseen keeps a
		 * copy (seen children end privacy anyway) */
		if (!(arg & FD_CLOEXEC) && !CHILDREN_SEEN)
			kq_fdtab_copied(fd);
		break;
	}
}

/* The third argument is read as glibc reads it: one word, whatever the
 * command (an int, a pointer, or nothing). */
int KQ_INTERPOSE(fcntl)(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	int r = __fcntl(fd, cmd, arg);
	if (r >= 0)
		fcntl_done(fd, cmd, (unsigned long)arg, r);
	return r;
}

int KQ_INTERPOSE(fcntl64)(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
#if __SIZEOF_LONG__ == 8
	/* with 64-bit longs __fcntl is glibc's fcntl64 */
	int r = __fcntl(fd, cmd, arg);
#else
	/* the system call takes the 64-bit lock commands as they are; only
	 * the waiting lock is a cancellation point */
	long v = (cmd == F_SETLKW || cmd == F_SETLKW64 || cmd == F_OFD_SETLKW)
		? KQ_CANCELLABLE(SYS_fcntl64, fd, cmd, arg)
		: KQ_SYSCALL(SYS_fcntl64, fd, cmd, arg);
	int r = (int)v;
	if (v < 0) {
		errno = (int)-v;
		r = -1;
	}
#endif
	if (r >= 0)
		fcntl_done(fd, cmd, (unsigned long)arg, r);
	return r;
}
