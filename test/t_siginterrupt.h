/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the tests that signal() honours siginterrupt()
 * (test/signal-siginterrupt*.c): a SIGALRM handler that counts its runs,
 * and a read() of an empty pipe during which a one-shot 50 ms timer sends
 * SIGALRM.  A read() that must be interrupted fails with EINTR; one that
 * must be restarted returns the byte a thread writes after 300 ms.  A read
 * restarted where it should have failed would block for ever: the tests run
 * under t_storm.h's watchdog thread (alarm() cannot serve, SIGALRM is the
 * signal under test).
 */
#ifndef T_SIGINTERRUPT_H
#define T_SIGINTERRUPT_H

#include "t_storm.h"

#include <sys/time.h>

/* ThreadSanitizer replaces signal() with its own, which never sets
 * SA_RESTART whatever siginterrupt() said: shown with these programs built
 * without libkq. */
#ifdef __SANITIZE_THREAD__
#define SIT_SKIP_TSAN() T_SKIP("signal() is ThreadSanitizer's own here")
#else
#define SIT_SKIP_TSAN() do { } while (0)
#endif

static volatile sig_atomic_t sit_hits;   /* runs of sit_on_alarm */

static inline void sit_on_alarm(int sig)
{
	(void)sig;
	sit_hits++;
}

/* siginterrupt(SIGALRM, flag), which must succeed; the function is
 * obsolescent, and glibc says so. */
static inline void sit_siginterrupt(int flag)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	T_EQ(siginterrupt(SIGALRM, flag), 0);
#pragma GCC diagnostic pop
}

static inline void sit_timer_50ms(void)
{
	struct itimerval it = { .it_value = { 0, 50000 } };
	T_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
}

/* A read() of the empty pipe p that the SIGALRM must interrupt: it fails
 * with EINTR, and the handler has then run `hits` times in all. */
static inline void sit_read_interrupted(const int p[2], int hits)
{
	char c;

	t_watch_stage("read() that SIGALRM should interrupt");
	sit_timer_50ms();
	T_ERRNO(read(p[0], &c, 1), EINTR);
	T_EQ(sit_hits, hits);
}

/* A read() of the empty pipe p that the SIGALRM must not interrupt: it is
 * restarted and returns the byte written later, and the handler has then
 * run `hits` times in all. */
static inline void sit_read_restarted(const int p[2], int hits)
{
	char c;

	t_watch_stage("read() that SIGALRM should not interrupt");
	t_write_later(p[1], 300);
	sit_timer_50ms();
	T_EQ(read(p[0], &c, 1), 1);
	T_EQ(c, 'w');
	T_EQ(sit_hits, hits);
}

#endif
