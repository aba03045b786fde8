/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Each C library function libkq replaces leaves errno alone when it
 * succeeds, as glibc's does: code that sets errno, makes a successful call
 * and then looks at errno (or a handler interrupted between a failing call
 * and the caller's look at errno, which saves and restores it around its
 * own calls) must see its own value.
 *
 * Every call is made with errno set to a value no call returns, first in a
 * fresh process (libkq looks up the C library's function on first use),
 * then again.  No kqueue is made here (errno-kept-with-knotes covers
 * descriptors with knotes and kept socket errors).
 */
#include "t_keeps.h"

#include <sys/uio.h>
#include <sys/wait.h>

static pid_t __attribute__((noinline)) vfork_exit(void)
{
	pid_t pid = vfork();
	if (pid == 0)
		_exit(0);
	return pid;
}

static void one_round(void)
{
	int p[2], sp[2], s, l, c, a;
	char buf[16];
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	struct iovec iov = { buf, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	T_EQ(pipe(p), 0);
	KEEPS(write(p[1], "abcdefgh", 8), last == 8);
	KEEPS(writev(p[1], &iov, 1), last == 1);
	KEEPS(read(p[0], buf, 2), last == 2);
	KEEPS(readv(p[0], &iov, 1), last == 1);

	KEEPS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), last == 0);
	KEEPS(send(sp[0], "ab", 2, 0), last == 2);
	KEEPS(sendto(sp[0], "cd", 2, 0, NULL, 0), last == 2);
	KEEPS(sendmsg(sp[0], &msg, 0), last == 1);
	KEEPS(recv(sp[1], buf, 2, 0), last == 2);
	KEEPS(recvfrom(sp[1], buf, 1, MSG_PEEK, NULL, NULL), last == 1);
	KEEPS(recvfrom(sp[1], buf, 2, 0, NULL, NULL), last == 2);
	KEEPS(recvmsg(sp[1], &msg, 0), last == 1);

	/* a descriptor passed in SCM_RIGHTS */
	union t_rights ctl;
	struct msghdr rights;
	t_rights_msg(&rights, &iov, &ctl, p[0]);
	KEEPS(sendmsg(sp[0], &rights, 0), last == 1);
	t_rights_msg(&rights, &iov, &ctl, -1);
	KEEPS(recvmsg(sp[1], &rights, MSG_CMSG_CLOEXEC), last == 1);
	int passed = t_rights_fd(&rights);
	T_ASSERT(passed >= 0);
	KEEPS(close(passed), last == 0);

	/* TCP: socket, listen, connect, accept, accept4, options */
	KEEPS(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), last >= 0);
	l = (int)last;
	t_loopback(&sin);
	T_EQ(bind(l, (struct sockaddr *)&sin, sizeof sin), 0);
	T_EQ(listen(l, 4), 0);
	T_EQ(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	KEEPS(socket(AF_INET, SOCK_STREAM, 0), last >= 0);
	c = (int)last;
	KEEPS(connect(c, (struct sockaddr *)&sin, sizeof sin), last == 0);
	KEEPS(accept(l, NULL, NULL), last >= 0);
	a = (int)last;
	KEEPS(close(a), last == 0);
	KEEPS(socket(AF_INET, SOCK_STREAM, 0), last >= 0);
	s = (int)last;
	KEEPS(connect(s, (struct sockaddr *)&sin, sizeof sin), last == 0);
	KEEPS(accept4(l, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK), last >= 0);
	a = (int)last;
	int one = 1, v = 0;
	socklen_t vlen = sizeof v;
	KEEPS(setsockopt(a, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one), last == 0);
	KEEPS(setsockopt(a, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one), last == 0);
	KEEPS(getsockopt(a, SOL_SOCKET, SO_ERROR, &v, &vlen), last == 0 && v == 0);
	KEEPS(getsockopt(a, SOL_SOCKET, SO_RCVLOWAT, &v, &vlen), last == 0 && v == 1);

	/* descriptor copies and closes */
	KEEPS(dup(p[0]), last >= 0);
	int d = (int)last;
	KEEPS(dup2(p[0], d), last == d);
	KEEPS(dup2(d, d), last == d);
	KEEPS(dup3(p[1], d, O_CLOEXEC), last == d);
	KEEPS(fcntl(d, F_DUPFD, 0), last >= 0);
	int d2 = (int)last;
	KEEPS(fcntl(d, F_DUPFD_CLOEXEC, 0), last >= 0);
	int d3 = (int)last;
	KEEPS(fcntl(d, F_GETFD), last == FD_CLOEXEC);
	KEEPS(fcntl(d, F_SETFD, 0), last == 0);
	KEEPS(fcntl(d, F_GETFL), last >= 0);
	KEEPS(fcntl64(d, F_GETFD), last == 0);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int f = open("/proc/self/exe", O_RDONLY);
	T_ASSERT(f >= 0);
	fl.l_type = F_RDLCK;
	KEEPS(fcntl(f, F_SETLKW, &fl), last == 0);
	KEEPS(close(f), last == 0);
	KEEPS(close_range((unsigned)d2, (unsigned)d2, 0), last == 0);
	KEEPS(close_range((unsigned)d3, (unsigned)d3, CLOSE_RANGE_CLOEXEC), last == 0);
	KEEPS(close(d3), last == 0);
	FILE *fp = fdopen(d, "w");
	T_ASSERT(fp != NULL);
	KEEPS(fclose(fp), last == 0);
	int hi = fcntl(p[0], F_DUPFD, 900);
	T_ASSERT(hi >= 900);
	KEEPS_VOID(closefrom(hi));
	T_ERRNO(fcntl(hi, F_GETFD), EBADF);

	/* signals */
	keeps_sigaction(SIGUSR1);
	KEEPS(signal(SIGUSR2, keeps_noop), last != (long)SIG_ERR);
	KEEPS(signal(SIGUSR2, SIG_DFL), last == (long)keeps_noop);
	keeps_sigwait_family(SIGUSR1);

	KEEPS(vfork_exit(), last > 0);
	int status;
	T_EQ(waitpid((pid_t)last, &status, 0), last);

	KEEPS(close(a), last == 0);
	KEEPS(close(s), last == 0);
	KEEPS(close(c), last == 0);
	KEEPS(close(l), last == 0);
	KEEPS(close(sp[0]), last == 0);
	KEEPS(close(sp[1]), last == 0);
	KEEPS(close(p[0]), last == 0);
	KEEPS(close(p[1]), last == 0);
}

int main(void)
{
	for (int round = 1; round <= 2; round++) {
		snprintf(keeps_where, sizeof keeps_where, "round %d: ", round);
		one_round();
	}
	return 0;
}
