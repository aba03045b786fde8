/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_WAKEONE, a libkq extension built on epoll_ctl's EPOLLEXCLUSIVE: one
 * listening TCP socket on 127.0.0.1 shared by 4 worker processes, each with
 * its own kqueue holding READ|EV_WAKEONE on it and sleeping in kevent().  For
 * each of 20 connections the test counts how many workers' kevent() returned
 * (within 50 ms of the first): 1..4 is allowed (Linux wakes "one or more"), at
 * least one must, and on average fewer than all 4 must.  The same is run with
 * plain READ knotes (every worker is woken) and both totals are printed.
 * Before that, in one process: 4 kqueues with READ|EV_WAKEONE on one listener
 * and nobody waiting all report the pending connection to a zero-timeout
 * kevent() (the flag limits wake-ups, not readiness).
 */
#include "t_thread.h"

#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define NPROC 4
#define CONNS 20

/* Worker: reports 'r' before each wait and 'w' after it returns, then
 * waits for a go byte.  Messages are 2 bytes: type, worker index. */
static void worker(int idx, int lst, unsigned short flags, int rep, int go)
{
	char msg[2] = { 'r', (char)idx }, c;
	struct kevent ev;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGALRM, SIG_DFL);
	alarm(20);
	int kq = kqueue();
	if (kq < 0)
		_exit(2);
	t_change(kq, lst, EVFILT_READ, EV_ADD | flags, 0, 0, NULL);
	for (;;) {
		msg[0] = 'r';
		if (write(rep, msg, 2) != 2)
			_exit(3);
		int n;
		do
			n = kevent(kq, NULL, 0, &ev, 1, NULL);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			_exit(4);
		msg[0] = 'w';
		if (write(rep, msg, 2) != 2)
			_exit(3);
		if (read(go, &c, 1) != 1)
			_exit(5);
	}
}

/* Reads one 2-byte message, waiting at most ms; returns 0 on timeout. */
static int get_msg(int fd, char msg[2], int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r = poll(&pfd, 1, ms);
	if (r < 0 && errno == EINTR)
		return 0;
	if (r < 0)
		T_FAIL("poll: %s", strerror(errno));
	if (r == 0)
		return 0;
	if (read(fd, msg, 2) != 2)
		T_FAIL("worker report pipe closed (a worker died)");
	return 1;
}

static int run(int lst, const struct sockaddr_in *sin, unsigned short flags,
	       const char *what)
{
	int rep[2], go[NPROC][2];
	pid_t pids[NPROC];
	int waiting[NPROC] = { 0 }, total = 0, most = 0;
	char msg[2];

	t_pipe(rep);
	for (int i = 0; i < NPROC; i++) {
		t_pipe(go[i]);
		pids[i] = fork();
		T_ASSERT(pids[i] >= 0);
		if (pids[i] == 0)
			worker(i, lst, flags, rep[1], go[i][0]);
	}

	for (int c = 1; c <= CONNS; c++) {
		/* All workers reported 'r' and sleep in kevent(). */
		int64_t end = t_now_ns() + 2000000000LL;
		for (;;) {
			int all = 1;
			for (int i = 0; i < NPROC; i++)
				all &= waiting[i];
			if (all)
				break;
			if (t_now_ns() > end)
				T_FAIL("%s: workers not ready", what);
			if (get_msg(rep[0], msg, 100)) {
				if (msg[0] != 'r')
					T_FAIL("%s: worker %d woke with no "
					       "connection", what, msg[1]);
				waiting[(int)msg[1]] = 1;
			}
		}
		for (int i = 0; i < NPROC; i++)
			while (t_proc_state(pids[i]) != 'S') {
				if (t_now_ns() > end)
					T_FAIL("%s: worker %d not asleep",
					       what, i);
				t_sleep_ms(1);
			}
		t_sleep_ms(2);

		int cl = socket(AF_INET, SOCK_STREAM, 0);
		T_ASSERT(cl >= 0);
		if (connect(cl, (const struct sockaddr *)sin, sizeof *sin))
			T_FAIL("connect: %s", strerror(errno));
		int woke = 0, woken[NPROC] = { 0 };
		if (!get_msg(rep[0], msg, 2000))
			T_FAIL("%s: connection %d woke no worker", what, c);
		do {
			if (msg[0] != 'w')
				T_FAIL("%s: unexpected message", what);
			woken[(int)msg[1]] = 1;
			waiting[(int)msg[1]] = 0;
			woke++;
		} while (get_msg(rep[0], msg, 50));
		total += woke;
		if (woke > most)
			most = woke;
		int s = accept(lst, NULL, NULL);
		T_ASSERT(s >= 0);
		T_EQ(close(s), 0);
		T_EQ(close(cl), 0);
		for (int i = 0; i < NPROC; i++)
			if (woken[i])
				t_write(go[i][1], "g", 1);
	}
	for (int i = 0; i < NPROC; i++) {
		kill(pids[i], SIGKILL);
		T_EQ(waitpid(pids[i], NULL, 0), pids[i]);
		T_EQ(close(go[i][0]), 0);
		T_EQ(close(go[i][1]), 0);
	}
	T_EQ(close(rep[0]), 0);
	T_EQ(close(rep[1]), 0);
	fprintf(stderr, "%s: %d connections woke %d workers in all "
		"(average %.2f of %d, at most %d at once)\n", what, CONNS,
		total, (double)total / CONNS, NPROC, most);
	return total;
}

static void readiness(void)
{
	struct sockaddr_in sin;
	int l = t_inet_socket(SOCK_STREAM, 8, &sin), kqs[NPROC];
	struct kevent ev[4];

	for (int i = 0; i < NPROC; i++) {
		kqs[i] = t_kqueue();
		t_change(kqs[i], l, EVFILT_READ, EV_ADD | EV_WAKEONE, 0, 0,
			 NULL);
		T_NO_EVENTS(kqs[i]);
	}
	int c = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(c >= 0);
	T_EQ(connect(c, (struct sockaddr *)&sin, sizeof sin), 0);
	/* Wait for the connection with poll() on the listener itself (not a
	 * kevent() wait, which would be the one woken waiter). */
	struct pollfd pfd = { .fd = l, .events = POLLIN };
	T_EQ(poll(&pfd, 1, 2000), 1);
	for (int i = 0; i < NPROC; i++) {
		T_EQ(t_get(kqs[i], ev, 4), 1);
		T_KEVENT(&ev[0], l, EVFILT_READ, EV_WAKEONE, 0, 1, NULL);
		T_EQ(close(kqs[i]), 0);
	}
	T_EQ(close(c), 0);
	T_EQ(close(l), 0);
}

int main(void)
{
	struct sockaddr_in sin;

	t_fail_after(20, "wakeone-listen-procs: still running after 20 s");
	readiness();

	int lst = t_inet_socket(SOCK_STREAM, 64, &sin);
	int with = run(lst, &sin, EV_WAKEONE, "READ|EV_WAKEONE");
	int without = run(lst, &sin, 0, "plain READ");
	fprintf(stderr, "workers woken per connection: %.2f with EV_WAKEONE, "
		"%.2f without\n", (double)with / CONNS,
		(double)without / CONNS);
	if (with >= NPROC * CONNS)
		T_FAIL("EV_WAKEONE woke all %d workers for every connection",
		       NPROC);
	alarm(0);
	return 0;
}
