/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The descriptor table made full, for the tests of what libkq does when it
 * cannot open a descriptor it needs (the <area>-...-emfile.c programs):
 * RLIMIT_NOFILE's soft limit is lowered to a few numbers above the lowest
 * free one, and those few are taken with /dev/null, until open() fails
 * with EMFILE.  Lowering the limit first keeps the fill small whatever the
 * limit was; the test skips where the limit is already below that.
 * t_fdfill_undo() closes the fill and puts the old limit back.  A test
 * that lowers the limit some other way (prlimit(), a signal handler) calls
 * the two halves of t_fdfill() itself.
 */
#ifndef T_FDFILL_H
#define T_FDFILL_H

#include "t.h"

#define T_FDFILL_MAX 512

struct t_fdfill {
	struct rlimit old;
	int fd[T_FDFILL_MAX];
	int n;
};

/* The first half: the limit to lower to (*low), the lowest free number
 * taken.  The caller lowers it (t_fdfill() with setrlimit()). */
static inline void t_fdfill_plan(struct t_fdfill *f, struct rlimit *low)
{
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &f->old) == 0);
	int top = open("/dev/null", O_RDONLY | O_CLOEXEC);
	T_ASSERT(top >= 0);
	*low = f->old;
	low->rlim_cur = (rlim_t)top + 8;
	if (low->rlim_cur > f->old.rlim_cur)
		T_SKIP("RLIMIT_NOFILE %llu too small", (unsigned long long)f->old.rlim_cur);
	f->n = 0;
	f->fd[f->n++] = top;
}

/* The second half, once the limit is lowered: the rest taken. */
static inline void t_fdfill_rest(struct t_fdfill *f)
{
	for (;;) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			T_EQ(errno, EMFILE);
			break;
		}
		T_ASSERT(f->n < T_FDFILL_MAX);
		f->fd[f->n++] = fd;
	}
}

static inline void t_fdfill(struct t_fdfill *f)
{
	struct rlimit low;
	t_fdfill_plan(f, &low);
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &low) == 0);
	t_fdfill_rest(f);
}

static inline void t_fdfill_undo(struct t_fdfill *f)
{
	for (int i = 0; i < f->n; i++)
		close(f->fd[i]);
	f->n = 0;
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &f->old) == 0);
}

#endif
