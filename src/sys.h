/*
 * sys: thin wrappers around the system calls libkq makes.  Each returns the
 * call's value or -errno and never touches errno's meaning for the caller.
 *
 * close() and getsockopt() go straight to the kernel: libkq exports its own
 * versions of those names (interpose.c), and the library must never call
 * back into them.
 */
#ifndef KQ_SYS_H
#define KQ_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KQ_RET(expr) do { long r_ = (long)(expr); return r_ < 0 ? -errno : (int)r_; } while (0)

static inline int sys_close(int fd)
{
	int e = errno;
	long r = syscall(SYS_close, fd);
	int ret = r < 0 ? -errno : 0;
	errno = e;
	return ret;
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
	int e = errno, r = epoll_ctl(epfd, op, fd, &ev);
	if (r < 0) r = -errno;
	errno = e;
	return r;
}

static inline int sys_ioctl_int(int fd, unsigned long req, int *out)
{
	int e = errno, r = ioctl(fd, req, out);
	if (r < 0) r = -errno;
	errno = e;
	return r;
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
	int e = errno;
	long r = syscall(SYS_getsockopt, fd, level, name, val, len);
	int ret = r < 0 ? -errno : 0;
	errno = e;
	return ret;
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
	int e = errno, r = poll(&p, 1, 0);
	errno = e;
	if (r < 0)
		return -e;
	if (p.revents & POLLNVAL)
		return -EBADF;
	return p.revents;
}

static inline int sys_eventfd(void)
{
	int e = errno, r = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r < 0) r = -errno;
	errno = e;
	return r;
}

static inline int sys_eventfd_add(int fd, uint64_t v)
{
	int e = errno;
	ssize_t r = write(fd, &v, sizeof v);
	int ret = r < 0 ? -errno : 0;
	errno = e;
	return ret;
}

static inline int sys_eventfd_drain(int fd)
{
	uint64_t v;
	int e = errno;
	ssize_t r = read(fd, &v, sizeof v);
	int ret = r < 0 ? -errno : 0;
	errno = e;
	return ret;
}

#endif /* KQ_SYS_H */
