/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fork: the parent keeps working after many forks.
 * 60 forks, alternately from the main thread and from a short-lived
 * thread, while (a) a waiter thread sleeps in kevent() on kq2 and (b) a busy
 * thread collects a level READ knote on kq3 in a loop (so forks happen while
 * other threads are inside kevent() and hold library state).  Each child
 * checks that kevent() on all three numbers fails with EBADF and exits at
 * once; a child that does not exit within 2 s (a lock left held in the
 * child) fails the test.  Every 10 forks the parent checks its kqueue
 * (READ level record, USER trigger) and that its descriptor count has not
 * grown.  At the end the waiter is woken by a USER trigger on kq2, and the
 * busy thread has never seen a wrong result.  No fork() may take more than
 * 1 s (the library's fork handlers must not stall behind the busy thread).
 */
#include "t.h"

#include <stdatomic.h>
#include <sys/wait.h>

#define FORKS 60

static int kq, kq2, kq3;
static atomic_int stop, busy_bad, waiter_done;
static atomic_long busy_calls;
static int waiter_n;
static struct kevent waiter_ev;

/* A SIGCHLD may interrupt the wait (kevent() -> EINTR) when it arrives
 * while the main thread blocks signals inside pthread_create(); retry. */
static void *waiter(void *arg)
{
	struct timespec to = { 60, 0 };
	(void)arg;
	do
		waiter_n = kevent(kq2, NULL, 0, &waiter_ev, 1, &to);
	while (waiter_n < 0 && errno == EINTR);
	atomic_store(&waiter_done, 1);
	return NULL;
}

static void *busy(void *arg)
{
	struct kevent ev[4];
	(void)arg;
	while (!atomic_load(&stop)) {
		if (t_get(kq3, ev, 4) != 1)
			atomic_store(&busy_bad, 1);
		atomic_fetch_add(&busy_calls, 1);
	}
	return NULL;
}

static int child(void)
{
	struct kevent ev;
	struct timespec z = { 0, 0 };
	int k[3] = { kq, kq2, kq3 };
	for (int i = 0; i < 3; i++)
		if (kevent(k[i], NULL, 0, &ev, 1, &z) != -1 || errno != EBADF)
			return 1;
	return 0;
}

static pid_t fork_one(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(child());
	return pid;
}

static void *fork_thread(void *arg)
{
	*(pid_t *)arg = fork_one();
	return NULL;
}

static void reap(pid_t pid, int i)
{
	int st;
	int64_t end = t_now_ns() + 2000000000LL;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0)
			T_FAIL("waitpid: %s", strerror(errno));
		if (t_now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			T_FAIL("fork %d: child hung (library lock held in the "
			       "child?)", i);
		}
		t_sleep_ms(1);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("fork %d: child saw a parent's kqueue (status 0x%x)", i,
		       st);
}

int main(void)
{
	int p[2], q[2];
	void *u = (void *)0x1201;
	struct kevent ev[8];
	pthread_t tw, tb;
	int64_t slowest = 0;

	t_fail_after(20, "fork-many: still running after 20 s");
	kq = t_kqueue();
	kq2 = t_kqueue();
	kq3 = t_kqueue();
	t_pipe(p);
	t_pipe(q);
	t_write(p[1], "x", 1);
	t_write(q[1], "y", 1);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, u);
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, u);
	t_change(kq, 2, EVFILT_TIMER, EV_ADD, NOTE_SECONDS, 60, u);
	t_change(kq2, 9, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, u);
	t_change(kq3, q[0], EVFILT_READ, EV_ADD, 0, 0, u);
	int fds0 = t_count_fds();

	T_ASSERT(pthread_create(&tw, NULL, waiter, NULL) == 0);
	T_ASSERT(pthread_create(&tb, NULL, busy, NULL) == 0);
	t_sleep_ms(20);

	for (int i = 0; i < FORKS; i++) {
		pid_t pid;
		int64_t t0 = t_now_ns();
		if (i % 2) {
			pthread_t tf;
			T_ASSERT(pthread_create(&tf, NULL, fork_thread, &pid)
				 == 0);
			T_ASSERT(pthread_join(tf, NULL) == 0);
		} else {
			pid = fork_one();
		}
		T_ASSERT(pid > 0);
		int64_t took = t_now_ns() - t0;
		if (took > slowest)
			slowest = took;
		if (took > 1000000000LL)
			T_FAIL("fork %d took %.0f ms (another thread is busy in "
			       "kevent(); a plain fork takes well under 10 ms)",
			       i, (double)took / 1e6);
		reap(pid, i);
		if (i % 10 == 9) {
			t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, u);
			int n = t_get(kq, ev, 8);
			T_EQ(n, 2);
			for (int j = 0; j < n; j++) {
				if (ev[j].filter == EVFILT_READ)
					T_KEVENT(&ev[j], p[0], EVFILT_READ, 0,
						 0, 1, u);
				else
					T_KEVENT(&ev[j], 1, EVFILT_USER,
						 EV_CLEAR, 0, 0, u);
			}
			T_EQ(t_count_fds(), fds0);
		}
		if (atomic_load(&waiter_done))
			T_FAIL("the waiter on kq2 returned during the forks "
			       "(%d)", waiter_n);
	}

	t_change(kq2, 9, EVFILT_USER, 0, NOTE_TRIGGER, 0, u);
	T_ASSERT(pthread_join(tw, NULL) == 0);
	T_EQ(waiter_n, 1);
	T_KEVENT(&waiter_ev, 9, EVFILT_USER, EV_CLEAR, 0, 0, u);
	atomic_store(&stop, 1);
	T_ASSERT(pthread_join(tb, NULL) == 0);
	if (atomic_load(&busy_bad))
		T_FAIL("the busy thread's level knote was missed");
	fprintf(stderr, "%d forks (slowest fork() %.1f ms), busy thread made "
		"%ld calls\n", FORKS, (double)slowest / 1e6,
		atomic_load(&busy_calls));
	alarm(0);
	return 0;
}
