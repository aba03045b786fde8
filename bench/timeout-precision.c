/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * timeout-precision: how late a short timeout expires.  kevent() with a
 * timeout of 1 us, 10 us, 100 us and 1 ms on a kqueue with nothing to
 * report, against the ways a Linux program can wait that long on epoll
 * (the epoll_pwait1 proposal of 2015 was about exactly this: millisecond-only
 * timeouts cost QEMU tens of microseconds per wait).
 *
 * Contenders, one sample of each in turn (the order rotating from sample to
 * sample), each on its own empty kqueue / epoll set:
 *
 *   kevent        kevent(kq, NULL, 0, ev, 1, &T): must return 0
 *   pwait2        epoll_pwait2(ep, evs, 1, &T, NULL): must return 0
 *                 (na when the kernel has no epoll_pwait2, before 5.11)
 *   timerfd       a timerfd in an epoll set: timerfd_settime(T, relative),
 *                 epoll_wait(ep, evs, 1, -1) returning it, read() of the
 *                 expiration count
 *   epoll_ms      epoll_wait(ep, evs, 1, ceil(T) in ms): a millisecond-only
 *                 API (context: a 1 us timeout becomes 1 ms)
 *   kevent_timer  a one-shot EVFILT_TIMER (NOTE_NSECONDS, data = T) added
 *                 and waited for in one kevent(kq, &change, 1, ev, 1, NULL)
 *                 call (context: libkq's timer path)
 *
 * A sample is the wall-clock time (CLOCK_MONOTONIC) of the call(s) minus T;
 * the figures are the median and the 99th percentile of those overshoots
 * over --samples samples (1000; --quick 40).  The process's timer slack (the
 * kernel may delay a sleep's expiry by up to that much to batch wake-ups;
 * 50 us by default) is printed in the header: it is what limits pwait2.
 * --clock has no meaning here (lateness is wall-clock time).
 *
 * Output, one line per timeout:
 *   timeout-precision timeout_us=<T> kevent_median_us= kevent_p99_us=
 *       pwait2_median_us=<|na> pwait2_p99_us= timerfd_median_us= timerfd_p99_us=
 *       epoll_ms_median_us= epoll_ms_p99_us= kevent_timer_median_us=
 *       kevent_timer_p99_us= kevent_minus_pwait2_us= kevent_minus_timerfd_us=
 *       samples=
 * then
 *   timeout-precision-summary max_kevent_median_us=<over T <= 1 ms>
 *       max_kevent_p99_us= target_median_us=30 slack_ns=
 * Target: kevent median overshoot <= 30 us for
 * every timeout <= 1 ms.
 *
 * Exit: 0 done, 1 a call returned something wrong (or setup failed),
 * 2 bad usage.
 */
#include "bench.h"

#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/timerfd.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441   /* the same number on every architecture */
#endif

enum { C_KEVENT, C_PWAIT2, C_TIMERFD, C_EPOLL_MS, C_KTIMER, NC };
static const char *const cname[NC] = { "kevent", "pwait2", "timerfd", "epoll_ms",
				       "kevent_timer" };

struct waiters {
	int kq;          /* empty kqueue: plain kevent timeouts */
	int kq_timer;    /* kqueue for the EVFILT_TIMER contender */
	int ep;          /* empty epoll set */
	int tep, tfd;    /* epoll set holding the timerfd */
	int has_pwait2;
};

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	return ts;
}

/* One wait of T ns by contender c; returns the wall-clock ns it took. */
static int64_t wait_once(const struct waiters *w, int c, int64_t t_ns)
{
	struct timespec ts = ns_ts(t_ns);
	struct epoll_event ee;
	struct kevent ev;
	int64_t t0 = bench_now_ns();
	int r;
	switch (c) {
	case C_KEVENT:
		r = kevent(w->kq, NULL, 0, &ev, 1, &ts);
		if (r != 0)
			bench_fail("kevent with a %lld ns timeout returned %d (%s)", (long long)t_ns,
				   r, r < 0 ? strerror(errno) : "records");
		break;
	case C_PWAIT2:
		r = (int)syscall(SYS_epoll_pwait2, w->ep, &ee, 1, &ts, NULL, (size_t)8);
		if (r != 0)
			bench_fail("epoll_pwait2 returned %d (%s)", r, r < 0 ? strerror(errno) : "");
		break;
	case C_TIMERFD: {
		struct itimerspec its = { .it_value = ts };
		uint64_t n = 0;
		if (timerfd_settime(w->tfd, 0, &its, NULL) != 0)
			bench_die("timerfd_settime");
		r = epoll_wait(w->tep, &ee, 1, -1);
		if (r != 1 || read(w->tfd, &n, sizeof n) != (ssize_t)sizeof n || n != 1)
			bench_fail("timerfd wait returned %d, %llu expirations", r,
				   (unsigned long long)n);
		break;
	}
	case C_EPOLL_MS: {
		int ms = (int)((t_ns + 999999) / 1000000);
		r = epoll_wait(w->ep, &ee, 1, ms);
		if (r != 0)
			bench_fail("epoll_wait(%d ms) returned %d", ms, r);
		break;
	}
	default: {
		struct kevent ch;
		EV_SET(&ch, 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_NSECONDS, t_ns, NULL);
		r = kevent(w->kq_timer, &ch, 1, &ev, 1, NULL);
		if (r != 1 || ev.filter != EVFILT_TIMER || ev.ident != 1 || ev.data != 1 ||
		    (ev.flags & EV_ERROR))
			bench_fail("EVFILT_TIMER wait returned %d (filter %d ident %lu data %lld "
				   "flags %#x)", r, ev.filter, (unsigned long)ev.ident,
				   (long long)ev.data, ev.flags);
		break;
	}
	}
	return bench_now_ns() - t0;
}

struct stats {
	double med, p99;   /* us */
};

int main(int argc, char **argv)
{
	static const int64_t timeouts_ns[] = { 1000, 10000, 100000, 1000000 };
	enum { NT = sizeof timeouts_ns / sizeof timeouts_ns[0] };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, NULL, NULL);
	long samples = o.per_block ? o.per_block : o.blocks ? o.blocks : o.quick ? 40 : 1000;

	struct waiters w;
	w.kq = kqueue();
	w.kq_timer = kqueue();
	w.ep = epoll_create1(EPOLL_CLOEXEC);
	w.tep = epoll_create1(EPOLL_CLOEXEC);
	w.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (w.kq < 0 || w.kq_timer < 0 || w.ep < 0 || w.tep < 0 || w.tfd < 0)
		bench_die("kqueue/epoll_create1/timerfd_create");
	struct epoll_event ee = { .events = EPOLLIN, .data.fd = w.tfd };
	if (epoll_ctl(w.tep, EPOLL_CTL_ADD, w.tfd, &ee) != 0)
		bench_die("epoll_ctl(ADD timerfd)");
	struct timespec z = { 0, 0 };
	errno = 0;
	w.has_pwait2 = syscall(SYS_epoll_pwait2, w.ep, &ee, 1, &z, NULL, (size_t)8) == 0;

	long slack = bench_timer_slack();
	bench_header("timeout-precision", &o);
	printf("# lateness = wall-clock time of the wait minus the timeout (CLOCK_MONOTONIC); "
	       "%ld samples per timeout and contender, contenders in rotating order; timer "
	       "slack %ld ns; epoll_pwait2 %s\n", samples, slack,
	       w.has_pwait2 ? "available" : "not available (ENOSYS)");
	fflush(stdout);

	int cont[NC], ncont = 0;
	for (int c = 0; c < NC; c++)
		if (c != C_PWAIT2 || w.has_pwait2)
			cont[ncont++] = c;

	double *late[NC];
	for (int c = 0; c < NC; c++)
		late[c] = bench_alloc((size_t)samples, sizeof(double));
	double max_med = 0.0, max_p99 = 0.0;
	for (int t = 0; t < NT; t++) {
		int64_t tn = timeouts_ns[t];
		for (int k = 0; k < ncont; k++)   /* warm-up */
			wait_once(&w, cont[k], tn);
		for (long s = 0; s < samples; s++)
			for (int k = 0; k < ncont; k++) {
				int c = cont[bench_turn(s, k, ncont)];
				late[c][s] = (double)(wait_once(&w, c, tn) - tn) / 1000.0;
			}
		struct stats st[NC];
		char med[NC][24], p99[NC][24];
		for (int c = 0; c < NC; c++) {
			snprintf(med[c], sizeof med[c], "na");
			snprintf(p99[c], sizeof p99[c], "na");
			if (c == C_PWAIT2 && !w.has_pwait2)
				continue;
			st[c].med = bench_median(late[c], (size_t)samples);
			st[c].p99 = bench_quantile(late[c], (size_t)samples, 0.99);
			snprintf(med[c], sizeof med[c], "%.1f", st[c].med);
			snprintf(p99[c], sizeof p99[c], "%.1f", st[c].p99);
		}
		char dp[24];
		snprintf(dp, sizeof dp, "na");
		if (w.has_pwait2)
			snprintf(dp, sizeof dp, "%.1f", st[C_KEVENT].med - st[C_PWAIT2].med);
		printf("timeout-precision timeout_us=%g", tn / 1000.0);
		for (int c = 0; c < NC; c++)
			printf(" %s_median_us=%s %s_p99_us=%s", cname[c], med[c], cname[c], p99[c]);
		printf(" kevent_minus_pwait2_us=%s kevent_minus_timerfd_us=%.1f samples=%ld\n", dp,
		       st[C_KEVENT].med - st[C_TIMERFD].med, samples);
		fflush(stdout);
		if (tn <= 1000000) {
			if (st[C_KEVENT].med > max_med)
				max_med = st[C_KEVENT].med;
			if (st[C_KEVENT].p99 > max_p99)
				max_p99 = st[C_KEVENT].p99;
		}
	}
	printf("timeout-precision-summary max_kevent_median_us=%.1f max_kevent_p99_us=%.1f "
	       "target_median_us=30 slack_ns=%ld\n", max_med, max_p99, slack);
	for (int c = 0; c < NC; c++)
		free(late[c]);
	close(w.kq);
	close(w.kq_timer);
	bench_raw_close(w.ep);
	bench_raw_close(w.tep);
	bench_raw_close(w.tfd);
	return 0;
}
