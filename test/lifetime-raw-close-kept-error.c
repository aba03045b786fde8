/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The error libkq read from a reset socket for its EV_EOF record is kept
 * for that socket only.  When the socket is closed by a raw system call and
 * another socket reaches the number behind libkq's back too (raw socket()
 * and dup3()), the kept error must not surface on the new socket: neither
 * to a peek, nor to a read, nor to a write, nor to getsockopt(SO_ERROR);
 * and each such check leaves the new socket working, as it would without
 * libkq.
 */
#include "t.h"
#include "t_reset_error.h"

#include <sys/syscall.h>

/* A connected TCP socket made and moved to `at` with raw system calls
 * only; *peer is its accepted end. */
static int raw_socket_at(int at, int *peer)
{
	struct sockaddr_in sin;
	int lsn = t_inet_socket(SOCK_STREAM, 4, &sin);
	long s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	T_ASSERT(s >= 0);
	T_EQ(syscall(SYS_connect, s, (struct sockaddr *)&sin, sizeof sin), 0);
	T_EQ(syscall(SYS_dup3, s, at, 0), at);
	t_raw_close((int)s);
	*peer = accept(lsn, NULL, NULL);
	T_ASSERT(*peer >= 0);
	T_EQ(close(lsn), 0);
	return at;
}

static void check_fresh(int d, int peer, int how)
{
	char b[8];
	int err = -1;
	socklen_t len = sizeof err;
	switch (how) {
	case 0:   /* a peek, then a read */
		errno = 0;
		T_EQ(recv(d, b, sizeof b, MSG_PEEK | MSG_DONTWAIT), -1);
		T_EQ(errno, EAGAIN);
		errno = 0;
		T_EQ(recv(d, b, sizeof b, MSG_DONTWAIT), -1);
		T_EQ(errno, EAGAIN);
		break;
	case 1:   /* a write */
		T_EQ(write(d, "ping", 4), 4);
		T_EQ(read(peer, b, sizeof b), 4);
		break;
	case 2:   /* the error itself */
		T_ASSERT(getsockopt(d, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
		T_EQ(err, 0);
		break;
	}
	t_write(peer, "data", 4);
	T_EQ(read(d, b, sizeof b), 4);
	T_ASSERT(getsockopt(d, SOL_SOCKET, SO_ERROR, &err, &len) == 0);
	T_EQ(err, 0);
}

int main(void)
{
	for (int how = 0; how < 3; how++) {
		int c = t_reset_after_eof();
		t_raw_close(c);
		int peer, d = raw_socket_at(c, &peer);
		check_fresh(d, peer, how);
		T_EQ(close(d), 0);
		T_EQ(close(peer), 0);
	}
	/* and the socket that had the error still gets it */
	int c = t_reset_after_eof();
	char b[8];
	errno = 0;
	T_EQ(read(c, b, sizeof b), -1);
	T_EQ(errno, ECONNRESET);
	t_reset_then_eof(c);
	T_EQ(close(c), 0);
	return 0;
}
