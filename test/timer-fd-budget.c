/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue with 10,000 timers (relative periodic, one-shot and absolute)
 * and, if EVFILT_USER is available, 10,000 USER knotes owns O(1)
 * descriptors: all timers of a kqueue share one timerfd, all USER knotes
 * the kqueue's one eventfd.  /proc/self/fd is counted before the kqueue is
 * created and after the knotes were added, some timers fired and some USER
 * knotes were triggered; the difference stays within a handful.  Closing the
 * kqueue releases them all.  Library design (no thread or descriptor per
 * timer); no FreeBSD analogue.
 */
#include "t.h"

#include <dirent.h>

#define N 10000
#define BUDGET 8   /* epoll, its private dup, eventfd, timerfd, WRITE set, inotify, slack */

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		T_FAIL("opendir(/proc/self/fd): %s", strerror(errno));
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;   /* the DIR's own descriptor */
}

int main(void)
{
	int before = count_fds();
	int kq = t_kqueue();
	struct kevent ev[64];
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);

	for (int i = 0; i < N; i++) {
		switch (i % 3) {
		case 0:
			t_change(kq, i, EVFILT_TIMER, EV_ADD, NOTE_SECONDS,
				 60 + i, NULL);
			break;
		case 1:
			t_change(kq, i, EVFILT_TIMER, EV_ADD | EV_ONESHOT,
				 0, 100000 + i, NULL);
			break;
		default:
			t_change(kq, i, EVFILT_TIMER, EV_ADD,
				 NOTE_ABSTIME | NOTE_SECONDS,
				 rt.tv_sec + 3600 + i, NULL);
		}
	}
	/* Some short ones actually fire. */
	for (int i = 0; i < 50; i++)
		t_change(kq, N + i, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0,
			 1 + i % 10, NULL);
	int fired = 0;
	while (fired < 50) {
		int n = t_wait(kq, ev, 64, 1000);
		if (n == 0)
			T_FAIL("only %d of 50 short timers fired", fired);
		for (int k = 0; k < n; k++)
			T_ASSERT(ev[k].filter == EVFILT_TIMER &&
				 ev[k].ident >= N);
		fired += n;
	}

	int users = 0;
	int err = t_change_err(kq, 0, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0,
			       NULL);
	if (err == EINVAL) {
		fprintf(stderr, "EVFILT_USER not available: timers only\n");
	} else {
		T_EQ(err, 0);
		for (int i = 1; i < N; i++)
			t_change(kq, i, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0,
				 NULL);
		users = N;
		for (int i = 0; i < 100; i++)
			t_change(kq, i * 97, EVFILT_USER, 0, NOTE_TRIGGER, 0,
				 NULL);
		int got = 0, n;
		while ((n = t_get(kq, ev, 64)) > 0) {
			for (int k = 0; k < n; k++)
				T_ASSERT(ev[k].filter == EVFILT_USER);
			got += n;
		}
		T_EQ(got, 100);
	}

	int owned = count_fds() - before;
	fprintf(stderr, "%d timers + %d user knotes: kqueue owns %d "
		"descriptors\n", N + 50, users, owned);
	if (owned > BUDGET)
		T_FAIL("kqueue owns %d descriptors for %d timers and %d user "
		       "knotes (budget %d)", owned, N, users, BUDGET);
	close(kq);
	T_EQ(count_fds(), before);
	return 0;
}
