/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A disposition set behind libkq's back (a library whose sigaction() call
 * binds to the C library's, as libevent's does right after its own EV_ADD,
 * or the raw system call) replaces libkq's handler.  The next kevent() that
 * sleeps on a kqueue watching the signal notices it, takes it as the
 * program's disposition and puts libkq's handler back, so from then on
 * every send is counted again and the program's choice still applies (an
 * ignored signal does not kill, a handler runs).  Sends made between the
 * replacement and that kevent() reached only the foreign disposition: they
 * are lost, which is checked too, so that the documented limit stays true.
 */
#include "t.h"

#include <stdbool.h>
#include <sys/syscall.h>

extern int __sigaction(int, const struct sigaction *, struct sigaction *);

static volatile sig_atomic_t hits;

static void on_usr2(int sig)
{
	(void)sig;
	hits++;
}

/* SIG_IGN straight to the kernel, past every C library wrapper. */
static void raw_ignore(int sig)
{
#if defined(__x86_64__)
	/* the kernel's layout: handler, flags, restorer, mask */
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} ksa = { SIG_IGN, 0, NULL, 0 };
	T_EQ(syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof ksa.mask), 0);
#else
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	T_EQ(__sigaction(sig, &sa, NULL), 0);
#endif
}

/* Makes kevent() go to sleep (and so check the handlers) once. */
static void sleep_once(int kq)
{
	struct kevent ev[4];
	T_EQ(t_wait(kq, ev, 4, 20), 0);
}

struct sender {
	pid_t tid;   /* the thread in kevent() */
	int sig;
};

/* Waits until the thread is inside epoll_wait (it has passed libkq's check
 * by then), as /proc shows its current system call; without that file,
 * a generous delay. */
static void *send_while_waiting(void *arg)
{
	struct sender *s = arg;
	char path[64], buf[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)s->tid);
	int64_t end = t_now_ns() + 2000000000LL;
	bool seen = false;
	while (!seen && t_now_ns() < end) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			break;
		buf[n] = 0;
		long nr = atol(buf);
		seen = nr == SYS_epoll_wait || nr == SYS_epoll_pwait
#ifdef SYS_epoll_pwait2
		       || nr == SYS_epoll_pwait2
#endif
		       ;
		if (!seen)
			t_sleep_ms(1);
	}
	if (!seen)
		t_sleep_ms(200);
	kill(getpid(), s->sig);
	return NULL;
}

int main(void)
{
	t_fail_after(10, "signal-handler-replaced hung");
	int kq = t_kqueue();
	struct sigaction cur;

	/* Ignored behind libkq's back after EV_ADD: counted again after the
	 * next sleep, and the process lives (the program said SIG_IGN). */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)1);
	raw_ignore(SIGUSR1);
	sleep_once(kq);
	for (int i = 0; i < 3; i++)
		T_EQ(raise(SIGUSR1), 0);
	T_GET1(kq, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 3, (void *)1);
	T_ASSERT(sigaction(SIGUSR1, NULL, &cur) == 0);
	T_ASSERT(cur.sa_handler == SIG_IGN);

	/* A handler through glibc's own entry: the send before the next
	 * sleep reaches only that handler; the later ones are counted and
	 * still reach it. */
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_ADD, 0, 0, (void *)2);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr2;
	sigemptyset(&sa.sa_mask);
	T_EQ(__sigaction(SIGUSR2, &sa, NULL), 0);
	T_EQ(raise(SIGUSR2), 0);
	T_EQ(hits, 1);
	sleep_once(kq);
	T_EQ(raise(SIGUSR2), 0);
	T_EQ(raise(SIGUSR2), 0);
	T_EQ(hits, 3);
	T_GET1(kq, SIGUSR2, EVFILT_SIGNAL, EV_CLEAR, 0, 2, (void *)2);
	T_ASSERT(sigaction(SIGUSR2, NULL, &cur) == 0);
	T_ASSERT(cur.sa_handler == on_usr2);

	/* Replaced again, then sent from another thread while kevent()
	 * sleeps: the check before the sleep already put libkq's handler
	 * back, so the waiting call gets the record. */
	raw_ignore(SIGUSR1);
	sigset_t all, old;
	sigfillset(&all);
	T_EQ(pthread_sigmask(SIG_BLOCK, &all, &old), 0);
	struct sender s = { (pid_t)syscall(SYS_gettid), SIGUSR1 };
	pthread_t th;
	T_EQ(pthread_create(&th, NULL, send_while_waiting, &s), 0);
	T_EQ(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	T_WAIT1(kq, 3000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, 1, (void *)1);
	T_EQ(pthread_join(th, NULL), 0);
	T_NO_EVENTS(kq);

	/* The last EV_DELETE puts back what the program chose last. */
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	t_change(kq, SIGUSR2, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	T_EQ(__sigaction(SIGUSR1, NULL, &cur), 0);
	T_ASSERT(cur.sa_handler == SIG_IGN);
	T_EQ(__sigaction(SIGUSR2, NULL, &cur), 0);
	T_ASSERT(cur.sa_handler == on_usr2);
	alarm(0);
	return 0;
}
