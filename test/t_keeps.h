/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * For the tests that the C library functions libkq replaces leave errno
 * alone when they succeed (test/errno-kept-*.c).
 *
 * KEEPS(call, ok) makes the call with errno set to a value no call returns
 * and fails the test unless ok holds (ok may look at `last`, the value the
 * call returned) and errno still holds that value.  KEEPS_VOID(call) is the
 * same for a call that returns nothing.  Messages begin with keeps_where,
 * which a test may set (to the round it is in, say).
 */
#ifndef T_KEEPS_H
#define T_KEEPS_H

#include "t.h"

#define KEEPS_SENTINEL 4245

static long last;              /* the value of the latest KEEPS() call */
static char keeps_where[32];

#define KEEPS(call, ok) do {                                               \
	errno = KEEPS_SENTINEL;                                            \
	last = (long)(call);                                               \
	int e_kept = errno;                                                \
	if (!(ok))                                                         \
		T_FAIL("%s%s failed: returned %ld (errno %d: %s)",         \
		       keeps_where, #call, last, e_kept, strerror(e_kept));\
	if (e_kept != KEEPS_SENTINEL)                                      \
		T_FAIL("%s%s succeeded (returned %ld) but changed errno "  \
		       "to %d (%s)", keeps_where, #call, last, e_kept,     \
		       strerror(e_kept));                                  \
} while (0)

#define KEEPS_VOID(call) do {                                              \
	errno = KEEPS_SENTINEL;                                            \
	call;                                                              \
	if (errno != KEEPS_SENTINEL)                                       \
		T_FAIL("%s%s changed errno to %d", keeps_where, #call,     \
		       errno);                                             \
} while (0)

static inline void keeps_noop(int sig)
{
	(void)sig;
}

/* sigaction() installing keeps_noop for sig, and one reading it back. */
static inline void keeps_sigaction(int sig)
{
	struct sigaction sa = t_sigact(keeps_noop, 0), old;

	KEEPS(sigaction(sig, &sa, &old), last == 0);
	KEEPS(sigaction(sig, NULL, &old), last == 0 && old.sa_handler == keeps_noop);
}

/* sigtimedwait(), sigwaitinfo() and sigwait() each taking sig, blocked and
 * sent to the process just before; the mask is then put back. */
static inline void keeps_sigwait_family(int sig)
{
	sigset_t set, prev;
	siginfo_t si;
	struct timespec ts = { 1, 0 };
	int got = 0;

	sigemptyset(&set);
	sigaddset(&set, sig);
	T_EQ(sigprocmask(SIG_BLOCK, &set, &prev), 0);
	T_EQ(kill(getpid(), sig), 0);
	KEEPS(sigtimedwait(&set, &si, &ts), last == sig);
	T_EQ(kill(getpid(), sig), 0);
	KEEPS(sigwaitinfo(&set, &si), last == sig);
	T_EQ(kill(getpid(), sig), 0);
	KEEPS(sigwait(&set, &got), last == 0 && got == sig);
	T_EQ(sigprocmask(SIG_SETMASK, &prev, NULL), 0);
}

#endif
