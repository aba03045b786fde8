/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_WAKEONE (a libkq extension) must not strand a ready knote: two level
 * READ|EV_WAKEONE knotes in one
 * kqueue on the same open file (a pipe's read end p0 and its dup d) are two
 * knotes, each reporting its own readiness.  With a thread
 * asleep in kevent() (nevents 4) when one byte arrives, the wake-up must
 * not strand either knote: within 1 s both {p0, READ} and {d, READ} (flags
 * EV_WAKEONE, data 1) have been reported, by the waiter or by a following
 * zero-timeout kevent(), and both keep being reported (level) while the
 * byte is unread.
 */
#include "t_thread.h"

static int kq;
static atomic_int tid, done;
static int wn;
static struct kevent wev[4];

static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&tid, t_gettid());
	wn = t_wait(kq, wev, 4, 3000);
	atomic_store(&done, 1);
	return NULL;
}

static void note(const struct kevent *e, int p0, int d, int *seen)
{
	if (e->ident == (uintptr_t)p0) {
		T_KEVENT(e, p0, EVFILT_READ, EV_WAKEONE, 0, 1, NULL);
		*seen |= 1;
	} else {
		T_KEVENT(e, d, EVFILT_READ, EV_WAKEONE, 0, 1, NULL);
		*seen |= 2;
	}
}

int main(void)
{
	int p[2];
	pthread_t th;
	struct kevent ev[4];

	t_fail_after(5, "wakeone-same-file: still running after 5 s");
	kq = t_kqueue();
	t_pipe(p);
	int d = dup(p[0]);
	T_ASSERT(d >= 0);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_WAKEONE, 0, 0, NULL);
	t_change(kq, d, EVFILT_READ, EV_ADD | EV_WAKEONE, 0, 0, NULL);

	if (!t_start_waiter(&th, waiter, NULL, &tid, &done, "the waiter"))
		T_FAIL("the waiter returned before blocking");
	t_sleep_ms(5);
	t_write(p[1], "x", 1);
	T_ASSERT(pthread_join(th, NULL) == 0);
	int seen = 0;
	T_ASSERT(wn >= 1);
	for (int i = 0; i < wn; i++)
		note(&wev[i], p[0], d, &seen);
	int64_t end = t_now_ns() + 1000000000LL;
	while (seen != 3 && t_now_ns() < end) {
		int n = t_get(kq, ev, 4);
		for (int i = 0; i < n; i++)
			note(&ev[i], p[0], d, &seen);
		t_sleep_ms(5);
	}
	if (seen != 3)
		T_FAIL("knote {%d, READ} stranded: never reported although "
		       "its data is there", seen == 1 ? d : p[0]);
	T_EQ(t_get(kq, ev, 4), 2);   /* level: both, again */
	return 0;
}
