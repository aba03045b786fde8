/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a sandbox refuses eventfd2() (EPERM, EACCES) or the kernel has no
 * eventfds (ENOSYS), kqueue() must still work: libkq's wake descriptor and
 * its signal handler's are pipes then.  In a child under a seccomp filter
 * the test installs (one per answer):
 *  - kqueue() succeeds;
 *  - a thread asleep in kevent() is woken by another thread's EVFILT_USER
 *    NOTE_TRIGGER with {1, EVFILT_USER, EV_CLEAR, 0, 0, udata};
 *  - a pipe READ knote reports {p[0], EVFILT_READ, 0, 0, 3, NULL};
 *  - poll() says the kqueue is readable exactly while a knote is queued;
 *  - libkq's own numbers (the wake pipe's two ends, the pipes kqueue()
 *    made) are free numbers to
 *    the program: close() fails with EBADF, dup2() onto them succeeds
 *    (libkq's descriptors move), and all of the above still holds after;
 *  - EVFILT_SIGNAL: a SIGUSR1 that another thread's handler takes wakes a
 *    thread asleep in kevent() with {SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0,
 *    1, udata}, three times; 600 signals handled one by one give one
 *    record with data 600, and sleepers are still woken after them (the
 *    handler's pipe is never allowed to fill);
 *  - closing the kqueue wakes its two sleepers, each with EBADF.
 * The signal part runs again with signalfd4() refused too, where only the
 * handler's pipe can wake the sleeper.  Skipped where seccomp filters
 * cannot be installed.
 */
#include "t_seccomp.h"
#include "t_thread.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>

struct waiter {
	int kq;
	atomic_int tid, done;
	int r, err;
	struct kevent ev;
};

static void *wait_main(void *arg)
{
	struct waiter *w = arg;
	atomic_store(&w->tid, t_gettid());
	w->r = kevent(w->kq, NULL, 0, &w->ev, 1, NULL);
	w->err = errno;
	atomic_store(&w->done, 1);
	return NULL;
}

/* Starts a thread asleep in kevent() on kq. */
static void sleeper(pthread_t *th, struct waiter *w, int kq)
{
	memset(w, 0, sizeof *w);
	w->kq = kq;
	if (!t_start_waiter(th, wait_main, w, &w->tid, &w->done, "the waiter"))
		T_FAIL("the waiter returned before anything woke it: %d", w->r);
	t_sleep_ms(20);
}

static bool readable(int kq)
{
	struct pollfd pfd = { kq, POLLIN, 0 };
	int n = poll(&pfd, 1, 0);
	T_ASSERT(n >= 0);
	return n == 1;
}

/* A trigger from this thread wakes a sleeper; poll() follows the queue. */
static void check_wake(int kq, void *ud)
{
	pthread_t th;
	struct waiter w;
	T_ASSERT(!readable(kq));
	sleeper(&th, &w, kq);
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, ud);
	T_EQ(pthread_join(th, NULL), 0);
	T_EQ(w.r, 1);
	T_KEVENT(&w.ev, 1, EVFILT_USER, EV_CLEAR, 0, 0, ud);
	T_ASSERT(!readable(kq));
	t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, ud);
	T_ASSERT(readable(kq));
	T_GET1(kq, 1, EVFILT_USER, EV_CLEAR, 0, 0, ud);
	T_ASSERT(!readable(kq));
}

/* Which numbers name pipes now (seen[fd]). */
static void pipes_now(bool *seen, int max)
{
	for (int fd = 0; fd < max; fd++) {
		char path[64], link[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t len = readlink(path, link, sizeof link - 1);
		if (len >= 0)
			link[len] = 0;
		seen[fd] = len >= 0 && strncmp(link, "pipe:[", 6) == 0;
	}
}

static atomic_int handled;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

/* Takes SIGUSR1 for the process: every other thread blocks it. */
static void *taker_main(void *arg)
{
	(void)arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	for (;;)
		pause();
	return NULL;
}

/* One SIGUSR1, sent once the taker has handled every earlier one. */
static void send_usr1(void)
{
	int before = atomic_load(&handled);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	int64_t end = t_now_ns() + 2000000000LL;
	while (atomic_load(&handled) == before) {
		if (t_now_ns() > end)
			T_FAIL("SIGUSR1 never handled");
		sched_yield();
	}
}

static void check_signal(int kq)
{
	void *ud = (void *)0x51;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	T_EQ(pthread_sigmask(SIG_BLOCK, &s, NULL), 0);
	t_on_signal(SIGUSR1, on_usr1, 0);
	pthread_t taker;
	T_EQ(pthread_create(&taker, NULL, taker_main, NULL), 0);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3; i++) {
			pthread_t th;
			struct waiter w;
			sleeper(&th, &w, kq);
			send_usr1();
			T_EQ(pthread_join(th, NULL), 0);
			T_EQ(w.r, 1);
			T_KEVENT(&w.ev, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, ud);
			T_NO_EVENTS(kq);
		}
		if (round == 0) {
			for (int i = 0; i < 600; i++)
				send_usr1();
			T_GET1(kq, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 600, ud);
			T_NO_EVENTS(kq);
		}
	}
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
}

static void check_close(void)
{
	int kq = t_kqueue();
	pthread_t th[2];
	struct waiter w[2];
	sleeper(&th[0], &w[0], kq);
	sleeper(&th[1], &w[1], kq);
	T_EQ(close(kq), 0);
	for (int i = 0; i < 2; i++) {
		T_EQ(pthread_join(th[i], NULL), 0);
		T_EQ(w[i].r, -1);
		T_EQ(w[i].err, EBADF);
	}
}

static int child(int err)
{
	if (t_seccomp_refuse(SYS_eventfd2, err) != 0)
		return 77;
	if (eventfd(0, EFD_CLOEXEC) != -1 || errno != err)
		return 77;
	if (access("/proc/self/fd", F_OK) != 0)
		return 77;
	static bool before[4096], after[4096];
	pipes_now(before, 4096);
	int kq = kqueue(), ud, p[2];
	if (kq < 0)
		T_FAIL("kqueue(): %s", strerror(errno));
	pipes_now(after, 4096);
	int mine[4096], n = 0;
	for (int fd = 0; fd < 4096; fd++)
		if (after[fd] && !before[fd])
			mine[n++] = fd;
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq);
	check_wake(kq, &ud);
	t_write(p[1], "abc", 3);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, NULL);
	char buf[4];
	T_EQ(read(p[0], buf, sizeof buf), 3);
	T_NO_EVENTS(kq);

	/* the wake pipe's two ends */
	T_EQ(n, 2);
	for (int i = 0; i < n; i++) {
		T_ERRNO(close(mine[i]), EBADF);
		T_EQ(dup2(p[0], mine[i]), mine[i]);
		T_EQ(close(mine[i]), 0);
	}
	check_wake(kq, &ud);
	t_write(p[1], "abc", 3);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 3, NULL);
	T_EQ(read(p[0], buf, sizeof buf), 3);

	check_signal(kq);
	T_NO_EVENTS(kq);
	close(kq);
	check_close();
	return 0;
}

static int child_nosfd(int err)
{
	if (t_seccomp_refuse2(SYS_eventfd2, SYS_signalfd4, err) != 0)
		return 77;
	sigset_t s;
	sigemptyset(&s);
	if (signalfd(-1, &s, SFD_CLOEXEC) != -1 || errno != err)
		return 77;
	int kq = kqueue();
	if (kq < 0)
		T_FAIL("kqueue(): %s", strerror(errno));
	check_signal(kq);
	close(kq);
	return 0;
}

int main(void)
{
	t_seccomp_run(child, "eventfd2()");
	t_seccomp_run(child_nosfd, "eventfd2() and signalfd4()");
	return 0;
}
