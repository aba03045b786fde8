/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the EVFILT_SIGNAL tests (test/signal-*.c) that run
 * scenarios in child processes: a scenario may change dispositions for
 * good, or be killed by its signal, which only a child can afford.
 */
#ifndef KQ_TEST_T_SIGNAL_H
#define KQ_TEST_T_SIGNAL_H

#include "t.h"

#include <sys/wait.h>

/* Blocks sig in this thread; *s becomes the set holding sig alone. */
static inline void ts_block(sigset_t *s, int sig)
{
	sigemptyset(s);
	sigaddset(s, sig);
	T_EQ(sigprocmask(SIG_BLOCK, s, NULL), 0);
}

/* The sum of the data of the records kq gives within ms, each of which
 * must be {sig, EVFILT_SIGNAL, EV_CLEAR, 0, data, ud}. */
static inline int64_t ts_collect(int kq, int sig, long ms, void *ud)
{
	struct kevent ev[4];
	int64_t sum = 0;
	int n = t_wait(kq, ev, 4, ms);

	for (int i = 0; i < n; i++) {
		T_EQ(ev[i].ident, sig);
		T_EQ(ev[i].filter, EVFILT_SIGNAL);
		T_EQ(ev[i].flags, EV_CLEAR);
		T_EQ(ev[i].fflags, 0);
		T_ASSERT(ev[i].udata == ud);
		sum += ev[i].data;
	}
	return sum;
}

/* Takes (without waiting) one pending instance of sig, in *s, and checks
 * it was sent by kill() from this process. */
static inline void ts_take_kill(const sigset_t *s, int sig)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	T_EQ(sigtimedwait(s, &si, &(struct timespec){ 0, 0 }), sig);
	T_EQ(si.si_signo, sig);
	T_EQ(si.si_code, SI_USER);
	T_EQ(si.si_pid, getpid());
	T_EQ(si.si_uid, getuid());
}

/* Fails the test (name saying which scenario) unless the wait status st
 * is that of a child that exited 0. */
static inline void ts_expect_ok(const char *name, int st)
{
	if (WIFSIGNALED(st))
		T_FAIL("%s: killed by signal %d (%s)", name, WTERMSIG(st),
		       strsignal(WTERMSIG(st)));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("%s: failed (status 0x%x)", name, st);
}

/* Fails the test unless the wait status st is that of a child killed by
 * signal sig. */
static inline void ts_expect_killed(const char *name, int st, int sig)
{
	if (WIFSIGNALED(st) && WTERMSIG(st) == sig)
		return;
	if (WIFSIGNALED(st))
		T_FAIL("%s: killed by signal %d (%s), expected %s", name,
		       WTERMSIG(st), strsignal(WTERMSIG(st)), strsignal(sig));
	T_FAIL("%s: exited (status 0x%x), expected death by %s", name, st,
	       strsignal(sig));
}

/* Reaps the child pid, which must have exited 0 (ts_expect_ok()). */
static inline void ts_reap_ok(const char *name, pid_t pid)
{
	int st;

	T_EQ(waitpid(pid, &st, 0), pid);
	ts_expect_ok(name, st);
}

/* Makes the pipe p and forks: the child keeps the write end p[1] to
 * report on, the parent the read end p[0]. */
static inline pid_t ts_fork_pipe(int p[2])
{
	t_pipe(p);
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	close(p[pid == 0 ? 0 : 1]);
	return pid;
}

/* Makes the pipes ready (the child says it is ready) and go (the parent
 * lets it go on) and forks; each side keeps the ends it uses. */
static inline pid_t ts_fork_ready_go(int ready[2], int go[2])
{
	t_pipe(ready);
	t_pipe(go);
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	close(pid == 0 ? ready[0] : ready[1]);
	close(pid == 0 ? go[1] : go[0]);
	return pid;
}

/* Runs fn() in a child that fails with "FAIL: hung" unless done within
 * 2 s and exits 0 after fn() returns; gives the child's wait status. */
static inline int ts_run_child(void (*fn)(void), const char *hung)
{
	int st;
	pid_t pid = fork();

	T_ASSERT(pid >= 0);
	if (pid == 0) {
		t_fail_after(2, hung);
		fn();
		exit(0);
	}
	T_EQ(waitpid(pid, &st, 0), pid);
	return st;
}

/* Waits (at most 1 s) until sig is no longer pending for process pid, so
 * that the next send is a separate delivery: Linux would merge a send into
 * a still-pending instance (see signal-blocked-coalesce), which spacing
 * alone cannot rule out on a loaded machine. */
static inline void ts_wait_not_pending(pid_t pid, int sig)
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

#endif /* KQ_TEST_T_SIGNAL_H */
