/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The replaced C library functions leave errno alone when they succeed
 * also where libkq has work to do in them: closing or replacing
 * descriptors that have knotes (close, dup2, dup3, close_range, closefrom,
 * fclose), closing a kqueue, changing the disposition of a signal that has
 * a knote (sigaction, signal) and taking such a signal with the sigwait
 * family, and every socket call while a socket error read for an EV_EOF
 * record is kept for the program (read, write and the rest look it up),
 * including getsockopt(SO_ERROR) handing that error back.
 */
#include "t_keeps.h"

#include <sys/uio.h>

/* A pipe whose read end has a READ knote in kq. */
static void watched_pipe(int kq, int p[2])
{
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
}

static void descriptors(int kq)
{
	int p[2], sp[2];
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	T_ASSERT(devnull >= 0);

	watched_pipe(kq, p);
	KEEPS(close(p[0]), last == 0);
	close(p[1]);

	watched_pipe(kq, p);
	KEEPS(dup2(devnull, p[0]), last == p[0]);
	close(p[0]);
	close(p[1]);

	watched_pipe(kq, p);
	KEEPS(dup3(devnull, p[0], O_CLOEXEC), last == p[0]);
	close(p[0]);
	close(p[1]);

	/* a socket born through libkq, close-on-exec: its private path */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0)
		T_FAIL("socketpair: %s", strerror(errno));
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, NULL);
	KEEPS(close(sp[0]), last == 0);
	close(sp[1]);

	watched_pipe(kq, p);
	KEEPS(close_range((unsigned)p[0], (unsigned)p[0], 0), last == 0);
	close(p[1]);

	watched_pipe(kq, p);
	int hi = fcntl(p[0], F_DUPFD, 1000);
	T_ASSERT(hi >= 1000);
	t_change(kq, hi, EVFILT_READ, EV_ADD, 0, 0, NULL);
	KEEPS_VOID(closefrom(hi));   /* over a descriptor with a knote */
	close(p[0]);
	close(p[1]);

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	FILE *f = fdopen(sp[0], "r");
	T_ASSERT(f != NULL);
	KEEPS(fclose(f), last == 0);
	close(sp[1]);

	T_NO_EVENTS(kq);
	close(devnull);

	/* a kqueue with knotes, and one that another kqueue watches */
	int kq2 = t_kqueue(), kq3 = t_kqueue();
	watched_pipe(kq2, p);
	t_change(kq3, kq2, EVFILT_READ, EV_ADD, 0, 0, NULL);
	KEEPS(close(kq2), last == 0);
	KEEPS(close(kq3), last == 0);
	close(p[0]);
	close(p[1]);
}

static void signals(int kq)
{
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	keeps_sigaction(SIGUSR1);
	KEEPS(signal(SIGUSR1, keeps_noop), last == (long)keeps_noop);
	keeps_sigwait_family(SIGUSR1);

	T_GET1(kq, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 3, NULL);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
}

/* Leaves a socket error kept by libkq (read for an EV_EOF record and not
 * yet taken by the program); returns the socket. */
static int kept_error_socket(int kq)
{
	int c, s;
	struct linger lg = { 1, 0 };

	t_tcp_pair(&c, &s);
	t_change(kq, c, EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_EQ(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
	T_EQ(close(s), 0);
	T_WAIT1(kq, 2000, c, EVFILT_READ, EV_EOF, ECONNRESET, 0, NULL);
	return c;
}

static void sockets_with_kept_error(int kq)
{
	int bad = kept_error_socket(kq);
	int sp[2], p[2], c, s;
	char buf[8];
	struct iovec iov = { buf, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	/* other sockets' calls, with an error kept for another */
	t_socketpair(sp);
	t_pipe(p);
	KEEPS(write(p[1], "ab", 2), last == 2);
	KEEPS(writev(p[1], &iov, 1), last == 1);
	KEEPS(read(p[0], buf, 2), last == 2);
	KEEPS(readv(p[0], &iov, 1), last == 1);
	KEEPS(send(sp[0], "ab", 2, 0), last == 2);
	KEEPS(sendto(sp[0], "c", 1, 0, NULL, 0), last == 1);
	KEEPS(sendmsg(sp[0], &msg, 0), last == 1);
	KEEPS(recv(sp[1], buf, 1, MSG_PEEK), last == 1);
	KEEPS(recv(sp[1], buf, 2, 0), last == 2);
	KEEPS(recvfrom(sp[1], buf, 1, 0, NULL, NULL), last == 1);
	KEEPS(recvmsg(sp[1], &msg, 0), last == 1);
	int v = -1;
	socklen_t len = sizeof v;
	KEEPS(getsockopt(sp[0], SOL_SOCKET, SO_ERROR, &v, &len), last == 0 && v == 0);
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 4, &sin);
	KEEPS(socket(AF_INET, SOCK_STREAM, 0), last >= 0);
	c = (int)last;
	KEEPS(connect(c, (struct sockaddr *)&sin, sizeof sin), last == 0);
	KEEPS(accept(l, NULL, NULL), last >= 0);
	s = (int)last;
	t_change(kq, s, EVFILT_READ, EV_ADD, 0, 0, NULL);
	KEEPS(close(s), last == 0);
	KEEPS(close(c), last == 0);
	close(l);

	/* the kept error itself, handed back by getsockopt(SO_ERROR) */
	v = -1;
	len = sizeof v;
	KEEPS(getsockopt(bad, SOL_SOCKET, SO_ERROR, &v, &len), last == 0 && v == ECONNRESET);
	KEEPS(close(bad), last == 0);
	close(sp[0]);
	close(sp[1]);
	close(p[0]);
	close(p[1]);

	/* a kept error left on a socket closed before the program took it */
	bad = kept_error_socket(kq);
	KEEPS(close(bad), last == 0);
	t_socketpair(sp);
	KEEPS(write(sp[0], "x", 1), last == 1);
	KEEPS(read(sp[1], buf, 1), last == 1);
	close(sp[0]);
	close(sp[1]);
}

int main(void)
{
	int kq = t_kqueue();
	descriptors(kq);
	signals(kq);
	sockets_with_kept_error(kq);
	KEEPS(close(kq), last == 0);
	return 0;
}
