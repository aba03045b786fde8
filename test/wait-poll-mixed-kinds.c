/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One zero-timeout kevent() call mixing knotes that libkq delivers straight
 * from epoll's reports with knotes that go through its ready queue: each
 * gets its own record, exactly once, with its own flags.
 *
 * In one kqueue, all ready at once:
 *  - pipe A, a plain level READ knote (the direct path,
 *    kq_fd_report_direct): {A, READ, 0, 0, 3, ua} on every call;
 *  - pipe B, READ with EV_CLEAR: {B, READ, EV_CLEAR, 0, 5, ub} once, then
 *    nothing until new data, then the count of all bytes unread;
 *  - one end S of a socketpair with both a level READ and a level WRITE
 *    knote (two knotes on one descriptor: the general path): {S, READ, 0,
 *    0, 2, ur} and {S, WRITE, 0, 0, >= 1, uw} on every call (the send
 *    space is not the same number on Linux and FreeBSD);
 *  - pipe C, READ with EV_ONESHOT: {C, READ, EV_ONESHOT, 0, 4, uc} once
 *    ever (the knote is gone after it: deleting it gives ENOENT);
 *  - the write end E of a fourth pipe, a plain level WRITE knote (the
 *    direct path for WRITE): {E, WRITE, 0, 0, >= PIPE_BUF, ue} on every
 *    call (the free space; FreeBSD's pipe buffer is not Linux's size);
 *  - pipe D, a plain level READ knote added disabled (EV_ADD | EV_DISABLE):
 *    nothing while disabled; after EV_ENABLE {D, READ, 0, 0, 6, ud} on
 *    every call; after EV_DISABLE nothing again.
 * nevents = 64, room for all.  After the first call: A, S READ, S WRITE
 * and E again.  After B gets 2 more bytes: B with data 7 as well.  After A is
 * drained with read(): A is not reported (no record with data 0), while
 * S READ, S WRITE and E still are; writing to A again brings it back.
 */
#include "t.h"

#include <limits.h>

static void *const UA = (void *)0xa1;
static void *const UB = (void *)0xb2;
static void *const UR = (void *)0xc3;
static void *const UW = (void *)0xd4;
static void *const UC = (void *)0xe5;
static void *const UD = (void *)0xf6;
static void *const UE = (void *)0x17;

static int pa[2], pb[2], pc[2], pd[2], pe[2], sp[2];

struct want {
	uintptr_t ident;
	short filter;
	unsigned short flags;
	int64_t data;
	int min;         /* data is only the least wanted */
	void *udata;
};

/* One call with nevents 64: exactly the records of w[0..nw), any order. */
static void expect(int kq, const struct want *w, int nw, const char *what)
{
	struct kevent ev[64];

	memset(ev, 0xa5, sizeof ev);
	int n = t_get(kq, ev, 64);
	if (n != nw) {
		for (int j = 0; j < n; j++)
			t_print_kevent("  got", &ev[j]);
		T_FAIL("%s: %d records, expected %d", what, n, nw);
	}
	for (int k = 0; k < nw; k++) {
		int hit = -1;
		for (int j = 0; j < n; j++)
			if (ev[j].ident == w[k].ident && ev[j].filter == w[k].filter) {
				if (hit >= 0)
					T_FAIL("%s: {%" PRIuPTR ", %s} reported twice", what,
					       w[k].ident, t_filter_name(w[k].filter));
				hit = j;
			}
		if (hit < 0) {
			for (int j = 0; j < n; j++)
				t_print_kevent("  got", &ev[j]);
			T_FAIL("%s: no record for {%" PRIuPTR ", %s}", what, w[k].ident,
			       t_filter_name(w[k].filter));
		}
		if (w[k].min)
			T_KEVENT_MIN(&ev[hit], w[k].ident, w[k].filter, w[k].flags, 0,
				     w[k].data, w[k].udata);
		else
			T_KEVENT(&ev[hit], w[k].ident, w[k].filter, w[k].flags, 0,
				 w[k].data, w[k].udata);
	}
}

#define EXPECT(kq, w, what) \
	expect((kq), (w), (int)(sizeof (w) / sizeof (w)[0]), (what))

int main(void)
{
	char buf[16];
	int kq = t_kqueue();

	t_pipe(pa);
	t_pipe(pb);
	t_pipe(pc);
	t_pipe(pd);
	t_pipe(pe);
	t_socketpair(sp);
	t_write(pa[1], "aaa", 3);
	t_write(pb[1], "bbbbb", 5);
	t_write(pc[1], "cccc", 4);
	t_write(pd[1], "dddddd", 6);
	t_write(sp[1], "ss", 2);

	t_change(kq, pa[0], EVFILT_READ, EV_ADD, 0, 0, UA);
	t_change(kq, pb[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, UB);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, UR);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, UW);
	t_change(kq, pc[0], EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, UC);
	t_change(kq, pd[0], EVFILT_READ, EV_ADD | EV_DISABLE, 0, 0, UD);
	t_change(kq, pe[1], EVFILT_WRITE, EV_ADD, 0, 0, UE);

	struct want first[] = {
		{ pa[0], EVFILT_READ, 0, 3, 0, UA },
		{ pb[0], EVFILT_READ, EV_CLEAR, 5, 0, UB },
		{ sp[0], EVFILT_READ, 0, 2, 0, UR },
		{ sp[0], EVFILT_WRITE, 0, 1, 1, UW },
		{ pe[1], EVFILT_WRITE, 0, PIPE_BUF, 1, UE },
		{ pc[0], EVFILT_READ, EV_ONESHOT, 4, 0, UC },
	};
	EXPECT(kq, first, "first call");

	/* Level ones again; B (cleared) and C (gone) not. */
	struct want level[] = {
		{ pa[0], EVFILT_READ, 0, 3, 0, UA },
		{ sp[0], EVFILT_READ, 0, 2, 0, UR },
		{ sp[0], EVFILT_WRITE, 0, 1, 1, UW },
		{ pe[1], EVFILT_WRITE, 0, PIPE_BUF, 1, UE },
	};
	EXPECT(kq, level, "second call");
	EXPECT(kq, level, "third call");
	T_EQ(t_change_err(kq, pc[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);

	/* D enabled: reported with the level ones, every call; disabled
	 * again: silent. */
	t_change(kq, pd[0], EVFILT_READ, EV_ENABLE, 0, 0, UD);
	struct want with_d[] = {
		{ pa[0], EVFILT_READ, 0, 3, 0, UA },
		{ sp[0], EVFILT_READ, 0, 2, 0, UR },
		{ sp[0], EVFILT_WRITE, 0, 1, 1, UW },
		{ pe[1], EVFILT_WRITE, 0, PIPE_BUF, 1, UE },
		{ pd[0], EVFILT_READ, 0, 6, 0, UD },
	};
	EXPECT(kq, with_d, "after enabling D");
	EXPECT(kq, with_d, "after enabling D, again");
	t_change(kq, pd[0], EVFILT_READ, EV_DISABLE, 0, 0, UD);
	EXPECT(kq, level, "after disabling D");

	/* More data on C: its knote is gone.  More on B: one record of all
	 * 7 bytes unread, then nothing again. */
	t_write(pc[1], "C", 1);
	t_write(pb[1], "BB", 2);
	struct want with_b[] = {
		{ pa[0], EVFILT_READ, 0, 3, 0, UA },
		{ pb[0], EVFILT_READ, EV_CLEAR, 7, 0, UB },
		{ sp[0], EVFILT_READ, 0, 2, 0, UR },
		{ sp[0], EVFILT_WRITE, 0, 1, 1, UW },
		{ pe[1], EVFILT_WRITE, 0, PIPE_BUF, 1, UE },
	};
	EXPECT(kq, with_b, "after B's write");
	EXPECT(kq, level, "after B's record");

	/* Drain A: the other level knotes go on, A is silent. */
	T_EQ(read(pa[0], buf, sizeof buf), 3);
	struct want no_a[] = {
		{ sp[0], EVFILT_READ, 0, 2, 0, UR },
		{ sp[0], EVFILT_WRITE, 0, 1, 1, UW },
		{ pe[1], EVFILT_WRITE, 0, PIPE_BUF, 1, UE },
	};
	EXPECT(kq, no_a, "after draining A");
	EXPECT(kq, no_a, "after draining A, again");

	/* A back with one byte. */
	t_write(pa[1], "x", 1);
	struct want a_back[] = {
		{ pa[0], EVFILT_READ, 0, 1, 0, UA },
		{ sp[0], EVFILT_READ, 0, 2, 0, UR },
		{ sp[0], EVFILT_WRITE, 0, 1, 1, UW },
		{ pe[1], EVFILT_WRITE, 0, PIPE_BUF, 1, UE },
	};
	EXPECT(kq, a_back, "after refilling A");
	EXPECT(kq, a_back, "after refilling A, again");
	return 0;
}
