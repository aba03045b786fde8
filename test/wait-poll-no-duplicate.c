/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Zero-timeout kevent() calls on many ready level knotes never report a
 * knote twice in one call, whatever nevents is.
 *
 * 100 pipes, pipe i holding (i % 13) + 1 unread bytes, each watched by a
 * plain level EVFILT_READ knote (udata 0x7000 + i).  In FreeBSD each knote
 * is on the ready queue once, so one call holds at most one record per
 * knote, {pipe, READ, 0, 0, bytes unread, udata}; a level knote delivered
 * goes back to the tail, so consecutive calls go round all of them.
 *
 * libkq delivers most of these straight from epoll's reports
 * (kq_fd_report_direct) and queues the rest; since epoll hands a level entry
 * back after every epoll_wait(), one that a call took twice (a second
 * epoll_wait() in the same call, the queue and the direct path both
 * delivering it) would show up here as a duplicate.  Checked:
 *  - nevents = 128 (room for all): every call returns exactly the 100
 *    records, each pipe once (the direct path: all reports fit in one
 *    epoll_wait());
 *  - nevents = 64: 64 distinct records a call, and any two consecutive
 *    calls together report every pipe (FreeBSD's rotation);
 *  - nevents = 3: over 100 calls, 3 distinct records each, every pipe
 *    reported two to four times (FreeBSD: exactly three times);
 *  - the nevents = 128 and nevents = 3 checks again with calls that may
 *    wait 1 s (kq_scan's rounds, which deliver directly as well; all is
 *    ready, so they return at once);
 *  - nevents = 128 again, after some pipes were drained and others were
 *    written to: exactly the ready ones, once each, with the new counts.
 */
#include "t.h"

#define N 100
#define BIG 128

static int p[N][2];
static int64_t unread[N];

static void *ud_of(int i)
{
	return (void *)(uintptr_t)(0x7000 + i);
}

static int ready_count(void)
{
	int r = 0;
	for (int i = 0; i < N; i++)
		r += unread[i] > 0;
	return r;
}

/* One call of nevents = k (zero timeout, or waiting up to ms); checks each
 * record, marks seen[], returns n. */
static int call_ms(int kq, int k, long ms, int want, int *seen, const char *what,
		   int c)
{
	static struct kevent ev[BIG + 1];
	int here[N] = { 0 };

	memset(ev, 0xa5, sizeof ev);
	int n = ms ? t_wait(kq, ev, k, ms) : t_get(kq, ev, k);
	if (n != want)
		T_FAIL("%s, call %d: %d records, expected %d", what, c, n, want);
	if (!t_untouched(&ev[n]))
		T_FAIL("%s, call %d: slot %d past the records written", what, c, n);
	for (int j = 0; j < n; j++) {
		int i = (int)((uintptr_t)ev[j].udata - 0x7000);
		if (i < 0 || i >= N) {
			t_print_kevent("  got", &ev[j]);
			T_FAIL("%s, call %d: record %d has an unknown udata", what, c, j);
		}
		if (here[i]++) {
			t_print_kevent("  duplicate", &ev[j]);
			T_FAIL("%s, call %d: pipe %d (fd %d) reported twice in one call",
			       what, c, i, p[i][0]);
		}
		if (unread[i] == 0) {
			t_print_kevent("  got", &ev[j]);
			T_FAIL("%s, call %d: drained pipe %d reported", what, c, i);
		}
		T_KEVENT(&ev[j], p[i][0], EVFILT_READ, 0, 0, unread[i], ud_of(i));
		seen[i]++;
	}
	return n;
}

static int call(int kq, int k, int want, int *seen, const char *what, int c)
{
	return call_ms(kq, k, 0, want, seen, what, c);
}

int main(void)
{
	char buf[64];
	int seen[N], prev[N];

	t_pipes_fit(N, 16, N);
	int kq = t_kqueue();
	memset(buf, 'd', sizeof buf);
	for (int i = 0; i < N; i++) {
		t_pipe(p[i]);
		unread[i] = i % 13 + 1;
		t_write(p[i][1], buf, (size_t)unread[i]);
		t_change(kq, p[i][0], EVFILT_READ, EV_ADD, 0, 0, ud_of(i));
	}

	for (int c = 0; c < 5; c++) {
		memset(seen, 0, sizeof seen);
		call(kq, BIG, N, seen, "nevents 128", c);
		for (int i = 0; i < N; i++)
			if (seen[i] != 1)
				T_FAIL("nevents 128, call %d: pipe %d reported %d times",
				       c, i, seen[i]);
	}

	memset(prev, 0, sizeof prev);
	for (int c = 0; c < 8; c++) {
		memset(seen, 0, sizeof seen);
		call(kq, 64, 64, seen, "nevents 64", c);
		if (c > 0)
			for (int i = 0; i < N; i++)
				if (!seen[i] && !prev[i])
					T_FAIL("nevents 64: pipe %d (fd %d) not reported in "
					       "calls %d and %d", i, p[i][0], c - 1, c);
		memcpy(prev, seen, sizeof prev);
	}

	memset(seen, 0, sizeof seen);
	for (int c = 0; c < N; c++)
		call(kq, 3, 3, seen, "nevents 3", c);
	for (int i = 0; i < N; i++)
		if (seen[i] < 2 || seen[i] > 4)
			T_FAIL("nevents 3: pipe %d (fd %d) reported %d times in %d "
			       "calls (FreeBSD: 3)", i, p[i][0], seen[i], N);

	/* The same with waiting calls (kq_scan's rounds, direct as well). */
	for (int c = 0; c < 3; c++) {
		memset(seen, 0, sizeof seen);
		call_ms(kq, BIG, 1000, N, seen, "waiting, nevents 128", c);
		for (int i = 0; i < N; i++)
			if (seen[i] != 1)
				T_FAIL("waiting, nevents 128, call %d: pipe %d reported "
				       "%d times", c, i, seen[i]);
	}
	memset(seen, 0, sizeof seen);
	for (int c = 0; c < N; c++)
		call_ms(kq, 3, 1000, 3, seen, "waiting, nevents 3", c);
	for (int i = 0; i < N; i++)
		if (seen[i] < 2 || seen[i] > 4)
			T_FAIL("waiting, nevents 3: pipe %d (fd %d) reported %d times "
			       "in %d calls (FreeBSD: 3)", i, p[i][0], seen[i], N);

	/* Drain every third pipe, add two bytes to every fifth. */
	for (int i = 0; i < N; i += 3) {
		T_EQ(read(p[i][0], buf, sizeof buf), unread[i]);
		unread[i] = 0;
	}
	for (int i = 0; i < N; i += 5) {
		t_write(p[i][1], buf, 2);
		unread[i] += 2;
	}
	for (int c = 0; c < 3; c++) {
		memset(seen, 0, sizeof seen);
		call(kq, BIG, ready_count(), seen, "nevents 128 after reads", c);
		for (int i = 0; i < N; i++)
			if (seen[i] != (unread[i] > 0))
				T_FAIL("nevents 128 after reads, call %d: pipe %d "
				       "reported %d times", c, i, seen[i]);
	}
	return 0;
}
