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
#include "t.h"

#include <sys/wait.h>

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

/* Waits (at most 1 s) until sig is no longer pending for process pid, so
 * that the next send is a separate delivery: Linux would merge a send into
 * a still-pending instance (see signal-blocked-coalesce), which spacing
 * alone cannot rule out on a loaded machine. */
static void wait_not_pending(pid_t pid, int sig)
{
	char path[64], line[256];
	int64_t deadline = t_now_ns() + 1000000000LL;
	unsigned long long bit = 1ULL << (sig - 1);

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	for (;;) {
		FILE *f = fopen(path, "r");
		unsigned long long pend = 0, v;
		if (f == NULL)
			T_FAIL("fopen(%s): %s", path, strerror(errno));
		while (fgets(line, sizeof line, f) != NULL)
			if (sscanf(line, "SigPnd: %llx", &v) == 1 ||
			    sscanf(line, "ShdPnd: %llx", &v) == 1)
				pend |= v;
		fclose(f);
		if (!(pend & bit))
			return;
		if (t_now_ns() > deadline)
			T_FAIL("signal %d stays pending in process %d", sig,
			       (int)pid);
		t_sleep_ms(1);
	}
}

int main(void)
{
	int p[2];
	t_pipe(p);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		watcher(p[1]);
	}
	close(p[1]);
	t_fail_after(4, "signal-ignored: watcher did not finish");
	char c;
	T_EQ(read(p[0], &c, 1), 1);
	for (int i = 0; i < SENDS; i++) {
		t_sleep_ms(20);
		wait_not_pending(pid, SIGUSR1);
		T_EQ(kill(pid, SIGUSR1), 0);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		T_FAIL("watcher killed by signal %d (%s): SIG_IGN not kept",
		       WTERMSIG(st), strsignal(WTERMSIG(st)));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("watcher failed (status 0x%x)", st);
	alarm(0);
	return 0;
}
