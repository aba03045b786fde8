/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Socket errors stay where the program looks for them.
 *
 * An EV_EOF record carries the socket's pending error in fflags, as on
 * FreeBSD, whose filter copies it without clearing it.  Linux offers only
 * getsockopt(SO_ERROR), which clears it, so libkq keeps the value it read
 * (fdtab.c, tied to the socket's inode) and the calls through which a
 * program would have met the error give it back, once, as the kernel would
 * have:
 *   getsockopt(SO_ERROR)      the usual check of a non-blocking connect;
 *   connect() again           how some programs learn why a connect failed
 *                             (the kernel would now say ECONNABORTED);
 *   read/recv/... and         after a reset, the first read that finds no
 *   write/send/...            data queued, or the first write, fails with
 *                             the error (the kernel would now report
 *                             end-of-file, or EPIPE and raise SIGPIPE);
 *                             a peek (MSG_PEEK) leaves it in place.
 * Each is one relaxed load when no socket has a kept error (nearly always),
 * and one more lock-free load of the descriptor's entry otherwise; only a
 * descriptor that has a kept error takes a lock (so write() to a self-pipe
 * stays safe in a signal handler).  The C library's own function does the
 * work.  They are exported as src/export.h describes.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"
#include "filter/fdkind.h"

#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>


/* The C library's _FORTIFY_SOURCE entry points (declared by its headers
 * only when fortification is on). */
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *);

/* See close.c: keeps this object in programs linked with libkq.a. */
const char kq_sockio_anchor = 1;

/* The kept error of the socket at fd, or 0. */
static inline int kept_error(int fd)
{
	if (__builtin_expect(!kq_fdtab_any_error(), 1))
		return 0;
	return kq_fdtab_take_error(fd);
}

/* The same for a read: the kernel (Linux's and FreeBSD's) hands out data
 * still queued before the error, and a peek leaves the error in place.
 * A receive is also counted on a watched datagram socket (fdtab.c). */
static int kept_read_error_slow(int fd, int flags)
{
	int64_t queued = 0;
	if (!(flags & MSG_PEEK) && kq_fdtab_rx_any())
		kq_fdtab_rx_note(fd);
	if (!kq_fdtab_any_error() || !kq_fdtab_error_kept(fd))
		return 0;   /* none, or another socket's: nothing to ask */
	if (kq_fd_inq(fd, &queued) == 0 && queued > 0)
		return 0;
	return (flags & MSG_PEEK) ? kq_fdtab_peek_error(fd) : kq_fdtab_take_error(fd);
}

static inline int kept_read_error(int fd, int flags)
{
	if (__builtin_expect(!kq_fdtab_any_error() && !kq_fdtab_rx_any(), 1))
		return 0;
	return kept_read_error_slow(fd, flags);
}

#define FAIL_WITH(err) do { errno = (err); return -1; } while (0)

/* A raw cancellable call's value as the C library returns it. */
static inline ssize_t ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

int KQ_INTERPOSE(getsockopt)(int fd, int level, int name, void *val, socklen_t *len)
{
	if (level == SOL_SOCKET && name == SO_ERROR && val && len) {
		int err = kept_error(fd);
		if (err) {
			socklen_t n = *len < sizeof err ? *len : sizeof err;
			memcpy(val, &err, n);
			*len = n;
			return 0;
		}
	}
	return (int)ret(KQ_SYSCALL(SYS_getsockopt, fd, level, name, val, len));
}

int KQ_INTERPOSE(connect)(int fd, const struct sockaddr *addr, socklen_t len)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	return __connect(fd, addr, len);
}

ssize_t KQ_INTERPOSE(read)(int fd, void *buf, size_t n)
{
	int err = kept_read_error(fd, 0);
	if (err)
		FAIL_WITH(err);
	return __read(fd, buf, n);
}

ssize_t KQ_INTERPOSE(readv)(int fd, const struct iovec *iov, int n)
{
	int err = kept_read_error(fd, 0);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_readv, fd, iov, n));
}

ssize_t KQ_INTERPOSE(recv)(int fd, void *buf, size_t n, int flags)
{
	int err = kept_read_error(fd, flags);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_recvfrom, fd, buf, n, flags, NULL, NULL));
}

ssize_t KQ_INTERPOSE(recvfrom)(int fd, void *buf, size_t n, int flags,
			struct sockaddr *addr, socklen_t *alen)
{
	int err = kept_read_error(fd, flags);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_recvfrom, fd, buf, n, flags, addr, alen));
}

ssize_t KQ_INTERPOSE(recvmsg)(int fd, struct msghdr *msg, int flags)
{
	int err = kept_read_error(fd, flags);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_recvmsg, fd, msg, flags));
}

ssize_t KQ_INTERPOSE(write)(int fd, const void *buf, size_t n)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	return __write(fd, buf, n);
}

ssize_t KQ_INTERPOSE(writev)(int fd, const struct iovec *iov, int n)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_writev, fd, iov, n));
}

ssize_t KQ_INTERPOSE(send)(int fd, const void *buf, size_t n, int flags)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	return __send(fd, buf, n, flags);
}

ssize_t KQ_INTERPOSE(sendto)(int fd, const void *buf, size_t n, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_sendto, fd, buf, n, flags, addr, alen));
}

/* Descriptors sent in SCM_RIGHTS get a copy in the receiver (fdtab.c,
 * births). */
static void sending_descriptors(const struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *p = CMSG_DATA(c);
		for (size_t i = 0; i < n; i++) {
			int fd;
			memcpy(&fd, p + i * sizeof fd, sizeof fd);
			kq_fdtab_copied(fd);
		}
	}
}

ssize_t KQ_INTERPOSE(sendmsg)(int fd, const struct msghdr *msg, int flags)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	if (msg && msg->msg_control && msg->msg_controllen && !kq_foreign_process())
		sending_descriptors(msg);
	return ret(KQ_CANCELLABLE(SYS_sendmsg, fd, msg, flags));
}

/* The calls that move many messages, or data between descriptors, meet a
 * socket's error as the single calls do: the first one to look gets it. */
int KQ_INTERPOSE(recvmmsg)(int fd, struct mmsghdr *vec, unsigned int n, int flags,
			   struct timespec *timeout)
{
	int err = kept_read_error(fd, flags);
	if (err)
		FAIL_WITH(err);
	return (int)ret(KQ_CANCELLABLE(SYS_recvmmsg, fd, vec, n, flags, timeout));
}

int KQ_INTERPOSE(sendmmsg)(int fd, struct mmsghdr *vec, unsigned int n, int flags)
{
	int err = kept_error(fd);
	if (err)
		FAIL_WITH(err);
	for (unsigned i = 0; vec && i < n && !kq_foreign_process(); i++) {
		const struct msghdr *m = &vec[i].msg_hdr;
		if (m->msg_control && m->msg_controllen)
			sending_descriptors(m);
	}
	return (int)ret(KQ_CANCELLABLE(SYS_sendmmsg, fd, vec, n, flags));
}

ssize_t KQ_INTERPOSE(splice)(int in, loff_t *inoff, int out, loff_t *outoff,
			     size_t len, unsigned int flags)
{
	int err = kept_read_error(in, 0);
	if (!err)
		err = kept_error(out);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_CANCELLABLE(SYS_splice, in, inoff, out, outoff, len, flags));
}

/* Not a cancellation point in glibc either. */
ssize_t KQ_INTERPOSE(sendfile)(int out, int in, off_t *off, size_t len)
{
	int err = kept_error(out);
	if (err)
		FAIL_WITH(err);
	return ret(KQ_SYSCALL(SYS_sendfile, out, in, off, len));
}

#if __SIZEOF_LONG__ == 8
/* the same function under its large-file name */
ssize_t KQ_INTERPOSE(sendfile64)(int out, int in, off_t *off, size_t len)
{
	return KQ_CALL(sendfile)(out, in, off, len);
}
#endif

/* _FORTIFY_SOURCE turns read() and recv() with a buffer of known size into
 * these: the size check glibc's make, then the call itself. */
void __chk_fail(void) __attribute__((noreturn));

ssize_t KQ_INTERPOSE(__read_chk)(int fd, void *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return KQ_CALL(read)(fd, buf, n);
}

ssize_t KQ_INTERPOSE(__recv_chk)(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	if (n > buflen)
		__chk_fail();
	return KQ_CALL(recv)(fd, buf, n, flags);
}

ssize_t KQ_INTERPOSE(__recvfrom_chk)(int fd, void *buf, size_t n, size_t buflen, int flags,
			      struct sockaddr *addr, socklen_t *alen)
{
	if (n > buflen)
		__chk_fail();
	return KQ_CALL(recvfrom)(fd, buf, n, flags, addr, alen);
}
