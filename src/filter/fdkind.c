/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Classifying descriptors and measuring `data` for EVFILT_READ/WRITE.
 * Every function returns 0 or -errno; results go through out parameters.
 */
#include "kq.h"
#include "sys.h"
#include "filter/fdkind.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <linux/inet_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <termios.h>

#ifndef PIPEFS_MAGIC
#define PIPEFS_MAGIC 0x50495045
#endif

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/*
 * A socket that is not listening.  SO_PROTOCOL answers for the common ones
 * in one call (TCP, UDP, ping); AF_UNIX and others say 0 and are told by
 * SO_TYPE.  TCP has a kind of its own: its poll reports input only once
 * SO_RCVLOWAT bytes are there, so its READ knotes need not ask for it.
 */
static int connection_kind(int fd)
{
	int v = 0;
	int err = sys_getsockopt_int(fd, SOL_SOCKET, SO_PROTOCOL, &v);
	if (err)
		return err;
	switch (v) {
	case IPPROTO_TCP:
	case IPPROTO_MPTCP:
		return KQ_FD_TCP;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return KQ_FD_DGRAM;
	}
	err = sys_getsockopt_int(fd, SOL_SOCKET, SO_TYPE, &v);
	if (err)
		return err;
	return (v == SOCK_STREAM || v == SOCK_SEQPACKET) ? KQ_FD_STREAM : KQ_FD_DGRAM;
}

static int classify_socket(int fd)
{
	int v = 0, dom = 0, err;
	err = sys_getsockopt_int(fd, SOL_SOCKET, SO_ACCEPTCONN, &v);
	if (err)
		return err;
	if (v) {
		if (sys_getsockopt_int(fd, SOL_SOCKET, SO_DOMAIN, &dom) == 0) {
			if (dom == AF_INET || dom == AF_INET6)
				return KQ_FD_LISTEN_INET;
			if (dom == AF_UNIX)
				return KQ_FD_LISTEN_UNIX;
		}
		return KQ_FD_LISTEN_OTHER;
	}
	return connection_kind(fd);
}

/* The kind connection_kind() would find for a socket made by
 * socket(domain, type, protocol), without asking; 0 where unsure. */
int kq_socket_kind(int domain, int type, int protocol)
{
	int t = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (domain == AF_INET || domain == AF_INET6) {
		if (t == SOCK_STREAM && (protocol == 0 || protocol == IPPROTO_TCP ||
					 protocol == IPPROTO_MPTCP))
			return KQ_FD_TCP;
		if (t == SOCK_DGRAM && (protocol == 0 || protocol == IPPROTO_UDP ||
					protocol == IPPROTO_UDPLITE))
			return KQ_FD_DGRAM;
	} else if (domain == AF_UNIX) {
		if (t == SOCK_STREAM || t == SOCK_SEQPACKET)
			return KQ_FD_STREAM;
		if (t == SOCK_DGRAM)
			return KQ_FD_DGRAM;
	}
	return 0;
}

const char *kq_procfs_self(void);   /* filter/efdinfo.c */

static int classify_anon(int fd)
{
	char path[40], link[64];
	if (kq_is_kqueue_fd(fd))
		return KQ_FD_KQUEUE;
	/* not /proc/self: empty once the main thread called pthread_exit() */
	snprintf(path, sizeof path, "%s/fd/%d", kq_procfs_self(), fd);
	int e = errno;
	ssize_t n = readlink(path, link, sizeof link - 1);
	errno = e;
	if (n > 0) {
		link[n] = 0;
		if (strcmp(link, "anon_inode:[eventfd]") == 0)
			return KQ_FD_EVENTFD;
	}
	return KQ_FD_OTHER;
}

/*
 * The first look at a descriptor, made for every new socket a server
 * watches: one getsockopt(SO_PROTOCOL) for TCP and UDP (connection_kind),
 * which also tells that the descriptor is a socket (ENOTSOCK otherwise:
 * the full classification follows).  A
 * stream socket is taken to be a connection, not a listener: asking
 * SO_ACCEPTCONN for every accepted socket would cost a call each, while a
 * listener gives itself away the first time it is measured (FIONREAD fails
 * with EINVAL on it, in TCP and AF_UNIX alike) and is then classified in
 * full (filter/fd.c, read_event).
 */
int kq_fd_classify_first(int fd)
{
	int k = connection_kind(fd);
	return k == -ENOTSOCK ? kq_fd_classify(fd) : k;
}

int kq_fd_classify(int fd)
{
	struct stat st;
	int err = sys_fstat(fd, &st);
	if (err)
		return err;
	switch (st.st_mode & S_IFMT) {
	case S_IFIFO: {
		struct statfs sf;
		int e = errno, r = fstatfs(fd, &sf);
		errno = e;
		return (r == 0 && sf.f_type == PIPEFS_MAGIC) ? KQ_FD_PIPE : KQ_FD_FIFO;
	}
	case S_IFSOCK:
		return classify_socket(fd);
	case S_IFCHR: {
		struct termios t;
		int e = errno, r = tcgetattr(fd, &t);
		errno = e;
		return r == 0 ? KQ_FD_TTY : KQ_FD_OTHER;
	}
	case S_IFREG:
	case S_IFDIR:
		return KQ_FD_FILE;
	default:
		return classify_anon(fd);
	}
}

int kq_fd_inq(int fd, int64_t *out)
{
	int n = 0, err = sys_ioctl_int(fd, FIONREAD, &n);
	*out = err ? 0 : n;
	return err;
}

int kq_sock_sndbuf(int fd, int64_t *out)
{
	int buf = 0, err = sys_getsockopt_int(fd, SOL_SOCKET, SO_SNDBUF, &buf);
	*out = err ? 0 : buf;
	return err;
}

int kq_sock_space(int fd, int64_t *out)
{
	int queued = 0, err = kq_sock_sndbuf(fd, out);
	if (!err)
		err = sys_ioctl_int(fd, SIOCOUTQ, &queued);
	*out = err ? 0 : (*out > queued ? *out - queued : 0);
	return err;
}

int kq_pipe_space(int fd, int64_t *out)
{
	int64_t used = 0;
	int cap = sys_fcntl(fd, F_GETPIPE_SZ, 0);
	if (cap < 0) {
		*out = 0;
		return cap;
	}
	kq_fd_inq(fd, &used);
	*out = cap > used ? cap - used : 0;
	return 0;
}

int kq_tty_space(int fd, int64_t *out)
{
	/* Linux exposes no output-queue size for ttys; N_TTY's write room
	 * is bounded by its 4 KiB buffer, so report what is left of that. */
	int queued = 0, err = sys_ioctl_int(fd, TIOCOUTQ, &queued);
	*out = (!err && queued < 4096) ? 4096 - queued : 0;
	return err;
}

/* Pending connections of a listening AF_UNIX socket.  Linux has no ioctl
 * for it (FIONREAD says EINVAL); sock_diag reports the accept queue length
 * as the receive queue of a listener.  The netlink socket is the kqueue's
 * (*diag, made on first use): making and closing one per evaluation cost
 * more than the query itself.  A reply left behind by an interrupted call
 * is told apart by its sequence number and skipped. */
static int unix_backlog(int fd, int64_t *out, int *diag)
{
	static _Atomic unsigned seq;
	struct stat st;
	int err = sys_fstat(fd, &st);
	if (err)
		return err;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;   /* the number names another file now */
	if (*diag < 0) {
		int e = errno;
		*diag = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		if (*diag < 0) {
			err = -errno;
			errno = e;
			return err;
		}
		*diag = kq_fd_own(*diag);
	}
	unsigned id = atomic_fetch_add_explicit(&seq, 1, memory_order_relaxed);
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} msg = {
		.nlh = { .nlmsg_len = sizeof msg, .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = id },
		.req = { .sdiag_family = AF_UNIX, .udiag_states = ~0u,
			 .udiag_ino = (unsigned)st.st_ino, .udiag_show = UDIAG_SHOW_RQLEN,
			 .udiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (KQ_SYSCALL(SYS_sendto, *diag, &msg, sizeof msg, 0, &sa, sizeof sa) != (long)sizeof msg)
		return -EIO;
	/* the kernel has queued the answer when sendto() returns */
	for (int tries = 0; tries < 4; tries++) {
		union { struct nlmsghdr h; char b[1024]; } buf;
		long n = KQ_SYSCALL(SYS_recvfrom, *diag, &buf, sizeof buf, MSG_DONTWAIT, NULL, NULL);
		struct nlmsghdr *h = &buf.h;
		if (n <= 0 || !NLMSG_OK(h, (unsigned)n))
			return -EIO;
		if (h->nlmsg_seq != id)
			continue;
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
			return -EIO;
		struct unix_diag_msg *m = NLMSG_DATA(h);
		int len = (int)h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
		for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			if (a->rta_type == UNIX_DIAG_RQLEN) {
				struct unix_diag_rqlen *q = RTA_DATA(a);
				*out = q->udiag_rqueue;
				return 0;
			}
		}
		return -EIO;
	}
	return -EIO;
}

int kq_listen_backlog(int fd, int kind, int64_t *out, int *diag)
{
	*out = 0;
	if (kind == KQ_FD_LISTEN_INET) {
		struct tcp_info ti;
		socklen_t len = sizeof ti;
		memset(&ti, 0, sizeof ti);
		int err = sys_getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
		if (!err)
			*out = ti.tcpi_unacked;   /* accept queue length for listeners */
		return err;
	}
	if (kind == KQ_FD_LISTEN_UNIX)
		return unix_backlog(fd, out, diag);
	return -EOPNOTSUPP;
}

int kq_file_remaining(int fd, int64_t *out)
{
	struct stat st;
	int err = sys_fstat(fd, &st);
	if (err)
		return err;
	int e = errno;
	off_t off = lseek(fd, 0, SEEK_CUR);
	if (off < 0) {
		err = -errno;
		errno = e;
		return err;
	}
	*out = (int64_t)st.st_size - (int64_t)off;
	return 0;
}
