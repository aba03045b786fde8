/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SIGUSR1 set to SIG_IGN (before the knote exists) and not blocked.
 * Another process sends 5 SIGUSR1 spaced 20 ms apart (and each only once
 * the previous one is no longer pending) while the watcher waits in
 * kevent(): the records' data sum to 5, every kevent() call
 * returns records (never -1/EINTR: the signal is ignored, so it interrupts
 * nothing), and the watcher is not killed.  FreeBSD counts a signal before
 * testing the ignore set (tdsendsignal), NetBSD t_sig.c / FreeBSD sig_test.
 * Library: its own handler replaces SIG_IGN in the kernel and ignores on
 * the program's behalf.  The watcher runs in a child process so that a
 * failure to keep SIG_IGN cannot kill the test itself.
 */
#include "t_signal.h"


#define SENDS 5

static void watcher(int ready)
{
	t_fail_after(3, "signal-ignored watcher hung");
	if (signal(SIGUSR1, SIG_IGN) == SIG_ERR)
		T_FAIL("signal(SIG_IGN): %s", strerror(errno));
	int kq = t_kqueue();
	int ud;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	t_write(ready, "r", 1);

	int64_t sum = 0;
	while (sum < SENDS) {
		struct kevent ev[4];
		struct timespec ts = { 2, 0 };
		int n = kevent(kq, NULL, 0, ev, 4, &ts);
		if (n < 0)
			T_FAIL("kevent() failed after %" PRId64 " counted: %s",
			       sum, strerror(errno));
		if (n == 0)
			T_FAIL("no record within 2 s; %" PRId64 " of %d "
			       "counted", sum, SENDS);
		for (int i = 0; i < n; i++) {
			if (ev[i].ident != SIGUSR1 ||
			    ev[i].filter != EVFILT_SIGNAL ||
			    ev[i].flags != EV_CLEAR || ev[i].fflags != 0 ||
			    ev[i].data < 1 || ev[i].udata != &ud) {
				t_print_kevent("  bad record", &ev[i]);
				T_FAIL("unexpected record");
			}
			sum += ev[i].data;
		}
	}
	if (sum != SENDS)
		T_FAIL("records sum to %" PRId64 ", expected %d", sum, SENDS);
	t_sleep_ms(50);
	T_NO_EVENTS(kq);
	exit(0);
}

int main(void)
{
	int p[2];
	pid_t pid = ts_fork_pipe(p);
	if (pid == 0)
		watcher(p[1]);
	t_fail_after(4, "signal-ignored: watcher did not finish");
	char c;
	T_EQ(read(p[0], &c, 1), 1);
	for (int i = 0; i < SENDS; i++) {
		t_sleep_ms(20);
		ts_wait_not_pending(pid, SIGUSR1);
		T_EQ(kill(pid, SIGUSR1), 0);
	}
	ts_reap_ok("watcher (killed: SIG_IGN not kept)", pid);
	alarm(0);
	return 0;
}
