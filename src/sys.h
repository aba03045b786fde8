/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sys: thin wrappers around the system calls libkq makes.  Each returns the
 * call's value or -errno and never touches errno's meaning for the caller.
 *
 * close() and getsockopt() go straight to the kernel: libkq exports its own
 * versions of those names (src/libc/), and the library must never call
 * back into them.
 *
 * Calls that libc makes cancellation points (poll, read, write, open,
 * sendto, recv, epoll_wait) are issued as raw system calls here, which are
 * not: kevent() may only be cancelled while it sleeps (mux/epoll.c), and it
 * then needs no pthread_setcancelstate() on its fast paths.
 */
#ifndef KQ_SYS_H
#define KQ_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A raw system call as value or -errno.  errno itself may be left changed:
 * only the public calls define it, and only when they fail.
 *
 * On x86-64 the instruction is issued inline: libc's syscall() is a
 * variadic function that shuffles all six arguments and goes through errno,
 * a measurable part of a kevent() that makes two system calls per event. */
#if defined(__x86_64__)
static inline long kq_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* Most calls have four arguments or fewer: two registers less to load. */
static inline long kq_syscall4(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}
#else
static inline long kq_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(n, a, b, c, d, e, f);
	return r < 0 ? -errno : r;
}

static inline long kq_syscall4(long n, long a, long b, long c, long d)
{
	return kq_syscall6(n, a, b, c, d, 0, 0);
}
#endif
#define KQ_SYSCALL6_(n, a, b, c, d, e, f, ...)                               \
	kq_syscall6((long)(n), (long)(a), (long)(b), (long)(c), (long)(d),   \
		    (long)(e), (long)(f))
#define KQ_SYSCALL4_(n, a, b, c, d, ...)                                     \
	kq_syscall4((long)(n), (long)(a), (long)(b), (long)(c), (long)(d))
/* KQ_SYSCALL(nr, args...): the four-argument form for up to four */
#define KQ_SYSCALL_PICK_(_1, _2, _3, _4, _5, _6, _7, name, ...) name
#define KQ_SYSCALL(...)                                                      \
	KQ_SYSCALL_PICK_(__VA_ARGS__, KQ_SYSCALL6_, KQ_SYSCALL6_, KQ_SYSCALL4_, \
			 KQ_SYSCALL4_, KQ_SYSCALL4_, KQ_SYSCALL4_, KQ_SYSCALL4_, \
			 x)(__VA_ARGS__, 0, 0, 0, 0, 0, 0)

#ifdef KQ_TSAN
/* the sanitizer runtime's system call hook (its linux_syscall_hooks.h) */
void __sanitizer_syscall_pre_impl_close(long fd);
#endif
static inline int sys_close(int fd)
{
#ifdef KQ_TSAN
	/* ThreadSanitizer saw the descriptor made (epoll_create1(), say):
	 * told of its close, it does not take the next file given the
	 * number, in another thread, for the same one */
	__sanitizer_syscall_pre_impl_close(fd);
#endif
	return (int)KQ_SYSCALL(SYS_close, fd);
}

static inline int sys_epoll_create(void)
{
	int e = errno, r = epoll_create1(EPOLL_CLOEXEC);
	if (r < 0) r = -errno;
	errno = e;
	return r;
}

static inline int sys_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };
	return (int)KQ_SYSCALL(SYS_epoll_ctl, epfd, op, fd, &ev);
}

static inline int sys_ioctl_int(int fd, unsigned long req, int *out)
{
	return (int)KQ_SYSCALL(SYS_ioctl, fd, req, out);
}

/* fork.c: the id of the process libkq's tables belong to */
extern _Atomic int kq_owner_pid;

/* Whether libkq is built with its replacements of C library functions
 * (src/libc/; the CMake option KQ_LIBC_REPLACEMENTS gives 1 or 0). */
#ifndef KQ_LIBC_REPLACEMENTS
#define KQ_LIBC_REPLACEMENTS 1
#endif

/* Where libkq has its own vfork() (libc/vfork.c), the number of vfork
 * children that may be running in this memory (fork.c).  Without the
 * replacements there is no such vfork() to count them, and a vfork child
 * is recognised by its process id alone. */
#if defined(__x86_64__) && KQ_LIBC_REPLACEMENTS
#define KQ_VFORK_TRACKED 1
extern _Atomic int kq_vforks __attribute__((visibility("hidden")));
#else
#define KQ_VFORK_TRACKED 0
#endif

/* True in a vfork() child running in the parent's memory (fork.c): the
 * descriptor and signal calls then leave libkq's tables alone.  Where
 * vfork() is libkq's, nothing unless a vfork child may be running (a
 * thread that raised the count sees its own store: the child runs as that
 * thread); then, as elsewhere, one getpid system call.  Inline, so that
 * code built without thread-sanitizer instrumentation (signal.c, which runs
 * inside the sanitizer's own start-up) calls nothing that is. */
static inline bool kq_foreign_process(void)
{
#if KQ_VFORK_TRACKED
	if (!atomic_load_explicit(&kq_vforks, memory_order_relaxed))
		return false;
#endif
	return (int)KQ_SYSCALL(SYS_getpid) !=
	       atomic_load_explicit(&kq_owner_pid, memory_order_relaxed);
}

/*
 * Signals blocked around a section that takes a lock a signal handler could
 * also need (through close(), sigaction() and the other replaced calls):
 * a handler that interrupted the section in the same thread would otherwise
 * wait for itself.  A raw system call, so nothing here can itself be
 * interrupted half-way in the C library.  glibc's own signals (thread
 * cancellation, set*id broadcasts) stay deliverable: sigfillset() leaves
 * them out, and their handlers never come back into libkq.
 */
#ifndef KQ_TSAN
static inline void kq_signals_block(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	KQ_SYSCALL(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
}

static inline void kq_signals_restore(const sigset_t *old)
{
	KQ_SYSCALL(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}
#else
/* ThreadSanitizer holds a signal back and runs the handler when the next
 * call it intercepts returns (pthread_mutex_lock, say): only a mask it
 * was told of keeps the handler out of the section. */
static inline void kq_signals_block(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static inline void kq_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}
#endif

/* kcmp(KCMP_FILE) of two of this process's descriptors: 0 the same open
 * file, 1 or 2 not, -errno where kcmp() is missing or refused. */
static inline long sys_same_file(int a, int b)
{
	long pid = KQ_SYSCALL(SYS_getpid);
	return KQ_SYSCALL(SYS_kcmp, pid, pid, 0 /* KCMP_FILE */, a, b);
}

static inline int sys_fstat(int fd, struct stat *st)
{
	int e = errno, r = fstat(fd, st);
	if (r < 0) r = -errno;
	errno = e;
	return r;
}

static inline int sys_fcntl(int fd, int cmd, long arg)
{
	int e = errno, r = fcntl(fd, cmd, arg);
	if (r < 0) r = -errno;
	errno = e;
	return r;
}

static inline int sys_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	return (int)KQ_SYSCALL(SYS_getsockopt, fd, level, name, val, len);
}

static inline int sys_getsockopt_int(int fd, int level, int name, int *out)
{
	socklen_t len = sizeof *out;
	return sys_getsockopt(fd, level, name, out, &len);
}

/* Current poll state of one descriptor, without consuming anything. */
static inline int sys_poll1(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };
	struct timespec z = { 0, 0 };
	long r = KQ_SYSCALL(SYS_ppoll, &p, 1, &z, NULL, 0);
	if (r < 0)
		return (int)r;
	if (p.revents & POLLNVAL)
		return -EBADF;
	return p.revents;
}

/* epoll_wait() that never sleeps. */
static inline int sys_epoll_poll(int epfd, struct epoll_event *evs, int n)
{
#ifdef SYS_epoll_wait
	/* not epoll_pwait where the plain call exists: no signal mask to set */
	return (int)KQ_SYSCALL(SYS_epoll_wait, epfd, evs, n, 0);
#else
	return (int)KQ_SYSCALL(SYS_epoll_pwait, epfd, evs, n, 0, NULL, 0);
#endif
}

static inline long sys_read(int fd, void *buf, size_t n)
{
	return KQ_SYSCALL(SYS_read, fd, buf, n);
}

static inline long sys_write(int fd, const void *buf, size_t n)
{
	return KQ_SYSCALL(SYS_write, fd, buf, n);
}

static inline int sys_open_ro(const char *path)
{
	return (int)KQ_SYSCALL(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
}

static inline int sys_eventfd(void)
{
	int e = errno, r = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r < 0) r = -errno;
	errno = e;
	return r;
}

/* Whether a call failing with err says a sandbox refused it (EPERM,
 * EACCES) or the kernel lacks it (ENOSYS): the same answer for good, in a
 * process whose seccomp filter is never lifted. */
static inline bool sys_refused(int err)
{
	return err == -EPERM || err == -EACCES || err == -ENOSYS;
}

/* A close-on-exec, non-blocking pipe: 0 or -errno. */
static inline int sys_pipe(int p[2])
{
	return (int)KQ_SYSCALL(SYS_pipe2, p, O_CLOEXEC | O_NONBLOCK);
}

static inline int sys_eventfd_add(int fd, uint64_t v)
{
	long r = sys_write(fd, &v, sizeof v);
	return r < 0 ? (int)r : 0;
}

static inline int sys_eventfd_drain(int fd)
{
	uint64_t v;
	long r = sys_read(fd, &v, sizeof v);
	return r < 0 ? (int)r : 0;
}

#endif /* KQ_SYS_H */
