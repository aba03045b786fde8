/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * While a signal knote exists the program's
 * disposition is the program's (sigaction(sig, NULL, &old) reports what the
 * program set, as on FreeBSD where kqueue never touches it), the signal mask
 * is untouched, and when the last knote goes (EV_DELETE, or close() of the
 * last kqueue holding one) the disposition - sa_handler/sa_sigaction,
 * sa_flags, sa_mask - and the signal mask are exactly what the program last
 * set, and that disposition really acts (handler runs, SIG_IGN survives,
 * SIG_DFL kills).  Scenarios, each in its own child process:
 *  handler, SIG_IGN, SIG_DFL unchanged while the knote exists; handler ->
 *  SIG_IGN, SIG_DFL -> SA_SIGINFO handler (and a mask change), handler ->
 *  SIG_DFL changed while it exists; two kqueues, the last knote closed.
 * sa_flags are compared without SA_RESTORER (glibc adds its own restorer
 * behind the program's back on every sigaction() call).
 */
#include "t_signal.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

static volatile sig_atomic_t h1_hits, h2_hits;

static void h1(int sig)
{
	(void)sig;
	h1_hits++;
}

static void h2(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)si;
	(void)ctx;
	h2_hits++;
}

static void query(struct sigaction *sa)
{
	memset(sa, 0, sizeof *sa);
	sigemptyset(&sa->sa_mask);
	if (sigaction(SIGUSR1, NULL, sa) != 0)
		T_FAIL("sigaction(SIGUSR1, NULL, &old): %s", strerror(errno));
}

static void same_sigset(const char *what, const sigset_t *a,
			const sigset_t *b)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(a, sig) != sigismember(b, sig))
			T_FAIL("%s: signal %d is %s in one set only", what,
			       sig, sigismember(a, sig) == 1 ? "in" : "not");
}

static void same_action(const char *what, const struct sigaction *got,
			const struct sigaction *want)
{
	if ((void *)got->sa_handler != (void *)want->sa_handler)
		T_FAIL("%s: handler %p, expected %p", what,
		       (void *)got->sa_handler, (void *)want->sa_handler);
	if ((got->sa_flags & ~SA_RESTORER) != (want->sa_flags & ~SA_RESTORER))
		T_FAIL("%s: sa_flags 0x%x, expected 0x%x", what,
		       got->sa_flags & ~SA_RESTORER,
		       want->sa_flags & ~SA_RESTORER);
	same_sigset(what, &got->sa_mask, &want->sa_mask);
}

static void same_mask(const char *what, const sigset_t *want)
{
	sigset_t now;
	T_EQ(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	same_sigset(what, &now, want);
}

static void set_action(struct sigaction *sa, void (*fn)(int), int flags)
{
	memset(sa, 0, sizeof *sa);
	sa->sa_handler = fn;
	sa->sa_flags = flags;
	sigemptyset(&sa->sa_mask);
	sigaddset(&sa->sa_mask, SIGUSR2);
	sigaddset(&sa->sa_mask, SIGHUP);
	if (sigaction(SIGUSR1, sa, NULL) != 0)
		T_FAIL("sigaction: %s", strerror(errno));
}

/* A non-trivial signal mask (SIGUSR1 itself stays unblocked). */
static void set_mask(sigset_t *m)
{
	sigemptyset(m);
	sigaddset(m, SIGPIPE);
	sigaddset(m, SIGRTMIN + 3);
	T_EQ(sigprocmask(SIG_SETMASK, m, NULL), 0);
}

static int add_knote(void *ud)
{
	int kq = t_kqueue();
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, ud);
	return kq;
}

static void expect_record(int kq, int64_t data, void *ud)
{
	T_WAIT1(kq, 2000, SIGUSR1, EVFILT_SIGNAL, EV_CLEAR, 0, data, ud);
	T_NO_EVENTS(kq);
}

/* Snapshot, knote, checks while it exists; returns the kqueue. */
static int with_knote(const struct sigaction *want, const sigset_t *mask)
{
	struct sigaction cur;
	int kq = add_knote(NULL);
	query(&cur);
	same_action("while the knote exists", &cur, want);
	same_mask("mask while the knote exists", mask);
	return kq;
}

static void after_delete(int kq, const struct sigaction *want,
			 const sigset_t *mask)
{
	struct sigaction cur;
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	query(&cur);
	same_action("after EV_DELETE", &cur, want);
	same_mask("mask after EV_DELETE", mask);
}

static void s_handler(void)
{
	struct sigaction sa, snap;
	sigset_t m;
	set_mask(&m);
	set_action(&sa, h1, SA_RESTART);
	query(&snap);
	int kq = with_knote(&snap, &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h1_hits, 1);
	expect_record(kq, 1, NULL);
	after_delete(kq, &snap, &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h1_hits, 2);
	T_NO_EVENTS(kq);
}

static void s_ignore(void)
{
	struct sigaction sa, snap;
	sigset_t m;
	set_mask(&m);
	set_action(&sa, SIG_IGN, 0);
	query(&snap);
	int kq = with_knote(&snap, &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);   /* ignored: must survive */
	expect_record(kq, 1, NULL);
	after_delete(kq, &snap, &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_NO_EVENTS(kq);
}

/* Ends by dying of SIGUSR1 (SIG_DFL back in force). */
static void s_default(void)
{
	struct sigaction sa, snap;
	sigset_t m;
	set_mask(&m);
	set_action(&sa, SIG_DFL, 0);
	query(&snap);
	int kq = with_knote(&snap, &m);
	after_delete(kq, &snap, &m);
	kill(getpid(), SIGUSR1);
	T_FAIL("survived SIGUSR1 at SIG_DFL after EV_DELETE");
}

static void s_handler_to_ignore(void)
{
	struct sigaction sa, old, cur;
	sigset_t m;
	set_mask(&m);
	set_action(&sa, h1, SA_RESTART);
	int kq = add_knote(NULL);

	struct sigaction ign;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaddset(&ign.sa_mask, SIGALRM);
	memset(&old, 0, sizeof old);
	T_EQ(sigaction(SIGUSR1, &ign, &old), 0);
	same_action("old action returned by sigaction()", &old, &sa);
	query(&cur);
	same_action("after the change", &cur, &ign);
	T_EQ(kill(getpid(), SIGUSR1), 0);   /* ignored now */
	T_EQ(h1_hits, 0);
	expect_record(kq, 1, NULL);
	after_delete(kq, &ign, &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h1_hits, 0);
	T_NO_EVENTS(kq);
}

static void s_default_to_siginfo(void)
{
	struct sigaction dfl, sa, old, cur;
	sigset_t m;
	set_mask(&m);
	set_action(&dfl, SIG_DFL, 0);
	int kq = add_knote(NULL);

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = h2;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	memset(&old, 0, sizeof old);
	T_EQ(sigaction(SIGUSR1, &sa, &old), 0);
	same_action("old action returned by sigaction()", &old, &dfl);
	query(&cur);
	same_action("after the change", &cur, &sa);
	/* The program also changes its mask while the knote exists. */
	sigaddset(&m, SIGHUP);
	T_EQ(sigprocmask(SIG_BLOCK, &m, NULL), 0);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h2_hits, 1);
	expect_record(kq, 1, NULL);
	after_delete(kq, &sa, &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h2_hits, 2);
	T_NO_EVENTS(kq);
}

/* Ends by dying of SIGUSR1. */
static void s_handler_to_default(void)
{
	struct sigaction sa, cur;
	sigset_t m;
	set_mask(&m);
	set_action(&sa, h1, SA_RESTART);
	int kq = add_knote(NULL);
	if (signal(SIGUSR1, SIG_DFL) != h1)
		T_FAIL("signal() did not return the program's handler");
	query(&cur);
	T_ASSERT(cur.sa_handler == SIG_DFL);
	after_delete(kq, &cur, &m);
	kill(getpid(), SIGUSR1);
	T_FAIL("survived SIGUSR1 at SIG_DFL after EV_DELETE");
}

static void s_two_kqueues_close(void)
{
	struct sigaction sa, snap, cur;
	sigset_t m;
	int ud1, ud2;
	set_mask(&m);
	set_action(&sa, h1, 0);
	query(&snap);
	int kq1 = add_knote(&ud1);
	int kq2 = add_knote(&ud2);
	t_change(kq1, SIGUSR1, EVFILT_SIGNAL, EV_DELETE, 0, 0, NULL);
	query(&cur);
	same_action("one of two knotes deleted", &cur, &snap);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h1_hits, 1);
	expect_record(kq2, 1, &ud2);
	T_NO_EVENTS(kq1);
	T_EQ(close(kq2), 0);   /* the last knote goes with its kqueue */
	query(&cur);
	same_action("after close() of the last kqueue", &cur, &snap);
	same_mask("mask after close()", &m);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(h1_hits, 2);
	T_NO_EVENTS(kq1);
}

static void run(const char *name, void (*fn)(void), int want_sig)
{
	int st = ts_run_child(fn, "signal-delete-restores: scenario hung");

	if (want_sig)
		ts_expect_killed(name, st, want_sig);
	else
		ts_expect_ok(name, st);
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer interposes sigaction() itself and runs handlers
	 * late, at its own safe points, for signals that do not arrive inside
	 * one of its interceptors (sigqueue, pthread_kill to another thread):
	 * shown with a program that does not use libkq at all. */
	T_SKIP("handler timing and dispositions are ThreadSanitizer's own here");
#endif
	run("handler", s_handler, 0);
	run("SIG_IGN", s_ignore, 0);
	run("SIG_DFL", s_default, SIGUSR1);
	run("handler -> SIG_IGN", s_handler_to_ignore, 0);
	run("SIG_DFL -> SA_SIGINFO handler", s_default_to_siginfo, 0);
	run("handler -> SIG_DFL", s_handler_to_default, SIGUSR1);
	run("two kqueues, close", s_two_kqueues_close, 0);
	return 0;
}
