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
#include "t.h"

#include <sys/wait.h>

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
	int ready[2], go[2];
	t_pipe(ready);
	t_pipe(go);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		example(ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	t_fail_after(3, "signal-sighup-example: program did not finish");
	char c;
	T_EQ(read(ready[0], &c, 1), 1);
	for (int i = 0; i < 3; i++) {
		t_sleep_ms(10);
		wait_not_pending(pid, SIGHUP);
		T_EQ(kill(pid, SIGHUP), 0);
	}
	close(go[1]);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		T_FAIL("program killed by signal %d (%s)", WTERMSIG(st),
		       strsignal(WTERMSIG(st)));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("program failed (status 0x%x)", st);
	alarm(0);
	return 0;
}
