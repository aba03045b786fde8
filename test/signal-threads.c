/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * In a multi-threaded program (4 extra threads
 * running - 2 spinning, 2 sleeping in poll() - none blocking SIGUSR1) every
 * process-directed SIGUSR1 is counted exactly once, whichever thread the
 * kernel delivers it to, and the program's handler runs once per signal.
 * Phase A: kill(getpid()) x50 from the main thread (not blocking it).
 * Phase B: the main thread blocks SIGUSR1, so each of 50 kill(getpid())
 * is delivered to one of the extra threads (never the main thread).
 * Phase C: another process sends 20 SIGUSR1, one at a time (it waits for
 * the record to be seen before sending the next, so no two are pending at
 * once and none coalesce).  Each send must give one record with data 1.
 */
#include "t.h"

#include <poll.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static atomic_int hits;
static atomic_int main_hits;
static pid_t main_tid;
static atomic_int stop;
static int quit[2];

static void on_usr1(int sig)
{
	(void)sig;
	if ((pid_t)syscall(SYS_gettid) == main_tid)
		atomic_fetch_add(&main_hits, 1);
	atomic_fetch_add(&hits, 1);
}

static void unblock_usr1(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

static void *spinner(void *arg)
{
	(void)arg;
	unblock_usr1();
	volatile unsigned long n = 0;
	while (!atomic_load(&stop))
		n++;
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	unblock_usr1();
	struct pollfd pfd = { .fd = quit[0], .events = POLLIN };
	while (!atomic_load(&stop))
		poll(&pfd, 1, 1000);   /* EINTR on each signal: loop */
	return NULL;
}

/* One record of data 1 within 2 s, then nothing; handler count reaches n. */
static void expect_one(int kq, int *ud, int n, const char *phase, int i)
{
	struct kevent ev[4];
	int r = t_wait(kq, ev, 4, 2000);
	if (r != 1)
		T_FAIL("%s, signal %d: %d records", phase, i, r);
	if (ev[0].data != 1)
		T_FAIL("%s, signal %d: data %" PRId64 ", expected 1", phase,
		       i, ev[0].data);
	T_KEVENT(&ev[0], SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, ud);
	int64_t deadline = t_now_ns() + 1000000000LL;
	while (atomic_load(&hits) < n && t_now_ns() < deadline)
		t_sleep_ms(1);
	if (atomic_load(&hits) != n)
		T_FAIL("%s, signal %d: handler ran %d times in all, expected "
		       "%d", phase, i, atomic_load(&hits), n);
	r = t_get(kq, ev, 4);
	if (r != 0) {
		t_print_kevent("  extra", &ev[0]);
		T_FAIL("%s, signal %d: a second record for one signal",
		       phase, i);
	}
}

int main(void)
{
	t_fail_after(3, "signal-threads hung");
	main_tid = (pid_t)syscall(SYS_gettid);
	t_on_signal(SIGUSR1, on_usr1, SA_RESTART);
	t_pipe(quit);
	int kq = t_kqueue();
	int ud;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);

	pthread_t th[4];
	T_EQ(pthread_create(&th[0], NULL, spinner, NULL), 0);
	T_EQ(pthread_create(&th[1], NULL, spinner, NULL), 0);
	T_EQ(pthread_create(&th[2], NULL, sleeper, NULL), 0);
	T_EQ(pthread_create(&th[3], NULL, sleeper, NULL), 0);

	int n = 0;
	for (int i = 0; i < 50; i++) {
		T_EQ(kill(getpid(), SIGUSR1), 0);
		expect_one(kq, &ud, ++n, "phase A", i);
	}

	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	T_EQ(pthread_sigmask(SIG_BLOCK, &s, NULL), 0);
	int main_before = atomic_load(&main_hits);
	for (int i = 0; i < 50; i++) {
		T_EQ(kill(getpid(), SIGUSR1), 0);
		expect_one(kq, &ud, ++n, "phase B", i);
	}
	T_EQ(atomic_load(&main_hits), main_before);
	T_EQ(pthread_sigmask(SIG_UNBLOCK, &s, NULL), 0);

	int tick[2];
	t_pipe(tick);
	pid_t me = getpid();
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char c;
		close(tick[1]);   /* EOF if the test dies */
		for (int i = 0; i < 20; i++) {
			if (kill(me, SIGUSR1) != 0)
				_exit(1);
			if (read(tick[0], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (int i = 0; i < 20; i++) {
		expect_one(kq, &ud, ++n, "phase C", i);
		t_write(tick[1], "t", 1);
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	T_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	atomic_store(&stop, 1);
	t_write(quit[1], "q", 1);
	for (int i = 0; i < 4; i++)
		T_EQ(pthread_join(th[i], NULL), 0);
	T_EQ(atomic_load(&hits), 120);
	T_NO_EVENTS(kq);
	T_EQ(close(kq), 0);
	alarm(0);
	return 0;
}
