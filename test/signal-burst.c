/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A burst of 1,000 kill(getpid(), SIGUSR1) with
 * the program's handler installed (signal not blocked).
 *  1. Reference, no knote: the handler count h0 for the burst.
 *  2. What a signalfd-based implementation could count for the same 1,000
 *     sends, measured fairly, i.e. in its best case: SIGUSR1 blocked (a
 *     signalfd needs that) and the signalfd read after every kill(), so
 *     that no send is lost to coalescing of a pending standard signal.
 *     Reading only once after the burst would give 1 and make the
 *     comparison meaningless.  The count is s (<= 1,000).
 *  3. The same burst with a signal knote: the handler count h1 must equal
 *     h0 (libkq neither loses nor duplicates deliveries), and the knote's
 *     total k (sum of data over the records collected after the burst) must
 *     be >= s and <= 1,000 (never more than was sent).  FreeBSD: k = 1,000.
 */
#include "t.h"

#include <sys/signalfd.h>

#define BURST 1000

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

static int signalfd_count(void)
{
	sigset_t s, old, pend;
	struct signalfd_siginfo si;
	int count = 0;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	T_EQ(sigprocmask(SIG_BLOCK, &s, &old), 0);
	int sfd = signalfd(-1, &s, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		T_FAIL("signalfd: %s", strerror(errno));
	for (int i = 0; i < BURST; i++) {
		T_EQ(kill(getpid(), SIGUSR1), 0);
		ssize_t r = read(sfd, &si, sizeof si);
		if (r == (ssize_t)sizeof si && si.ssi_signo == SIGUSR1)
			count++;
		else if (r >= 0 || errno != EAGAIN)
			T_FAIL("read(signalfd): %zd, %s", r, strerror(errno));
	}
	T_EQ(close(sfd), 0);
	T_EQ(sigpending(&pend), 0);
	T_EQ(sigismember(&pend, SIGUSR1), 0);
	T_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	return count;
}

int main(void)
{
	t_fail_after(3, "signal-burst hung");
	t_on_signal(SIGUSR1, on_usr1, 0);

	hits = 0;
	for (int i = 0; i < BURST; i++)
		T_EQ(kill(getpid(), SIGUSR1), 0);
	int h0 = hits;

	int s = signalfd_count();
	T_EQ(hits, h0);   /* the handler saw none of those */

	int kq = t_kqueue();
	int ud;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	hits = 0;
	for (int i = 0; i < BURST; i++)
		T_EQ(kill(getpid(), SIGUSR1), 0);
	int h1 = hits;

	int64_t k = 0;
	struct kevent ev[4];
	for (int round = 0; round < 100; round++) {
		int n = t_wait(kq, ev, 4, k == 0 ? 2000 : 0);
		if (n == 0)
			break;
		for (int i = 0; i < n; i++) {
			T_KEVENT_MIN(&ev[i], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR,
				     0, 1, &ud);
			k += ev[i].data;
		}
	}
	fprintf(stderr, "burst of %d: handler without knote %d, signalfd "
		"(read after each send) %d, handler with knote %d, knote "
		"total %" PRId64 "\n", BURST, h0, s, h1, k);
	if (h1 != h0)
		T_FAIL("handler ran %d times with the knote, %d without", h1,
		       h0);
	if (k < s)
		T_FAIL("knote counted %" PRId64 ", a signalfd saw %d", k, s);
	if (k > BURST)
		T_FAIL("knote counted %" PRId64 " of %d sends", k, BURST);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
