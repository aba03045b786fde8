/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Zero-timeout kevent() calls over TCP connections with data waiting: every
 * knote a report concerns gets its record, with its own count, on every
 * call.
 *
 *  - one connection with a level READ and a level WRITE knote, added in
 *    either order (two kqueues): both {S, READ, 0, 0, 5, ur} and
 *    {S, WRITE, 0, 0, >= 1, uw}, three calls in a row.  One epoll report
 *    stands for both knotes: delivering the first knote of the descriptor
 *    and forgetting the second would lose a record;
 *  - 2 and then 6 connections, each with one level READ knote and a
 *    different number of bytes waiting: each reported once per call with
 *    exactly its count (from a few connections on, libkq asks the counts
 *    of many together; below that, one at a time).
 */
#include "t.h"

#include <stdbool.h>

static void *const UR = (void *)0x5a;
static void *const UW = (void *)0xa5;

static void two_knotes(bool read_first)
{
	int c, s;
	t_tcp_pair(&c, &s);
	t_write(c, "hello", 5);
	t_wait_inq(s, 5);

	int kq = t_kqueue();
	if (read_first) {
		t_change(kq, s, EVFILT_READ, EV_ADD, 0, 0, UR);
		t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, UW);
	} else {
		t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, UW);
		t_change(kq, s, EVFILT_READ, EV_ADD, 0, 0, UR);
	}
	for (int call = 0; call < 3; call++) {
		struct kevent ev[8];
		memset(ev, 0xa5, sizeof ev);
		int n = t_get(kq, ev, 8);
		if (n != 2) {
			for (int j = 0; j < n; j++)
				t_print_kevent("  got", &ev[j]);
			T_FAIL("%s first, call %d: %d records, expected 2",
			       read_first ? "READ" : "WRITE", call, n);
		}
		int r = ev[0].filter == EVFILT_READ ? 0 : 1;
		T_KEVENT(&ev[r], (uintptr_t)s, EVFILT_READ, 0, 0, 5, UR);
		T_KEVENT_MIN(&ev[1 - r], (uintptr_t)s, EVFILT_WRITE, 0, 0, 1, UW);
	}
	close(kq);
	close(c);
	close(s);
}

static void many(int nconn)
{
	int c[8], s[8];
	int kq = t_kqueue();
	for (int i = 0; i < nconn; i++) {
		t_tcp_pair(&c[i], &s[i]);
		t_write(c[i], "0123456789", (size_t)i + 1);
		t_wait_inq(s[i], i + 1);
		t_change(kq, s[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(uintptr_t)(i + 1));
	}
	for (int call = 0; call < 3; call++) {
		struct kevent ev[16];
		memset(ev, 0xa5, sizeof ev);
		int n = t_get(kq, ev, 16);
		if (n != nconn) {
			for (int j = 0; j < n; j++)
				t_print_kevent("  got", &ev[j]);
			T_FAIL("%d connections, call %d: %d records", nconn, call, n);
		}
		bool seen[8] = { false };
		for (int j = 0; j < n; j++) {
			int i = (int)(uintptr_t)ev[j].udata - 1;
			if (i < 0 || i >= nconn || seen[i])
				T_FAIL("%d connections, call %d: record %d has udata %p",
				       nconn, call, j, ev[j].udata);
			seen[i] = true;
			T_KEVENT(&ev[j], (uintptr_t)s[i], EVFILT_READ, 0, 0, i + 1,
				 (void *)(uintptr_t)(i + 1));
		}
	}
	for (int i = 0; i < nconn; i++) {
		close(c[i]);
		close(s[i]);
	}
	close(kq);
}

int main(void)
{
	t_fail_after(20, "TCP polls");
	two_knotes(true);
	two_knotes(false);
	many(2);
	many(6);
	return 0;
}
