/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal handler calls kevent() on a kqueue while its own thread was
 * interrupted inside a kevent() on that same kqueue.  The interrupted call
 * holds the kqueue and may be half-way through a change, so the handler's
 * call cannot wait for it: it fails at once with EDEADLK instead of hanging
 * (a documented limit; FreeBSD's kevent() is one system call).  A handler's
 * kevent() on another kqueue works, and so does the interrupted call.
 */
#include "t_storm.h"

static int kq, other, pfd[2];
static volatile sig_atomic_t same_deadlk, same_ok, other_ok, other_bad;

static void on_alarm(int sig)
{
	(void)sig;
	int e = errno;
	struct kevent ev;
	struct timespec zero = { 0, 0 };
	int r = kevent(kq, NULL, 0, &ev, 1, &zero);
	if (r < 0 && errno == EDEADLK)
		same_deadlk++;
	else if (r >= 0)
		same_ok++;
	r = kevent(other, NULL, 0, &ev, 1, &zero);
	if (r == 1 && ev.ident == (uintptr_t)pfd[0])
		other_ok++;
	else
		other_bad++;
	t_watch_handled();
	errno = e;
}

int main(void)
{
	t_watch_start("kevent-handler-reentry: kevent() in a handler "
		      "interrupting kevent() on the same kqueue", 2000, 1000);
	kq = t_kqueue();
	other = t_kqueue();
	T_ASSERT(pipe(pfd) == 0);
	T_EQ(write(pfd[1], "x", 1), 1);
	t_change(other, pfd[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	int q[2];
	T_ASSERT(pipe(q) == 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	struct t_storm st;
	t_storm_start(&st, SIGALRM, 50000);
	struct kevent ch[2], ev[2];
	struct timespec zero = { 0, 0 };
	t_watch_stage("kevent");
	while (!t_storm_over(&st, 800) && same_deadlk < 50) {
		EV_SET(&ch[0], q[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
		EV_SET(&ch[1], q[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		T_ASSERT(kevent(kq, ch, 2, ev, 2, &zero) == 0);
		t_watch_tick();
	}
	t_storm_stop(&st);
	t_watch_done();
	if (other_bad)
		T_FAIL("%d handler calls on the other kqueue went wrong", (int)other_bad);
	if (same_deadlk == 0)
		T_SKIP("no signal landed inside kevent() (%d outside)", (int)same_ok);
	return 0;
}
