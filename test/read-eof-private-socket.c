/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The EV_EOF record of a connection whose descriptor is private (made by
 * accept4() with SOCK_CLOEXEC, never copied) needs no question about
 * which file the number names: a close libkq did not see would have freed
 * the file and its epoll entry, so the report is the connection's own.
 * libkq asks that question of epoll with an EPOLL_CTL_ADD (an entry
 * already there says the number still names the entry's file); here a
 * seccomp filter refuses that call after the knote was added, and the
 * record must come all the same, once for the peer's close and once for
 * its reset.
 */
#include "t_seccomp.h"

#include <sys/epoll.h>

/* epoll_ctl(, EPOLL_CTL_ADD, ...) fails with EPERM on this thread from now
 * on; false where no filter can be installed. */
static bool refuse_epoll_add(void)
{
#ifdef T_AUDIT_ARCH
	struct sock_filter f[] = {
		T_SECCOMP_PROLOGUE,
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_epoll_ctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, EPOLL_CTL_ADD, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	return t_seccomp_install(f, sizeof f / sizeof f[0], 0) == 0;
#else
	return false;
#endif
}

/* A connected pair of close-on-exec TCP sockets; *server is accept4()'s. */
static void private_pair(int l, const struct sockaddr_in *sin, int *client, int *server)
{
	*client = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	T_ASSERT(*client >= 0);
	T_ASSERT(connect(*client, (const struct sockaddr *)sin, sizeof *sin) == 0);
	*server = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	T_ASSERT(*server >= 0);
}

int main(void)
{
	int kq = t_kqueue(), l, c1, s1, c2, s2;
	struct sockaddr_in sin;
	struct linger lg = { 1, 0 };

	l = t_inet_socket(SOCK_STREAM, 4, &sin);
	private_pair(l, &sin, &c1, &s1);
	private_pair(l, &sin, &c2, &s2);
	t_change(kq, s1, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	t_change(kq, s2, EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	T_NO_EVENTS(kq);

	if (!refuse_epoll_add())
		T_SKIP("cannot install a seccomp filter here");

	T_ASSERT(close(c1) == 0);
	T_WAIT1(kq, 2000, s1, EVFILT_READ, EV_EOF, 0, 0, (void *)1);

	t_change(kq, s1, EVFILT_READ, EV_DELETE, 0, 0, NULL);

	T_ASSERT(setsockopt(c2, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
	T_ASSERT(close(c2) == 0);
	T_WAIT1(kq, 2000, s2, EVFILT_READ, EV_EOF, ECONNRESET, 0, (void *)2);
	return 0;
}
