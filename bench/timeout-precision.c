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
 *       kevent_cpu_pct= pwait2_cpu_pct=<|na> timerfd_cpu_pct= kevent_cpu_us=
 *       timerfd_cpu_us= samples=
 * then
 *   timeout-precision-summary max_kevent_median_us=<over T <= 1 ms>
 *       max_kevent_p99_us= max_kevent_cpu_pct=<over 100 us <= T <= 1 ms>
 *       target_median_us=30 target_cpu_pct=25 slack_ns=
 * The CPU share is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID: user and
 * system) during a contender's waits over their wall-clock time: 100% is a
 * wait that polled throughout, a few percent one that slept; *_cpu_us is
 * the CPU time per wait.
 * Targets: for every timeout <= 1 ms, kevent's median overshoot <= 30 us;
 * for those from 100 us (see SLEEPABLE_NS), its CPU share <= 25%.
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

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* What reading the two clocks around a wait costs the thread by itself
 * (reading the thread's CPU clock is a system call): subtracted from each
 * sample's CPU time. */
static int64_t clock_cost_ns;

static void measure_clock_cost(void)
{
	enum { N = 201 };
	double d[N];
	for (int i = 0; i < N; i++) {
		int64_t c0 = thread_cpu_ns();
		int64_t t0 = bench_now_ns();
		int64_t t1 = bench_now_ns();
		(void)t1, (void)t0;
		d[i] = (double)(thread_cpu_ns() - c0);
	}
	clock_cost_ns = (int64_t)bench_median(d, N);
}

/* One wait of T ns by contender c; returns the wall-clock ns it took and
 * adds the CPU time this thread spent in it (user + system) to *cpu. */
static int64_t wait_once(const struct waiters *w, int c, int64_t t_ns, int64_t *cpu)
{
	struct timespec ts = ns_ts(t_ns);
	struct epoll_event ee;
	struct kevent ev;
	int64_t c0 = thread_cpu_ns();
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
	int64_t wall = bench_now_ns() - t0;
	int64_t used = thread_cpu_ns() - c0 - clock_cost_ns;
	*cpu += used > 0 ? used : 0;
	return wall;
}

/* CPU share of a contender's waits, or "na" when it did not run. */
static const char *pct(int64_t cpu, int64_t wall)
{
	static char buf[24];
	if (wall <= 0)
		return "na";
	snprintf(buf, sizeof buf, "%.1f", 100.0 * (double)cpu / (double)wall);
	return buf;
}

/* Timeouts from this one up are long enough for a wait to sleep through
 * most of them; the CPU target applies to those.  A shorter one is less
 * than a sleep's own wake-up latency (some 15-25 us here), so no wait that
 * ends on time can be idle through it: kevent polls it, and the
 * *_cpu_us figures show what that costs next to a timerfd's sleep. */
#define SLEEPABLE_NS 100000

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
	measure_clock_cost();
	bench_header("timeout-precision", &o);
	printf("# lateness = wall-clock time of the wait minus the timeout (CLOCK_MONOTONIC); "
	       "%ld samples per timeout and contender, contenders in rotating order; timer "
	       "slack %ld ns; epoll_pwait2 %s\n", samples, slack,
	       w.has_pwait2 ? "available" : "not available (ENOSYS)");
	printf("# CPU share: the thread's CPU time in the waits over their wall-clock time, less "
	       "%lld ns per wait that reading the clocks costs\n", (long long)clock_cost_ns);
	fflush(stdout);

	int cont[NC], ncont = 0;
	for (int c = 0; c < NC; c++)
		if (c != C_PWAIT2 || w.has_pwait2)
			cont[ncont++] = c;

	double *late[NC];
	for (int c = 0; c < NC; c++)
		late[c] = bench_alloc((size_t)samples, sizeof(double));
	double max_med = 0.0, max_p99 = 0.0, max_cpu = 0.0;
	for (int t = 0; t < NT; t++) {
		int64_t tn = timeouts_ns[t];
		int64_t cpu[NC] = { 0 }, wall[NC] = { 0 }, spare = 0;
		for (int k = 0; k < ncont; k++)   /* warm-up */
			wait_once(&w, cont[k], tn, &spare);
		for (long s = 0; s < samples; s++)
			for (int k = 0; k < ncont; k++) {
				int c = cont[bench_turn(s, k, ncont)];
				int64_t d = wait_once(&w, c, tn, &cpu[c]);
				wall[c] += d;
				late[c][s] = (double)(d - tn) / 1000.0;
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
		double kcpu = 100.0 * (double)cpu[C_KEVENT] / (double)wall[C_KEVENT];
		printf(" kevent_minus_pwait2_us=%s kevent_minus_timerfd_us=%.1f kevent_cpu_pct=%.1f"
		       " pwait2_cpu_pct=%s timerfd_cpu_pct=%.1f kevent_cpu_us=%.1f"
		       " timerfd_cpu_us=%.1f samples=%ld\n", dp,
		       st[C_KEVENT].med - st[C_TIMERFD].med, kcpu, pct(cpu[C_PWAIT2], wall[C_PWAIT2]),
		       100.0 * (double)cpu[C_TIMERFD] / (double)wall[C_TIMERFD],
		       (double)cpu[C_KEVENT] / 1000.0 / (double)samples,
		       (double)cpu[C_TIMERFD] / 1000.0 / (double)samples, samples);
		fflush(stdout);
		if (tn <= 1000000) {
			if (st[C_KEVENT].med > max_med)
				max_med = st[C_KEVENT].med;
			if (st[C_KEVENT].p99 > max_p99)
				max_p99 = st[C_KEVENT].p99;
			if (tn >= SLEEPABLE_NS && kcpu > max_cpu)
				max_cpu = kcpu;
		}
	}
	printf("timeout-precision-summary max_kevent_median_us=%.1f max_kevent_p99_us=%.1f "
	       "max_kevent_cpu_pct=%.1f target_median_us=30 target_cpu_pct=25 slack_ns=%ld\n",
	       max_med, max_p99, max_cpu, slack);
	for (int c = 0; c < NC; c++)
		free(late[c]);
	close(w.kq);
	close(w.kq_timer);
	bench_raw_close(w.ep);
	bench_raw_close(w.tep);
	bench_raw_close(w.tfd);
	return 0;
}
