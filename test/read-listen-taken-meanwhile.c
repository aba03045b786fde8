/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a TCP listener whose connection another thread accepts between
 * epoll's report and the record (servers whose threads each have a kqueue
 * holding the listener meet this once per connection): no record, and the
 * knote stays what it was, a level knote the kernel reports while the
 * accept queue holds a connection.  It must not become one that libkq
 * queues again after each record and polls at the next call.
 *
 * The race is made exact with a seccomp filter on this thread: the
 * listener's count (getsockopt TCP_INFO) stops the thread until another
 * one has accepted the connection.  poll() is refused on this thread, so
 * a record that only a poll could make never comes: after the race, a
 * connection left waiting must be reported at every call, as FreeBSD
 * does, by epoll's own level report.
 */
#include "t_seccomp.h"

#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>

static int listener;
static _Atomic int notify_fd = -1;
static _Atomic int taken = -1;   /* the connection the other thread accepted */

/* Answers this thread's TCP_INFO calls: the first one after accepting the
 * connection it was about to count, every one by letting it run. */
static void *taker(void *arg)
{
	(void)arg;
	int fd;
	while ((fd = atomic_load(&notify_fd)) < 0)
		t_sleep_ms(1);
	for (;;) {
		struct seccomp_notif req;
		struct seccomp_notif_resp resp;
		memset(&req, 0, sizeof req);
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (atomic_load(&taken) < 0)
			atomic_store(&taken, accept(listener, NULL, NULL));
		memset(&resp, 0, sizeof resp);
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
}

/* getsockopt(, IPPROTO_TCP, TCP_INFO) goes to the taker; ppoll (and poll
 * where it exists) fail with EPERM.  The filter's listener, or -1. */
static int install_filter(void)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		T_SECCOMP_PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ppoll, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#ifdef SYS_poll
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_poll, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TCP_INFO, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	return t_seccomp_install(f, sizeof f / sizeof f[0], SECCOMP_FILTER_FLAG_NEW_LISTENER);
#else
	return -1;
#endif
}

static int client(const struct sockaddr_in *sin)
{
	int c = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(c >= 0);
	T_ASSERT(connect(c, (const struct sockaddr *)sin, sizeof *sin) == 0);
	return c;
}

int main(void)
{
	int kq = t_kqueue(), a;
	struct sockaddr_in sin;
	void *ud = (void *)0x51;
	struct pollfd pfd;

	listener = t_inet_socket(SOCK_STREAM, 16, &sin);
	t_change(kq, listener, EVFILT_READ, EV_ADD, 0, 0, ud);

	/* A first connection, so libkq knows the descriptor for a listener. */
	client(&sin);
	T_WAIT1(kq, 2000, listener, EVFILT_READ, 0, 0, 1, ud);
	a = accept(listener, NULL, NULL);
	T_ASSERT(a >= 0);
	T_NO_EVENTS(kq);

	/* The connection the other thread will take, queued before the
	 * filter refuses poll(). */
	client(&sin);
	pfd.fd = listener;
	pfd.events = POLLIN;
	T_EQ(poll(&pfd, 1, 2000), 1);

	pthread_t t;
	T_EQ(pthread_create(&t, NULL, taker, NULL), 0);
	int nfd = install_filter();
	if (nfd < 0)
		T_SKIP("no seccomp user notification here (%s)", strerror(errno));
	atomic_store(&notify_fd, nfd);

	/* epoll reports the listener; the count finds the queue emptied */
	T_NO_EVENTS(kq);
	T_ASSERT(atomic_load(&taken) >= 0);

	/* A connection left waiting is reported at every call. */
	client(&sin);
	T_WAIT1(kq, 2000, listener, EVFILT_READ, 0, 0, 1, ud);
	T_GET1(kq, listener, EVFILT_READ, 0, 0, 1, ud);
	T_GET1(kq, listener, EVFILT_READ, 0, 0, 1, ud);
	return 0;
}
