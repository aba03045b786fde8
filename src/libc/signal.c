/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The signal calls libkq replaces, so that EVFILT_SIGNAL can keep its own
 * handler in place while the program sees and changes its own disposition
 * (filter/signal.c holds the kept dispositions and does the work):
 *   sigaction, signal        read and change the kept disposition of a
 *                            watched signal; for any other signal, the C
 *                            library's call (lock-free, async-signal-safe);
 *   siginterrupt             glibc's set of interrupting signals is its
 *                            own, so signal() needs this one to be libkq's;
 *   sigtimedwait, sigwaitinfo, sigwait
 *                            a signal taken this way ends its pending
 *                            episode for the counts;
 *   sigset, sigignore, sysv_signal, __sysv_signal, bsd_signal, ssignal
 *                            glibc's go around its sigaction (below).
 * Exported as src/export.h describes.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#include <signal.h>
#include <string.h>

#define NSIGS 65

/* See close.c: keeps this object in programs linked with libkq.a. */
const char kq_signal_anchor = 1;

int KQ_INTERPOSE(sigaction)(int sig, const struct sigaction *act, struct sigaction *oact)
{
	return kq_signal_sigaction(sig, act, oact);
}

/* The signals siginterrupt() asked not to restart calls (bit sig - 1).
 * glibc keeps its own set private, so libkq's signal() needs
 * siginterrupt() to be libkq's too. */
static _Atomic uint64_t interrupting;

static bool interrupts(int sig)
{
	return sig > 0 && sig < NSIGS &&
	       (atomic_load_explicit(&interrupting, memory_order_relaxed) >> (sig - 1) & 1);
}

/* BSD semantics, as glibc's signal(): restart interrupted calls (unless
 * siginterrupt() said otherwise), block the signal while its handler
 * runs. */
sighandler_t KQ_INTERPOSE(signal)(int sig, sighandler_t handler)
{
	if (handler == SIG_ERR || sig <= 0 || sig >= NSIGS) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	sigaddset(&act.sa_mask, sig);
	act.sa_flags = interrupts(sig) ? 0 : SA_RESTART;
	if (KQ_CALL(sigaction)(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

int KQ_INTERPOSE(siginterrupt)(int sig, int flag)
{
	struct sigaction act;
	if (KQ_CALL(sigaction)(sig, NULL, &act) < 0)
		return -1;
	uint64_t bit = (uint64_t)1 << (sig - 1);
	if (flag) {
		atomic_fetch_or(&interrupting, bit);
		act.sa_flags &= ~SA_RESTART;
	} else {
		atomic_fetch_and(&interrupting, ~bit);
		act.sa_flags |= SA_RESTART;
	}
	return KQ_CALL(sigaction)(sig, &act, NULL);
}

/* glibc's sigtimedwait(), made here: its own is not reachable under
 * another name, and finding it at run time would be a lookup a signal
 * handler or a vfork() child could not afford.  A cancellation point, as
 * glibc's; a signal sent with tkill() (raise()) is reported as SI_USER, as
 * glibc reports it. */
int KQ_INTERPOSE(sigtimedwait)(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	long r = KQ_CANCELLABLE(SYS_rt_sigtimedwait, set, info, ts, _NSIG / 8);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (info && info->si_code == SI_TKILL)
		info->si_code = SI_USER;
	/* a vfork() child takes its own signals, not the parent's */
	if (!kq_foreign_process())
		kq_signal_consumed((int)r);
	return (int)r;
}

int KQ_INTERPOSE(sigwaitinfo)(const sigset_t *set, siginfo_t *info)
{
	return KQ_CALL(sigtimedwait)(set, info, NULL);
}

int KQ_INTERPOSE(sigwait)(const sigset_t *set, int *sig)
{
	int r, e = errno;
	do
		r = KQ_CALL(sigtimedwait)(set, NULL, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		r = errno;
		errno = e;
		return r;
	}
	errno = e;
	*sig = r;
	return 0;
}

/*
 * The older ways to set a disposition.  glibc's own call its internal
 * sigaction, which libkq cannot see: on a watched signal they would put
 * the kernel's disposition in place of libkq's handler and hand back that
 * handler's address as the old disposition.  Each is made here from
 * libkq's sigaction(), with glibc's flags and results.
 */
static bool settable(int sig, sighandler_t h)
{
	if (h == SIG_ERR || sig <= 0 || sig >= NSIGS) {
		errno = EINVAL;
		return false;
	}
	return true;
}

/* System V's signal(): the handler is reset when it runs, the signal is
 * not blocked in it, and interrupted calls are not restarted.  Also what
 * signal() is for a program built for strict standards (<signal.h> names
 * it __sysv_signal then). */
sighandler_t KQ_INTERPOSE(__sysv_signal)(int sig, sighandler_t handler)
{
	if (!settable(sig, handler))
		return SIG_ERR;
	struct sigaction act, old;
	memset(&act, 0, sizeof act);
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	act.sa_flags = (SA_RESETHAND | SA_NODEFER | SA_INTERRUPT) & ~SA_RESTART;
	if (KQ_CALL(sigaction)(sig, &act, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

sighandler_t KQ_INTERPOSE(sysv_signal)(int sig, sighandler_t handler)
{
	return KQ_CALL(__sysv_signal)(sig, handler);
}

/* bsd_signal() and ssignal() are signal() under other names. */
sighandler_t KQ_INTERPOSE(bsd_signal)(int sig, sighandler_t handler)
{
	return KQ_CALL(signal)(sig, handler);
}

sighandler_t KQ_INTERPOSE(ssignal)(int sig, sighandler_t handler)
{
	return KQ_CALL(signal)(sig, handler);
}

int KQ_INTERPOSE(sigignore)(int sig)
{
	if (!settable(sig, SIG_IGN))
		return -1;
	struct sigaction act;
	memset(&act, 0, sizeof act);
	act.sa_handler = SIG_IGN;
	sigemptyset(&act.sa_mask);
	return KQ_CALL(sigaction)(sig, &act, NULL);
}

/* sigset(): SIG_HOLD blocks the signal and leaves its disposition; any
 * other disposition is set and the signal unblocked.  The result is
 * SIG_HOLD when the signal was blocked before, otherwise the previous
 * disposition. */
sighandler_t KQ_INTERPOSE(sigset)(int sig, sighandler_t disp)
{
	if (!settable(sig, disp))
		return SIG_ERR;
	sigset_t one, before;
	sigemptyset(&one);
	sigaddset(&one, sig);
	struct sigaction act, old;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &one, &before) < 0)
			return SIG_ERR;
		if (sigismember(&before, sig))
			return SIG_HOLD;
		if (KQ_CALL(sigaction)(sig, NULL, &old) < 0)
			return SIG_ERR;
		return old.sa_handler;
	}
	memset(&act, 0, sizeof act);
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	if (KQ_CALL(sigaction)(sig, &act, &old) < 0)
		return SIG_ERR;
	if (sigprocmask(SIG_UNBLOCK, &one, &before) < 0)
		return SIG_ERR;
	return sigismember(&before, sig) ? SIG_HOLD : old.sa_handler;
}
