/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * recv() is async-signal-safe, also on a socket whose error libkq keeps for
 * the program (read for an EV_EOF record, handed back by the next read,
 * write or getsockopt(SO_ERROR); a peek leaves it in place): a handler that
 * peeks at such a socket must complete when it interrupts its own thread
 * inside any call that looks up kept errors (a peek at another such socket,
 * getsockopt(SO_ERROR) taking one, kevent() keeping a new one).
 *
 * Sockets with kept errors are made by resetting the peer of a TCP
 * connection on 127.0.0.1 whose READ knote then reports EV_EOF with
 * ECONNRESET.  For 1.5 s, with a timer sending SIGALRM to the thread every
 * 50 us, the main loop peeks at its own such sockets (each peek must fail
 * with ECONNRESET and leave errno alone otherwise), and now and then makes
 * a new one and takes the error of an old one with getsockopt(SO_ERROR);
 * the handler peeks at one of its own (ECONNRESET too).  A watchdog thread
 * fails the test if the loop stops.  Afterwards every kept error is still
 * there, handed back once by getsockopt(SO_ERROR).
 */
#include "t_storm.h"

#define MINE 32
#define HIS 8

static int his[HIS];
static atomic_uint his_next;
static volatile sig_atomic_t handler_bad, handler_ret, handler_errno;

static void on_alarm(int sig)
{
	int e = errno;
	char c;
	(void)sig;
	int fd = his[atomic_fetch_add_explicit(&his_next, 1, memory_order_relaxed) % HIS];
	errno = 0;
	ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (r != -1 || errno != ECONNRESET) {
		handler_bad = 1;
		handler_ret = (int)r;
		handler_errno = errno;
	}
	t_watch_handled();
	errno = e;
}

/* A socket whose ECONNRESET libkq read for an EV_EOF record and keeps. */
static int kept_error_socket(int kq)
{
	int c, s;
	struct linger lg = { 1, 0 };
	struct kevent ch, ev;
	struct timespec ts = { 2, 0 };

	t_tcp_pair(&c, &s);
	EV_SET(&ch, c, EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, NULL);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
		T_FAIL("EV_ADD: %s", strerror(errno));
	if (setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) != 0)
		T_FAIL("SO_LINGER: %s", strerror(errno));
	if (close(s) != 0)
		T_FAIL("close: %s", strerror(errno));
	/* EINTR: the storm's handler (SA_RESTART does not restart kevent) */
	int n;
	do
		n = kevent(kq, NULL, 0, &ev, 1, &ts);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		T_FAIL("no EV_EOF record for the reset (%d, %s)", n, strerror(errno));
	T_KEVENT(&ev, c, EVFILT_READ, EV_EOF | EV_ONESHOT, ECONNRESET, 0, NULL);
	return c;
}

static void peek_expect_reset(int fd, const char *who)
{
	char c;
	errno = 0;
	ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (r != -1 || errno != ECONNRESET)
		T_FAIL("%s peek at %d: %zd (errno %d: %s), expected the kept "
		       "ECONNRESET", who, fd, r, errno, strerror(errno));
}

static void take_expect_reset(int fd)
{
	int v = -1;
	socklen_t len = sizeof v;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len) != 0 || v != ECONNRESET)
		T_FAIL("getsockopt(%d, SO_ERROR): %d, expected ECONNRESET", fd, v);
	v = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len) != 0 || v != 0)
		T_FAIL("getsockopt(%d, SO_ERROR) again: %d, expected 0", fd, v);
}

int main(void)
{
	t_watch_start("signal-storm-kept-error: recv() in a handler "
		      "interrupting calls that look up kept socket errors",
		      2000, 25000);
	int kq = t_kqueue();
	int mine[MINE];
	for (int i = 0; i < HIS; i++)
		his[i] = kept_error_socket(kq);
	for (int i = 0; i < MINE; i++)
		mine[i] = kept_error_socket(kq);
	t_on_signal(SIGALRM, on_alarm, SA_RESTART);

	struct t_storm storm;
	t_storm_start(&storm, SIGALRM, 50000);
	unsigned long rounds = 0, renewed = 0;
	while (!t_storm_over(&storm, 1500)) {
		t_watch_stage("recv(MSG_PEEK) on sockets with kept errors");
		for (int i = 0; i < MINE; i++)
			peek_expect_reset(mine[i], "main loop");
		if (rounds % 8 == 0) {
			int i = (int)(renewed++ % MINE);
			t_watch_stage("getsockopt(SO_ERROR) taking a kept error");
			take_expect_reset(mine[i]);
			if (close(mine[i]) != 0)
				T_FAIL("close: %s", strerror(errno));
			t_watch_stage("kevent() keeping a socket error");
			mine[i] = kept_error_socket(kq);
		}
		rounds++;
		t_watch_tick();
	}
	t_storm_stop_quiet(&storm);
	t_watch_done();
	if (handler_bad)
		T_FAIL("the handler's peek gave %d (errno %d: %s), expected the "
		       "kept ECONNRESET", (int)handler_ret, (int)handler_errno,
		       strerror(handler_errno));
	for (int i = 0; i < HIS; i++)
		take_expect_reset(his[i]);
	for (int i = 0; i < MINE; i++)
		take_expect_reset(mine[i]);
	t_storm_enough(100);
	fprintf(stderr, "%lu rounds, %lu sockets renewed, %lu handler runs\n",
		rounds, renewed, t_watch_handled_count());
	return 0;
}
