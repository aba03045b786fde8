/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How many kqueues fit in a process: at RLIMIT_NOFILE 1024 FreeBSD gives
 * about 1020, one descriptor each.  libkq keeps a private epoll set per
 * kqueue and one wake descriptor for all: at least 500 must fit, and every
 * one of them must work (a trigger and its record), and all must close.
 */
#include "t.h"

#include <sys/resource.h>

#define WANT 500

int main(void)
{
	struct rlimit rl;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max < 1024)
		T_SKIP("RLIMIT_NOFILE's hard limit is %lu", (unsigned long)rl.rlim_max);
	rl.rlim_cur = 1024;
	T_ASSERT(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	static int kq[1024];
	int n = 0;
	while (n < 1024) {
		int k = kqueue();
		if (k < 0) {
			if (errno != EMFILE)
				T_FAIL("kqueue() number %d: %s", n + 1, strerror(errno));
			break;
		}
		kq[n++] = k;
	}
	if (n < WANT)
		T_FAIL("only %d kqueues at RLIMIT_NOFILE 1024 (at least %d wanted)", n, WANT);
	for (int i = 0; i < n; i++) {
		t_change(kq[i], 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
		t_change(kq[i], 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
		T_GET1(kq[i], 1, EVFILT_USER, EV_CLEAR, 0, 0, NULL);
	}
	for (int i = 0; i < n; i++)
		T_ASSERT(close(kq[i]) == 0);
	printf("%d kqueues\n", n);
	return 0;
}
