/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * timers: many EVFILT_TIMER knotes against one timerfd per timer, the way the
 * existing user-space port (libkqueue 2.7) implements them.
 *
 * libkq keeps every timer of a kqueue in a user-space heap and drives them
 * with one timerfd per kqueue; arming or cancelling a timer makes a system
 * call only when the earliest deadline moves earlier.  Three experiments:
 *
 * (a) op=arm-cancel: arm N periodic timers (periods 1-10 s, varied, so none
 *     fires), then cancel them all.  Contenders, same process, blocks
 *     interleaved (the order of the three rotates through all six orders):
 *
 *       kevent    per timer one kevent(kq, &change, 1, NULL, 0, NULL) with
 *                 EV_ADD of EVFILT_TIMER (ident i, data = period in ms),
 *                 later one with EV_DELETE; each must return 0.
 *       timerfd   the port's way, one timerfd per timer:
 *                 arm    = timerfd_create + epoll_ctl(ADD) + timerfd_settime
 *                 cancel = timerfd_settime(0) + epoll_ctl(DEL) + close
 *       settime   context only: one timerfd_settime on a single timerfd per
 *                 arm (nothing per cancel), the syscall floor of one arm.
 *
 *     After the arm phase (untimed) both sets are polled and must report
 *     nothing; after the cancel phase too, and a second EV_DELETE must fail
 *     with ENOENT.  Reported: ns per arm+cancel, speedup = timerfd/kevent
 *     (target >= 5).
 *
 * (b) op=oneshot-fire: arm N one-shot timers whose relative deadlines are
 *     spread over SPREAD_NS (in a shuffled order), then collect them until
 *     all have fired, checking every timer is reported exactly once:
 *
 *       kevent    EV_ADD|EV_ONESHOT, NOTE_NSECONDS; collection
 *                 kevent(kq, NULL, 0, ev, 256, &guard) until N records
 *                 (each ident once, data == 1 expiration, right udata).
 *       timerfd   N one-shot timerfds in one epoll set (create + ADD +
 *                 settime); collection epoll_wait(256) + read() of each
 *                 (must read 1 expiration), then close() of each (a fired
 *                 one-shot timer is finished; libkq frees its knote itself).
 *
 *     The clock is process CPU time by default, so the waiting in between
 *     costs nothing and the figure is the CPU spent arming, being woken and
 *     collecting; with --clock=wall both totals are ~SPREAD_NS plus arming.
 *
 * (c) op=fds: descriptors (counted in /proc/self/fd) and threads (in
 *     /proc/self/task) a first kqueue() creates, and what arming N timers in
 *     it adds (target: O(1); the port needs one fd per timer); also the heap
 *     memory per armed timer (mallinfo2), for information.
 *
 * N is 10,000 (--timers=N); the timerfd contender needs N descriptors at
 * once, within the hard limit of 20,000.  --quick: N = 2,000, few blocks.
 * --only=fds|arm-cancel|oneshot-fire runs one experiment (for profiling).
 *
 * Output lines:
 *   timers op=fds N=<n> kqueue_fds=<a> timer_fds=<b> ...
 *   timers op=arm-cancel N=<n> kevent_ns=<x> timerfd_ns=<y> speedup=<y/x>
 *       settime_floor_ns=<z> ...
 *   timers op=oneshot-fire N=<n> kevent_total_ns=... timerfd_total_ns=...
 *       kevent_per_timer_ns=... timerfd_per_timer_ns=... speedup=... ...
 * (speedup is the ratio of the medians; speedup_paired the median of the
 * per-block ratios.)
 *
 * Exit: 0 done, 1 a record or call result was wrong (or setup failed),
 * 2 bad usage.
 */
#include "bench.h"

#include <dirent.h>
#include <malloc.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>

#define FD_MARGIN   64              /* stdio, epoll sets, the kqueues' own fds */
#define MAX_EVENTS  256
#define PERIOD_MIN_MS 1000          /* (a): 1 .. 10 s, so nothing fires */
#define PERIOD_SPAN_MS 9001
#define FIRST_NS    1000000LL       /* (b): first deadline 1 ms after arming */
#define SPREAD_NS   20000000LL      /* (b): deadlines spread over 20 ms */
#define GUARD_MS    10000           /* (b): a wait that long means lost timers */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* splitmix64: fixed seed, so every run uses the same periods and order. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	return ts;
}

/* The baseline closes with the raw system call: the program is linked with
 * libkq, whose close() first looks the number up in its tables, and that
 * lookup should not be charged to the baseline. */
static void raw_close(int fd)
{
	if (syscall(SYS_close, fd) != 0)
		bench_die("close");
}

/* Entries of a /proc/self directory, not counting "." and "..", nor (for
 * fd/) the descriptor the listing itself holds open. */
static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		bench_die("opendir");
	int n = 0, self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (strcmp(path, "/proc/self/fd") == 0 && atoi(e->d_name) == self)
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* ---- (c) descriptors and threads ---- */

static void measure_fds(int n)
{
	int fds0 = count_dir("/proc/self/fd"), thr0 = count_dir("/proc/self/task");
	int kq = kqueue();
	if (kq < 0)
		bench_die("kqueue");
	int fds1 = count_dir("/proc/self/fd"), thr1 = count_dir("/proc/self/task");

	struct mallinfo2 m0 = mallinfo2();
	for (int i = 0; i < n; i++) {
		struct kevent ch;
		EV_SET(&ch, (uintptr_t)i, EVFILT_TIMER, EV_ADD, 0,
		       PERIOD_MIN_MS + (int64_t)(rng_next() % PERIOD_SPAN_MS), NULL);
		int r = kevent(kq, &ch, 1, NULL, 0, NULL);
		if (r != 0)
			bench_fail("kevent(EV_ADD timer %d) = %d: %s", i, r,
				   r < 0 ? strerror(errno) : "records returned");
	}
	struct mallinfo2 m1 = mallinfo2();
	int fds2 = count_dir("/proc/self/fd"), thr2 = count_dir("/proc/self/task");

	static const struct timespec zero = { 0, 0 };
	struct kevent ev[8];
	int r = kevent(kq, NULL, 0, ev, 8, &zero);
	if (r != 0)
		bench_fail("kevent poll with %d armed 1-10 s timers returned %d (want 0)", n, r);
	close(kq);
	int fds3 = count_dir("/proc/self/fd"), thr3 = count_dir("/proc/self/task");
	if (fds3 != fds0)
		bench_fail("closing the kqueue left %d descriptors behind", fds3 - fds0);

	double bytes = ((double)m1.uordblks - (double)m0.uordblks) / n;
	printf("timers op=fds N=%d kqueue_fds=%d timer_fds=%d baseline_timer_fds=%d "
	       "kqueue_threads=%d timer_threads=%d heap_bytes_per_timer=%.1f "
	       "fds_after_close=%d threads_after_close=%d\n",
	       n, fds1 - fds0, fds2 - fds1, n, thr1 - thr0, thr2 - thr1, bytes,
	       fds3 - fds0, thr3 - thr0);
	fflush(stdout);
}

/* ---- (a) arm + cancel ---- */

struct armcancel {
	int n;
	int64_t *period_ms;   /* per timer */
	int *fd;              /* timerfd contender: one per timer */
	int ep;               /* its epoll set */
	int kq;
	int floor_tfd;        /* settime contender: the single timerfd */
};

enum { C_KEVENT, C_TIMERFD, C_SETTIME, NCONT };

struct ac_times {
	double arm, cancel;   /* ns per timer */
};

static void check_epoll_empty(int ep, const char *when)
{
	struct epoll_event evs[8];
	int r = epoll_wait(ep, evs, 8, 0);
	if (r != 0)
		bench_fail("epoll_wait after %s returned %d (want 0)", when, r);
}

static void check_kq_empty(int kq, const char *when)
{
	static const struct timespec zero = { 0, 0 };
	struct kevent ev[8];
	int r = kevent(kq, NULL, 0, ev, 8, &zero);
	if (r != 0)
		bench_fail("kevent poll after %s returned %d (%s; first ident %lu filter %d "
			   "flags %#x data %lld); want 0", when, r,
			   r < 0 ? strerror(errno) : "records",
			   r > 0 ? (unsigned long)ev[0].ident : 0UL, r > 0 ? ev[0].filter : 0,
			   r > 0 ? ev[0].flags : 0, r > 0 ? (long long)ev[0].data : 0LL);
}

static struct ac_times ac_kevent(struct armcancel *s)
{
	struct ac_times t;
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		struct kevent ch;
		EV_SET(&ch, (uintptr_t)i, EVFILT_TIMER, EV_ADD, 0, s->period_ms[i],
		       (void *)(uintptr_t)(i + 1));
		int r = kevent(s->kq, &ch, 1, NULL, 0, NULL);
		if (__builtin_expect(r != 0, 0))
			bench_fail("kevent(EV_ADD timer %d) = %d: %s", i, r,
				   r < 0 ? strerror(errno) : "records returned");
	}
	int64_t t1 = bench_clock_ns();
	check_kq_empty(s->kq, "arming 1-10 s timers");
	int64_t t2 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		struct kevent ch;
		EV_SET(&ch, (uintptr_t)i, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
		int r = kevent(s->kq, &ch, 1, NULL, 0, NULL);
		if (__builtin_expect(r != 0, 0))
			bench_fail("kevent(EV_DELETE timer %d) = %d: %s", i, r,
				   r < 0 ? strerror(errno) : "records returned");
	}
	int64_t t3 = bench_clock_ns();
	struct kevent ch;
	EV_SET(&ch, 0, EVFILT_TIMER, EV_DELETE, 0, 0, NULL);
	if (kevent(s->kq, &ch, 1, NULL, 0, NULL) != -1 || errno != ENOENT)
		bench_fail("a second EV_DELETE of timer 0 did not fail with ENOENT");
	check_kq_empty(s->kq, "cancelling every timer");
	t.arm = (double)(t1 - t0) / s->n;
	t.cancel = (double)(t3 - t2) / s->n;
	return t;
}

static struct ac_times ac_timerfd(struct armcancel *s)
{
	struct ac_times t;
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (__builtin_expect(fd < 0, 0))
			bench_die("timerfd_create");
		struct epoll_event ee = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
		if (__builtin_expect(epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ee) != 0, 0))
			bench_die("epoll_ctl(ADD)");
		struct timespec p = ns_to_ts(s->period_ms[i] * 1000000);
		struct itimerspec its = { .it_interval = p, .it_value = p };
		if (__builtin_expect(timerfd_settime(fd, 0, &its, NULL) != 0, 0))
			bench_die("timerfd_settime");
		s->fd[i] = fd;
	}
	int64_t t1 = bench_clock_ns();
	check_epoll_empty(s->ep, "arming 1-10 s timerfds");
	int64_t t2 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		static const struct itimerspec off;
		if (__builtin_expect(timerfd_settime(s->fd[i], 0, &off, NULL) != 0, 0))
			bench_die("timerfd_settime(disarm)");
		if (__builtin_expect(epoll_ctl(s->ep, EPOLL_CTL_DEL, s->fd[i], NULL) != 0, 0))
			bench_die("epoll_ctl(DEL)");
		raw_close(s->fd[i]);
	}
	int64_t t3 = bench_clock_ns();
	check_epoll_empty(s->ep, "cancelling every timerfd");
	t.arm = (double)(t1 - t0) / s->n;
	t.cancel = (double)(t3 - t2) / s->n;
	return t;
}

static struct ac_times ac_settime(struct armcancel *s)
{
	struct ac_times t;
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		struct timespec p = ns_to_ts(s->period_ms[i] * 1000000);
		struct itimerspec its = { .it_interval = p, .it_value = p };
		if (__builtin_expect(timerfd_settime(s->floor_tfd, 0, &its, NULL) != 0, 0))
			bench_die("timerfd_settime");
	}
	int64_t t1 = bench_clock_ns();
	static const struct itimerspec off;
	if (timerfd_settime(s->floor_tfd, 0, &off, NULL) != 0)
		bench_die("timerfd_settime(disarm)");
	t.arm = (double)(t1 - t0) / s->n;
	t.cancel = 0.0;
	return t;
}

static struct ac_times ac_run(struct armcancel *s, int c)
{
	switch (c) {
	case C_KEVENT:
		return ac_kevent(s);
	case C_TIMERFD:
		return ac_timerfd(s);
	default:
		return ac_settime(s);
	}
}

static void measure_arm_cancel(int n, long blocks)
{
	/* The six orders of the three contenders, taken in turn. */
	static const int orders[6][NCONT] = {
		{ 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 0, 2, 1 }, { 2, 1, 0 }, { 1, 0, 2 },
	};
	struct armcancel s = { .n = n };
	s.period_ms = calloc((size_t)n, sizeof *s.period_ms);
	s.fd = calloc((size_t)n, sizeof *s.fd);
	if (!s.period_ms || !s.fd)
		bench_die("calloc");
	for (int i = 0; i < n; i++)
		s.period_ms[i] = PERIOD_MIN_MS + (int64_t)(rng_next() % PERIOD_SPAN_MS);
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (s.ep < 0)
		bench_die("epoll_create1");
	s.kq = kqueue();
	if (s.kq < 0)
		bench_die("kqueue");
	s.floor_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s.floor_tfd < 0)
		bench_die("timerfd_create");

	double *arm[NCONT], *cancel[NCONT], *pair = calloc((size_t)blocks, sizeof *pair);
	if (!pair)
		bench_die("calloc");
	for (int c = 0; c < NCONT; c++) {
		arm[c] = calloc((size_t)blocks, sizeof(double));
		cancel[c] = calloc((size_t)blocks, sizeof(double));
		if (!arm[c] || !cancel[c])
			bench_die("calloc");
	}

	for (int c = 0; c < NCONT; c++)   /* warm-up, not recorded */
		ac_run(&s, c);
	for (long b = 0; b < blocks; b++) {
		for (int k = 0; k < NCONT; k++) {
			int c = orders[b % 6][k];
			struct ac_times t = ac_run(&s, c);
			arm[c][b] = t.arm;
			cancel[c][b] = t.cancel;
		}
		pair[b] = (arm[C_TIMERFD][b] + cancel[C_TIMERFD][b]) /
			  (arm[C_KEVENT][b] + cancel[C_KEVENT][b]);
	}

	double *sum[NCONT];   /* per-block arm+cancel, for the medians */
	for (int c = 0; c < NCONT; c++) {
		sum[c] = calloc((size_t)blocks, sizeof(double));
		if (!sum[c])
			bench_die("calloc");
		for (long b = 0; b < blocks; b++)
			sum[c][b] = arm[c][b] + cancel[c][b];
	}
	size_t nb = (size_t)blocks;
	double kv = bench_median(sum[C_KEVENT], nb), tf = bench_median(sum[C_TIMERFD], nb);
	double fl = bench_median(arm[C_SETTIME], nb);
	double kv_arm = bench_median(arm[C_KEVENT], nb);
	printf("timers op=arm-cancel N=%d kevent_ns=%.1f timerfd_ns=%.1f speedup=%.2f "
	       "speedup_paired=%.2f settime_floor_ns=%.1f kevent_arm_ns=%.1f "
	       "kevent_cancel_ns=%.1f timerfd_arm_ns=%.1f timerfd_cancel_ns=%.1f "
	       "kevent_arm_vs_settime=%.3f kevent_iqr_pct=%.1f timerfd_iqr_pct=%.1f "
	       "settime_iqr_pct=%.1f blocks=%ld\n",
	       n, kv, tf, tf / kv, bench_median(pair, nb), fl, kv_arm,
	       bench_median(cancel[C_KEVENT], nb), bench_median(arm[C_TIMERFD], nb),
	       bench_median(cancel[C_TIMERFD], nb), kv_arm / fl,
	       bench_iqr_pct(sum[C_KEVENT], nb), bench_iqr_pct(sum[C_TIMERFD], nb),
	       bench_iqr_pct(arm[C_SETTIME], nb), blocks);
	fflush(stdout);

	for (int c = 0; c < NCONT; c++) {
		free(arm[c]);
		free(cancel[c]);
		free(sum[c]);
	}
	free(pair);
	raw_close(s.floor_tfd);
	close(s.kq);
	raw_close(s.ep);
	free(s.period_ms);
	free(s.fd);
}

/* ---- (b) one-shot timers firing ---- */

struct oneshot {
	int n;
	int64_t *off_ns;      /* relative deadline of timer i */
	int *order;           /* arming order (a shuffle of 0..n-1) */
	unsigned char *seen;
	int *fd;              /* timerfd contender */
	int ep, kq;
};

struct os_times {
	double arm, collect, close;   /* ns, whole round */
	double wall;                  /* ns from the first arm to the last record */
	int waits;                    /* kevent / epoll_wait calls that returned records */
};

static void os_check_seen(const struct oneshot *s, const char *who)
{
	for (int i = 0; i < s->n; i++)
		if (!s->seen[i])
			bench_fail("%s: timer %d was never reported", who, i);
}

static struct os_times os_kevent(struct oneshot *s)
{
	static const struct timespec guard = { GUARD_MS / 1000, 0 };
	struct os_times t = { 0 };
	struct kevent ev[MAX_EVENTS];
	memset(s->seen, 0, (size_t)s->n);

	int64_t w0 = bench_now_ns(), t0 = bench_clock_ns();
	for (int k = 0; k < s->n; k++) {
		int i = s->order[k];
		struct kevent ch;
		EV_SET(&ch, (uintptr_t)i, EVFILT_TIMER, EV_ADD | EV_ONESHOT, NOTE_NSECONDS,
		       s->off_ns[i], (void *)(uintptr_t)(i + 1));
		int r = kevent(s->kq, &ch, 1, NULL, 0, NULL);
		if (__builtin_expect(r != 0, 0))
			bench_fail("kevent(EV_ADD|EV_ONESHOT timer %d) = %d: %s", i, r,
				   r < 0 ? strerror(errno) : "records returned");
	}
	int64_t t1 = bench_clock_ns();
	int got = 0;
	while (got < s->n) {
		int r = kevent(s->kq, NULL, 0, ev, MAX_EVENTS, &guard);
		if (r <= 0)
			bench_fail("kevent wait returned %d (%s) with %d of %d timers collected",
				   r, r < 0 ? strerror(errno) : "guard timeout", got, s->n);
		t.waits++;
		for (int j = 0; j < r; j++) {
			uintptr_t id = ev[j].ident;
			if (__builtin_expect(id >= (uintptr_t)s->n || s->seen[id] ||
					     ev[j].filter != EVFILT_TIMER || ev[j].data != 1 ||
					     (ev[j].flags & EV_ERROR) || !(ev[j].flags & EV_ONESHOT) ||
					     ev[j].udata != (void *)(id + 1), 0))
				bench_fail("kevent record: ident %lu (%s) filter %d flags %#x "
					   "data %lld udata %p; want a timer < %d seen once, "
					   "data 1, EV_ONESHOT", (unsigned long)id,
					   id < (uintptr_t)s->n && s->seen[id] ? "seen before" : "new",
					   ev[j].filter, ev[j].flags, (long long)ev[j].data,
					   ev[j].udata, s->n);
			s->seen[id] = 1;
		}
		got += r;
	}
	int64_t t2 = bench_clock_ns(), w1 = bench_now_ns();
	os_check_seen(s, "kevent");
	check_kq_empty(s->kq, "collecting every one-shot timer");
	t.arm = (double)(t1 - t0);
	t.collect = (double)(t2 - t1);
	t.close = 0.0;
	t.wall = (double)(w1 - w0);
	return t;
}

static struct os_times os_timerfd(struct oneshot *s)
{
	struct os_times t = { 0 };
	struct epoll_event evs[MAX_EVENTS];
	memset(s->seen, 0, (size_t)s->n);

	int64_t w0 = bench_now_ns(), t0 = bench_clock_ns();
	for (int k = 0; k < s->n; k++) {
		int i = s->order[k];
		int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (__builtin_expect(fd < 0, 0))
			bench_die("timerfd_create");
		struct epoll_event ee = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
		if (__builtin_expect(epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ee) != 0, 0))
			bench_die("epoll_ctl(ADD)");
		struct itimerspec its = { .it_value = ns_to_ts(s->off_ns[i]) };
		if (__builtin_expect(timerfd_settime(fd, 0, &its, NULL) != 0, 0))
			bench_die("timerfd_settime");
		s->fd[i] = fd;
	}
	int64_t t1 = bench_clock_ns();
	int got = 0;
	while (got < s->n) {
		int r = epoll_wait(s->ep, evs, MAX_EVENTS, GUARD_MS);
		if (r <= 0)
			bench_fail("epoll_wait returned %d (%s) with %d of %d timerfds collected",
				   r, r < 0 ? strerror(errno) : "guard timeout", got, s->n);
		t.waits++;
		for (int j = 0; j < r; j++) {
			uint32_t id = evs[j].data.u32;
			uint64_t exp = 0;
			if (__builtin_expect(id >= (uint32_t)s->n || s->seen[id], 0))
				bench_fail("epoll record for timerfd %u (%s)", id,
					   id < (uint32_t)s->n ? "seen before" : "unknown");
			ssize_t rd = read(s->fd[id], &exp, sizeof exp);
			if (__builtin_expect(rd != (ssize_t)sizeof exp || exp != 1, 0))
				bench_fail("read(timerfd %u) = %zd, %llu expirations (want 8, 1)",
					   id, rd, (unsigned long long)exp);
			s->seen[id] = 1;
		}
		got += r;
	}
	int64_t t2 = bench_clock_ns(), w1 = bench_now_ns();
	for (int i = 0; i < s->n; i++)
		raw_close(s->fd[i]);
	int64_t t3 = bench_clock_ns();
	os_check_seen(s, "timerfd");
	check_epoll_empty(s->ep, "collecting and closing every timerfd");
	t.arm = (double)(t1 - t0);
	t.collect = (double)(t2 - t1);
	t.close = (double)(t3 - t2);
	t.wall = (double)(w1 - w0);
	return t;
}

static void measure_oneshot(int n, long blocks)
{
	struct oneshot s = { .n = n };
	s.off_ns = calloc((size_t)n, sizeof *s.off_ns);
	s.order = calloc((size_t)n, sizeof *s.order);
	s.seen = calloc((size_t)n, 1);
	s.fd = calloc((size_t)n, sizeof *s.fd);
	if (!s.off_ns || !s.order || !s.seen || !s.fd)
		bench_die("calloc");
	/* Timer i fires FIRST_NS + i/n of the spread after it is armed; the
	 * arming order is shuffled so the heap sees no sorted input. */
	for (int i = 0; i < n; i++) {
		s.off_ns[i] = FIRST_NS + SPREAD_NS * i / n;
		s.order[i] = i;
	}
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(rng_next() % (uint64_t)(i + 1));
		int x = s.order[i];
		s.order[i] = s.order[j];
		s.order[j] = x;
	}
	s.ep = epoll_create1(EPOLL_CLOEXEC);
	if (s.ep < 0)
		bench_die("epoll_create1");
	s.kq = kqueue();
	if (s.kq < 0)
		bench_die("kqueue");

	size_t nb = (size_t)blocks;
	double *kt = calloc(nb, sizeof *kt), *ft = calloc(nb, sizeof *ft);
	double *ka = calloc(nb, sizeof *ka), *kc = calloc(nb, sizeof *kc);
	double *fa = calloc(nb, sizeof *fa), *fc = calloc(nb, sizeof *fc);
	double *fx = calloc(nb, sizeof *fx), *pair = calloc(nb, sizeof *pair);
	double *kw = calloc(nb, sizeof *kw), *fw = calloc(nb, sizeof *fw);
	double *kn = calloc(nb, sizeof *kn), *fn = calloc(nb, sizeof *fn);
	if (!kt || !ft || !ka || !kc || !fa || !fc || !fx || !pair || !kw || !fw || !kn || !fn)
		bench_die("calloc");

	os_kevent(&s);   /* warm-up, not recorded */
	os_timerfd(&s);
	for (size_t b = 0; b < nb; b++) {
		struct os_times k, f;
		if (b % 2 == 0) {
			k = os_kevent(&s);
			f = os_timerfd(&s);
		} else {
			f = os_timerfd(&s);
			k = os_kevent(&s);
		}
		kt[b] = k.arm + k.collect + k.close;
		ft[b] = f.arm + f.collect + f.close;
		ka[b] = k.arm / n;
		kc[b] = k.collect / n;
		fa[b] = f.arm / n;
		fc[b] = f.collect / n;
		fx[b] = f.close / n;
		kw[b] = k.wall;
		fw[b] = f.wall;
		kn[b] = k.waits;
		fn[b] = f.waits;
		pair[b] = ft[b] / kt[b];
	}
	double kmed = bench_median(kt, nb), fmed = bench_median(ft, nb);
	printf("timers op=oneshot-fire N=%d kevent_total_ns=%.0f timerfd_total_ns=%.0f "
	       "kevent_per_timer_ns=%.1f timerfd_per_timer_ns=%.1f speedup=%.2f "
	       "speedup_paired=%.2f kevent_arm_ns=%.1f kevent_collect_ns=%.1f "
	       "timerfd_arm_ns=%.1f timerfd_collect_ns=%.1f timerfd_close_ns=%.1f "
	       "kevent_wall_ms=%.2f timerfd_wall_ms=%.2f kevent_waits=%.0f "
	       "epoll_waits=%.0f kevent_iqr_pct=%.1f timerfd_iqr_pct=%.1f "
	       "spread_ms=%.0f blocks=%ld\n",
	       n, kmed, fmed, kmed / n, fmed / n, fmed / kmed, bench_median(pair, nb),
	       bench_median(ka, nb), bench_median(kc, nb), bench_median(fa, nb),
	       bench_median(fc, nb), bench_median(fx, nb), bench_median(kw, nb) / 1e6,
	       bench_median(fw, nb) / 1e6, bench_median(kn, nb), bench_median(fn, nb),
	       bench_iqr_pct(kt, nb), bench_iqr_pct(ft, nb), SPREAD_NS / 1e6, blocks);
	fflush(stdout);

	free(kt); free(ft); free(ka); free(kc); free(fa); free(fc);
	free(fx); free(pair); free(kw); free(fw); free(kn); free(fn);
	close(s.kq);
	raw_close(s.ep);
	free(s.off_ns);
	free(s.order);
	free(s.seen);
	free(s.fd);
}

static long opt_timers;   /* --timers=N; 0: the mode's default */
enum { PART_FDS = 1, PART_ARM_CANCEL = 2, PART_ONESHOT = 4, PART_ALL = 7 };
static int opt_parts = PART_ALL;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--timers=", 9) == 0)
		opt_timers = bench_parse_long("--timers", a + 9);
	else if (strcmp(a, "--only=fds") == 0)
		opt_parts = PART_FDS;
	else if (strcmp(a, "--only=arm-cancel") == 0)
		opt_parts = PART_ARM_CANCEL;
	else if (strcmp(a, "--only=oneshot-fire") == 0)
		opt_parts = PART_ONESHOT;
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra,
			 "[--timers=N] [--only=fds|arm-cancel|oneshot-fire]");
	long n = opt_timers ? opt_timers : o.quick ? 2000 : 10000;
	/* --blocks sets both experiments; --per-block has no meaning here (the
	 * work per block is N timers). */
	long ac_blocks = o.blocks ? o.blocks : o.quick ? 3 : 30;
	long os_blocks = o.blocks ? o.blocks : o.quick ? 2 : 15;

	long limit = bench_raise_nofile();
	if (n + FD_MARGIN > limit) {
		printf("# %ld timers need %ld descriptors for the timerfd baseline; the limit "
		       "is %ld, using N=%ld\n", n, n + FD_MARGIN, limit, limit - FD_MARGIN);
		n = limit - FD_MARGIN;
	}
	if (n > INT32_MAX / 2)
		n = INT32_MAX / 2;
	bench_header("timers", &o);
	printf("# N=%ld timers; fd limit %ld; arm-cancel: periods 1-10 s, median of %ld "
	       "blocks, three contenders rotating; oneshot-fire: deadlines %.0f-%.0f ms after "
	       "arming, median of %ld blocks, contenders alternating\n",
	       n, limit, ac_blocks, FIRST_NS / 1e6, (FIRST_NS + SPREAD_NS) / 1e6, os_blocks);
	fflush(stdout);

	if (opt_parts & PART_FDS)   /* first: it counts what the first kqueue() creates */
		measure_fds((int)n);
	if (opt_parts & PART_ARM_CANCEL)
		measure_arm_cancel((int)n, ac_blocks);
	if (opt_parts & PART_ONESHOT)
		measure_oneshot((int)n, os_blocks);
	return 0;
}
