/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kqueue paper's Figure 7 example: register EVFILT_SIGNAL for
 * SIGHUP with EV_ADD|EV_ENABLE, then signal(SIGHUP, SIG_IGN).  Three
 * SIGHUPs sent between two kevent() calls give one event {SIGHUP, SIGNAL,
 * EV_CLEAR, 0, 3} and the process is not killed.  The SIGHUPs are not
 * blocked: each is delivered (and ignored) and counted.  Second part, the
 * paper's loop: the process waits in kevent(kq, NULL, 0, &ev, 1, NULL)
 * while another process sends it three SIGHUPs (each once the previous one
 * is no longer pending, so Linux cannot merge two); the events' data sum to
 * 3 and no kevent() call fails.  Runs in a child process: SIGHUP kills by
 * default.
 */
#include "t_signal.h"


static void example(int ready, int go)
{
	t_fail_after(2, "signal-sighup-example: program hung");
	int kq = kqueue();
	struct kevent ev;
	struct timespec z = { 0, 0 };

	T_ASSERT(kq >= 0);
	EV_SET(&ev, SIGHUP, EVFILT_SIGNAL, EV_ADD | EV_ENABLE, 0, 0, NULL);
	T_EQ(kevent(kq, &ev, 1, NULL, 0, NULL), 0);
	T_ASSERT(signal(SIGHUP, SIG_IGN) != SIG_ERR);

	T_EQ(kevent(kq, NULL, 0, &ev, 1, &z), 0);
	for (int i = 0; i < 3; i++)
		T_EQ(kill(getpid(), SIGHUP), 0);
	T_EQ(kevent(kq, NULL, 0, &ev, 1, NULL), 1);
	T_KEVENT(&ev, SIGHUP, EVFILT_SIGNAL, EV_CLEAR, 0, 3, NULL);
	T_EQ(kevent(kq, NULL, 0, &ev, 1, &z), 0);

	/* The paper's loop, signals from another process. */
	t_write(ready, "r", 1);
	int64_t sum = 0;
	while (sum < 3) {
		int n = kevent(kq, NULL, 0, &ev, 1, NULL);
		if (n != 1)
			T_FAIL("kevent() returned %d (errno %d: %s) after %"
			       PRId64 " counted", n, errno, strerror(errno),
			       sum);
		if (ev.ident != SIGHUP || ev.filter != EVFILT_SIGNAL ||
		    ev.data < 1)
			T_FAIL("bad event ident %" PRIuPTR " data %" PRId64,
			       ev.ident, ev.data);
		sum += ev.data;
	}
	T_EQ(sum, 3);
	char c;
	T_EQ(read(go, &c, 1), 0);   /* the sender is done (EOF) */
	T_EQ(kevent(kq, NULL, 0, &ev, 1, &z), 0);
	exit(0);
}

int main(void)
{
	int ready[2], go[2];
	pid_t pid = ts_fork_ready_go(ready, go);
	if (pid == 0)
		example(ready[1], go[0]);
	t_fail_after(3, "signal-sighup-example: program did not finish");
	char c;
	T_EQ(read(ready[0], &c, 1), 1);
	for (int i = 0; i < 3; i++) {
		t_sleep_ms(10);
		ts_wait_not_pending(pid, SIGHUP);
		T_EQ(kill(pid, SIGHUP), 0);
	}
	close(go[1]);
	ts_reap_ok("program", pid);
	alarm(0);
	return 0;
}
