/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A watched socket kept open by a dup(), its number closed where libkq
 * cannot see it and taken by a pipe the program never registers.  The
 * socket's epoll entry lives on (its file is still open) and goes on
 * reporting the socket's readiness under the number, which now names the
 * pipe.  On FreeBSD the close took the knote with it: no record may carry
 * the old udata, whatever the socket's kind, the filter or its flags,
 * however the number was closed (a raw close, a raw close_range, a raw
 * dup3 of the pipe onto it, a close by a child sharing the descriptor
 * table), and whether the socket became readable (a listener: a
 * connection came) or its peer hung up; nor may one come while the number
 * names nothing.
 * The pipe itself is left as it was: its reads are not failed with an
 * error libkq met while looking at it, and a knote added for it later
 * reports it.
 */
#include "t.h"

#include <sched.h>
#include <stdbool.h>
#include <sys/wait.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

enum { UNIX_STREAM, UNIX_DGRAM, UDP, TCP, TCP_LISTEN, UNIX_LISTEN, NKINDS };
enum { RAW_CLOSE, RAW_CLOSE_RANGE, RAW_DUP3, CHILD_CLOSE, LEFT_CLOSED, NHOWS };

static const char *const kind_name[] = {
	"unix-stream", "unix-dgram", "udp", "tcp", "tcp listener", "unix listener"
};
static const char *const how_name[] = {
	"close", "close_range", "dup3", "clone-files child", "close, number left free"
};

/* The listener's address, for connect_to() */
static struct sockaddr_storage addr;
static socklen_t addrlen;

static bool listener(int kind)
{
	return kind == TCP_LISTEN || kind == UNIX_LISTEN;
}

static int client(int kind)
{
	int c = socket(kind == TCP_LISTEN ? AF_INET : AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(c >= 0);
	return c;
}

static void connect_to(int c)
{
	T_EQ(connect(c, (struct sockaddr *)&addr, addrlen), 0);
}

static void sock_pair(int kind, int *s, int *peer)
{
	int sp[2];
	if (kind == UNIX_STREAM || kind == UNIX_DGRAM) {
		T_EQ(socketpair(AF_UNIX, kind == UNIX_STREAM ? SOCK_STREAM : SOCK_DGRAM, 0, sp), 0);
		*s = sp[0];
		*peer = sp[1];
	} else if (kind == TCP_LISTEN) {
		*s = t_inet_socket(SOCK_STREAM, 4, (struct sockaddr_in *)&addr);
		addrlen = sizeof(struct sockaddr_in);
		*peer = -1;
	} else if (kind == UNIX_LISTEN) {
		static int n;
		*s = t_unix_listener_abstract(4, n++, (struct sockaddr_un *)&addr, &addrlen);
		*peer = -1;
	} else if (kind == UDP) {
		struct sockaddr_in sin;
		*s = t_inet_socket(SOCK_DGRAM, 0, &sin);
		*peer = socket(AF_INET, SOCK_DGRAM, 0);
		T_ASSERT(*peer >= 0);
		T_EQ(connect(*peer, (struct sockaddr *)&sin, sizeof sin), 0);
	} else {
		t_tcp_pair(peer, s);
	}
}

static void close_unseen(int how, int x)
{
	int st;
	switch (how) {
	case RAW_CLOSE:
	case LEFT_CLOSED:
		t_raw_close(x);
		break;
	case RAW_CLOSE_RANGE:
		if (syscall(SYS_close_range, x, x, 0) != 0)
			T_FAIL("close_range: %s", strerror(errno));
		break;
	case CHILD_CLOSE: {
		/* a process sharing the descriptor table, not the memory (a
		 * copy of it, as fork() makes): its close is the parent's too,
		 * and libkq in the parent hears nothing of it */
		long pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, 0);
		if (pid == 0)
			syscall(SYS_exit_group, syscall(SYS_close, x) == 0 ? 0 : 1);
		T_ASSERT(pid > 0);
		T_EQ(waitpid((pid_t)pid, &st, 0), (pid_t)pid);
		T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		break;
	}
	}
}

/* The pipe at x (one end, the other in *other), made as `how` says. */
static int pipe_at(int how, int x, int *other)
{
	int p[2];
	t_pipe(p);
	if (how == RAW_DUP3) {
		/* the write end replaces the socket at once */
		T_EQ(syscall(SYS_dup3, p[1], x, 0), x);
		T_EQ(close(p[1]), 0);
		*other = p[0];
		return x;
	}
	if (p[0] != x)
		T_FAIL("the pipe took %d and %d, not the lowest free number %d", p[0], p[1], x);
	*other = p[1];
	return x;
}

static void one(int kind, short filter, unsigned short flags, int how, bool hangup)
{
	void *uold = (void *)0x1, *unew = (void *)0x2;
	int kq = t_kqueue(), s, peer;
	sock_pair(kind, &s, &peer);
	t_change(kq, s, filter, EV_ADD | flags, 0, 0, uold);
	if (listener(kind)) {
		/* a first connection makes libkq learn it is a listener */
		int c = client(kind);
		connect_to(c);
		T_GET1(kq, s, EVFILT_READ, flags, 0, 1, uold);
		int a = accept(s, NULL, NULL);
		T_ASSERT(a >= 0);
		T_EQ(close(a), 0);
		T_EQ(close(c), 0);
	}
	int keep = dup(s);
	T_ASSERT(keep >= 0);
	/* made before the close: it would take the number */
	if (listener(kind))
		peer = client(kind);
	if (how != RAW_DUP3)
		close_unseen(how, s);
	int x = s, other = -1;
	if (how != LEFT_CLOSED)
		x = pipe_at(how, s, &other);
	bool read_end = how != RAW_DUP3;
	if (listener(kind)) {
		connect_to(peer);   /* a connection waits to be accepted */
	} else if (hangup) {
		T_EQ(close(peer), 0);
		peer = -1;
	} else {
		t_write(peer, "hello", 5);
		t_wait_inq(keep, 5);
	}
	for (int i = 0; i < 20; i++) {
		struct kevent ev[8];
		int n = t_get(kq, ev, 8);
		for (int j = 0; j < n; j++) {
			if (ev[j].udata != uold)
				continue;
			t_print_kevent("  phantom", &ev[j]);
			T_FAIL("%s %s flags 0x%x, %s, %s: kevent() call %d reported "
			       "the closed socket's number", kind_name[kind],
			       t_filter_name(filter), flags, how_name[how],
			       hangup ? "peer gone" : "data", i + 1);
		}
	}
	/* the pipe's own state, untouched */
	char b[8];
	if (how == LEFT_CLOSED) {
		t_change_fails(kq, x, EVFILT_READ, EV_ADD, unew, EBADF);
		T_NO_EVENTS(kq);
	} else if (read_end) {
		T_EQ(fcntl(x, F_SETFL, O_NONBLOCK), 0);
		errno = 0;
		if (read(x, b, sizeof b) != -1 || errno != EAGAIN)
			T_FAIL("%s %s, %s: a read of the empty pipe said %s, not EAGAIN",
			       kind_name[kind], t_filter_name(filter), how_name[how],
			       strerror(errno));
		t_change(kq, x, EVFILT_READ, EV_ADD, 0, 0, unew);
		t_write(other, "abc", 3);
		T_GET1(kq, x, EVFILT_READ, 0, 0, 3, unew);
		T_EQ(read(x, b, sizeof b), 3);
		T_NO_EVENTS(kq);
	} else {
		t_change(kq, x, EVFILT_WRITE, EV_ADD, 0, 0, unew);
		T_GET1(kq, x, EVFILT_WRITE, 0, 0, fcntl(x, F_GETPIPE_SZ), unew);
	}
	if (other >= 0) {
		T_EQ(close(x), 0);
		T_EQ(close(other), 0);
	}
	T_EQ(close(keep), 0);
	if (peer >= 0)
		T_EQ(close(peer), 0);
	T_EQ(close(kq), 0);
}

int main(void)
{
	static const unsigned short flagsets[] = { 0, EV_CLEAR, EV_ONESHOT, EV_DISPATCH };
	for (int kind = 0; kind < NKINDS; kind++)
		for (int how = 0; how < NHOWS; how++)
			for (unsigned f = 0; f < sizeof flagsets / sizeof flagsets[0]; f++)
				for (int hangup = 0; hangup < 2; hangup++) {
					/* a UDP peer's close tells nothing */
					if (hangup && kind == UDP)
						continue;
					if (listener(kind)) {
						/* a connection is what a listener's
						 * READ knote reports (one-shot and
						 * dispatch knotes would be spent
						 * learning that it listens) */
						if (!hangup && flagsets[f] != EV_ONESHOT &&
						    flagsets[f] != EV_DISPATCH)
							one(kind, EVFILT_READ, flagsets[f], how, false);
						continue;
					}
					one(kind, EVFILT_READ, flagsets[f], how, hangup);
					one(kind, EVFILT_WRITE, flagsets[f], how, hangup);
				}
	return 0;
}
