/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fork and EVFILT_SIGNAL: a parent with EVFILT_SIGNAL knotes
 * forks; the child has no kqueue, so its signal dispositions must be the
 * program's own again, not libkq's.  Parent set-up: SIGUSR1 has a program
 * handler (SA_RESTART, SIGUSR2 in sa_mask) installed before its knote;
 * SIGHUP gets a program handler after its knote; SIGUSR2 is SIG_IGN by the
 * program; SIGTERM is SIG_DFL; all four have knotes.  In the child,
 * sigaction() and the kernel's own view (raw rt_sigaction, where the layout
 * is known) show exactly the program's handlers, flags and masks, and the
 * signal mask is the program's.  The parent sends SIGUSR1 and SIGHUP to the
 * child: the program's handlers run there once each, and the parent's knotes
 * see nothing of it.  SIGUSR2 sent to the child is ignored; SIGTERM then
 * kills it (default action).  The parent's knotes still count its own
 * signals afterwards.
 */
#include "t.h"

#include <sys/syscall.h>
#include <sys/wait.h>

static volatile sig_atomic_t usr1_hits, hup_hits;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_hits++;
}

static void on_hup(int sig)
{
	(void)sig;
	hup_hits++;
}

struct want {
	int sig;
	void (*handler)(int);
	int flags;          /* SA_* the program asked for */
	int masked;         /* a signal expected in sa_mask, or 0 */
};

static const struct want wants[] = {
	{ SIGUSR1, on_usr1, SA_RESTART, SIGUSR2 },
	{ SIGHUP, on_hup, 0, 0 },
	{ SIGUSR2, SIG_IGN, 0, 0 },
	{ SIGTERM, SIG_DFL, 0, 0 },
};
#define NWANT (int)(sizeof wants / sizeof wants[0])

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_RAW 1
struct raw_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};
#else
#define HAVE_RAW 0
#endif

#define CFAIL(...) do {                                                    \
	fprintf(stderr, "child: ");                                        \
	fprintf(stderr, __VA_ARGS__);                                      \
	fprintf(stderr, "\n");                                             \
	_exit(1);                                                          \
} while (0)

static const int flag_bits = SA_RESTART | SA_SIGINFO | SA_NODEFER |
	SA_RESETHAND | SA_ONSTACK | SA_NOCLDSTOP | SA_NOCLDWAIT;

static void child_dispositions(const sigset_t *program_mask)
{
	for (int i = 0; i < NWANT; i++) {
		const struct want *w = &wants[i];
		struct sigaction sa;
		if (sigaction(w->sig, NULL, &sa) != 0)
			CFAIL("sigaction(%d): %s", w->sig, strerror(errno));
		if (sa.sa_handler != w->handler)
			CFAIL("sigaction(%d) shows handler %p, program set %p",
			      w->sig, (void *)sa.sa_handler,
			      (void *)w->handler);
		if ((sa.sa_flags & flag_bits) != w->flags)
			CFAIL("sigaction(%d) shows flags 0x%x, program set "
			      "0x%x", w->sig, sa.sa_flags & flag_bits,
			      w->flags);
		if (w->masked && !sigismember(&sa.sa_mask, w->masked))
			CFAIL("sigaction(%d): sa_mask lost signal %d", w->sig,
			      w->masked);
#if HAVE_RAW
		struct raw_sigaction raw;
		memset(&raw, 0, sizeof raw);
		if (syscall(SYS_rt_sigaction, w->sig, NULL, &raw, 8) != 0)
			CFAIL("rt_sigaction(%d): %s", w->sig, strerror(errno));
		if (raw.handler != (void *)w->handler)
			CFAIL("kernel disposition of %d is %p, program set %p "
			      "(libkq's handler left in the child?)", w->sig,
			      raw.handler, (void *)w->handler);
		if (((int)raw.flags & flag_bits) != w->flags)
			CFAIL("kernel flags of %d are 0x%x, program set 0x%x",
			      w->sig, (int)raw.flags & flag_bits, w->flags);
		if (w->masked && !(raw.mask & (1UL << (w->masked - 1))))
			CFAIL("kernel sa_mask of %d lost signal %d", w->sig,
			      w->masked);
#endif
	}
	sigset_t now;
	if (sigprocmask(SIG_BLOCK, NULL, &now) != 0)
		CFAIL("sigprocmask: %s", strerror(errno));
	for (int s = 1; s < 32; s++)
		if (sigismember(&now, s) != sigismember(program_mask, s))
			CFAIL("signal %d is %sblocked in the child, not in the "
			      "program's mask", s,
			      sigismember(&now, s) ? "" : "not ");
}

/* Child: checks, reports "ready", takes the parent's signals, dies. */
static void child(int rep, int go)
{
	sigset_t program_mask;
	char c;

	alarm(4);
	sigemptyset(&program_mask);
	child_dispositions(&program_mask);
	if (write(rep, "r", 1) != 1)
		CFAIL("write");
	/* The parent sends SIGUSR1, SIGHUP and SIGUSR2, then writes. */
	while (read(go, &c, 1) != 1)
		if (errno != EINTR)
			CFAIL("read: %s", strerror(errno));
	int64_t end = t_now_ns() + 2000000000LL;
	while (usr1_hits < 1 || hup_hits < 1) {
		if (t_now_ns() > end)
			CFAIL("handlers ran %d (SIGUSR1) and %d (SIGHUP) times",
			      (int)usr1_hits, (int)hup_hits);
		t_sleep_ms(1);
	}
	if (usr1_hits != 1 || hup_hits != 1)
		CFAIL("handlers ran %d and %d times, want 1 each",
		      (int)usr1_hits, (int)hup_hits);
	if (write(rep, "h", 1) != 1)
		CFAIL("write");
	kill(getpid(), SIGTERM);
	t_sleep_ms(2000);
	CFAIL("SIGTERM did not kill the child");
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer's sigaction() interceptor installs its own wrapper
	 * in the kernel for every handler, so the kernel-level disposition
	 * this test reads is never the program's under TSan, with or without
	 * libkq. */
	T_SKIP("the kernel disposition is ThreadSanitizer's wrapper here");
#endif
	int kq = t_kqueue(), rep[2], go[2];
	struct kevent ev[8];
	struct sigaction sa;
	char c;

	t_fail_after(6, "fork-child-signal: still running after 6 s");
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	T_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
	t_on_signal(SIGUSR2, SIG_IGN, 0);
	t_on_signal(SIGTERM, SIG_DFL, 0);
	for (int i = 0; i < NWANT; i++)
		t_change(kq, wants[i].sig, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	t_on_signal(SIGHUP, on_hup, 0);

	t_pipe(rep);
	t_pipe(go);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		child(rep[1], go[0]);

	T_EQ(read(rep[0], &c, 1), 1);
	if (c != 'r')
		T_FAIL("child protocol");
	T_EQ(kill(pid, SIGUSR1), 0);
	T_EQ(kill(pid, SIGHUP), 0);
	T_EQ(kill(pid, SIGUSR2), 0);
	t_write(go[1], "g", 1);
	ssize_t n = read(rep[0], &c, 1);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM)
		T_FAIL("child did not die of SIGTERM (status 0x%x; its "
		       "messages are above)", st);
	if (n != 1 || c != 'h')
		T_FAIL("child died before its handlers ran");

	/* Nothing of the child's signals reached the parent's knotes. */
	T_NO_EVENTS(kq);
	T_EQ(usr1_hits, 0);
	T_EQ(hup_hits, 0);

	/* The parent's own knotes and handlers work. */
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(kill(getpid(), SIGHUP), 0);
	T_EQ(kill(getpid(), SIGUSR2), 0);
	int seen = 0;
	int64_t end = t_now_ns() + 2000000000LL;
	while (seen != 7 && t_now_ns() < end) {
		int k = t_wait(kq, ev, 8, 100);
		for (int i = 0; i < k; i++) {
			int bit = ev[i].ident == SIGUSR1 ? 1 :
				  ev[i].ident == SIGHUP ? 2 :
				  ev[i].ident == SIGUSR2 ? 4 : 0;
			if (!bit || (seen & bit))
				T_FAIL("unexpected record for signal %d",
				       (int)ev[i].ident);
			T_KEVENT(&ev[i], ev[i].ident, EVFILT_SIGNAL, EV_CLEAR,
				 0, 1, NULL);
			seen |= bit;
		}
	}
	if (seen != 7)
		T_FAIL("parent's knotes saw signals 0x%x of 0x7 after the "
		       "fork", seen);
	T_EQ(usr1_hits, 1);
	T_EQ(hup_hits, 1);
	alarm(0);
	return 0;
}
