/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A number libkq is taking for itself while the program dup2()s onto it.
 * To the program the number is free (it never had it, and libkq's copy is
 * not there yet, or not marked yet), and on FreeBSD dup2() onto a free
 * number just lands.  Here one thread makes kqueues over and over (each
 * takes numbers high up for its epoll copy, its timer's timerfd and its
 * split WRITE set), uses them and closes them, while another dup2()s a
 * pipe's write end onto every number of that high region that looks free
 * and closes it again.  Neither may break the other: every kevent() call
 * succeeds with its records exact (a timer's expiry, a pipe's READ, a
 * socket's WRITE), every dup2() lands, and libkq never writes into the
 * program's pipe.  Before libkq waited out the program's dup2() between
 * its look and its system call, the dup2() put the program's pipe over a
 * kqueue's fresh epoll copy or timerfd, and the kqueue's next kevent()
 * failed (EBADF, EINVAL) or slept past its timer.
 */
#include "t.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#define SECONDS 3

static atomic_int stop;
static int lo, hi;     /* the region libkq's numbers go to */
static int pw[2];      /* the program's pipe: nothing may be written to it */
static long landed;

static void *placer(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		for (int n = hi; n >= lo && !atomic_load(&stop); n--) {
			if (fcntl(n, F_GETFD) >= 0)
				continue;   /* libkq's, or taken: not free to the program */
			int r = dup2(pw[1], n);
			if (r != n)
				T_FAIL("dup2(%d, %d) onto a free number: %d (%s)", pw[1], n, r,
				       strerror(errno));
			landed++;
			if (close(n) != 0)
				T_FAIL("close(%d) of the program's own copy: %s", n, strerror(errno));
		}
	}
	return NULL;
}

int main(void)
{
	struct rlimit rl;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	long lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 4096 ? 4096 : (long)rl.rlim_cur;
	if (lim < 512)
		T_SKIP("RLIMIT_NOFILE %ld too small for libkq's high numbers", lim);
	/* hide.c: below the limit's last eighth, at most 128 under it */
	hi = (int)(lim - 1 - (lim / 8 < 128 ? lim / 8 : 128));
	lo = hi - 24;
	t_pipe(pw);
	T_ASSERT(fcntl(pw[0], F_SETFL, O_NONBLOCK) == 0);
	int sp[2];
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);

	pthread_t t;
	T_ASSERT(pthread_create(&t, NULL, placer, NULL) == 0);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long rounds = 0;
	do {
		int kq = kqueue();
		if (kq < 0)
			T_FAIL("round %ld: kqueue(): %s", rounds, strerror(errno));
		struct kevent ch[2], ev[4];
		EV_SET(&ch[0], 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_USECONDS, 50, (void *)1);
		EV_SET(&ch[1], sp[0], EVFILT_WRITE, EV_ADD, 0, 0, (void *)2);
		if (kevent(kq, ch, 2, NULL, 0, NULL) != 0)
			T_FAIL("round %ld: EV_ADD of a timer and a WRITE knote: %s", rounds,
			       strerror(errno));
		int got = 0, timer = 0;
		struct timespec ts = { 2, 0 };
		while (!timer) {
			int n = kevent(kq, NULL, 0, ev, 4, &ts);
			if (n <= 0)
				T_FAIL("round %ld: kevent() gave %d (%s) before the 50 us timer", rounds,
				       n, n < 0 ? strerror(errno) : "timed out");
			for (int i = 0; i < n; i++) {
				if (ev[i].udata == (void *)1) {
					T_KEVENT(&ev[i], 1, EVFILT_TIMER, EV_ONESHOT | EV_CLEAR, 0, 1, (void *)1);
					timer = 1;
				} else if (ev[i].udata == (void *)2) {
					T_ASSERT(ev[i].ident == (uintptr_t)sp[0] && ev[i].data > 0);
				} else {
					T_FAIL("round %ld: a record of udata %p", rounds, ev[i].udata);
				}
				got++;
			}
		}
		T_ASSERT(close(kq) == 0);
		char c;
		if (read(pw[0], &c, 1) != -1 || errno != EAGAIN)
			T_FAIL("round %ld: libkq wrote into the program's pipe", rounds);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < SECONDS);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("%ld kqueues made and used, %ld dup2() onto numbers in %d..%d\n", rounds, landed,
	       lo, hi);
	if (landed == 0)
		T_FAIL("no dup2() landed in the region");
	return 0;
}
