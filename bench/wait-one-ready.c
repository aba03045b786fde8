/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wait-one-ready: a kevent() wait with 1 of N registered descriptors ready.
 *
 * The ready descriptor is the read end of a pipe holding READY_BYTES bytes
 * that are never read; it sits in the middle of the registration order.  The
 * other N - 1 descriptors are idle:
 *
 *   idle=eventfd  eventfds with counter 0 (not readable; 1 fd each).  This is
 *                 the headline: with the hard limit of 20,000 fds per process
 *                 it reaches N = 19,000.
 *   idle=pipe     pipe read ends whose write end stays open and empty (2 fds
 *                 each), so N stops near 10,000.
 *
 * Contenders, same process, same descriptors, alternating blocks:
 *
 *   epoll   an epoll set with the N descriptors, level-triggered EPOLLIN;
 *           one call = epoll_wait(ep, evs, 64, 0) returning the ready pipe
 *           + one ioctl(FIONREAD) on it: the floor for BSD's exact `data`.
 *   kevent  a kqueue with the N descriptors, EVFILT_READ, no flags;
 *           one call = kevent(kq, NULL, 0, ev, 64, &zero) returning one record,
 *           checked to be the ready pipe with data == READY_BYTES.
 *
 * --timeout-ms=T makes both calls waits of T ms (epoll_wait(ep, evs, M, T),
 * kevent() with that timeout), which return at once for the ready pipe:
 * kevent() then takes its waiting path (the sleep as the consumer) rather
 * than the poll, and the figure is what that path costs around the system
 * call.  --events=M is the room both calls give (64; at most 1024, what
 * libuv asks).
 *
 * Output, one line per (idle kind, N):
 *   wait-one-ready N=<n> epoll_ns=<x> kevent_ns=<y> ratio=<y/x> idle=<kind> ...
 * (ratio is the ratio of the two medians; ratio_paired, the median of the
 * per-block ratios, is the steadier figure when the machine is busy), then
 * per idle kind
 *   wait-one-ready-summary idle=<kind> max_ratio=<r> max_ratio_N=<n>
 *       flatness=<kevent_ns(largest N) / kevent_ns(N=1)> largest_N=<n> ...
 * Target: ratio <= 1.05 and flat in N.
 * --n=LIST measures those N only (bench/report.sh --headline: 1,1000,19000).
 *
 * Exit: 0 done, 1 a returned event was wrong (or setup failed), 2 bad usage.
 */
#include "bench.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>

#define READY_BYTES 7
#define FD_MARGIN 64     /* stdio, the epoll set, the kqueue's own fds, slack */
#define MAX_EVENTS 1024
static int opt_events = 64;      /* --events */
static int opt_timeout_ms;       /* --timeout-ms: 0 polls */

enum idle_kind { IDLE_EVENTFD, IDLE_PIPE };
static const char *const idle_name[] = { "eventfd", "pipe" };

struct setup {
	int n;              /* registered descriptors, the ready one included */
	enum idle_kind kind;
	int rd, wr;         /* the ready pipe */
	int nidle;
	int *idle;          /* idle descriptors (registered) */
	int *idle_wr;       /* pipe variant: their write ends (kept open) */
	int ep, kq;
};

/* Registration order: idle[0 .. h), the ready pipe, idle[h .. nidle). */
static int order_fd(const struct setup *s, int i)
{
	int h = s->nidle / 2;
	if (i < h)
		return s->idle[i];
	if (i == h)
		return s->rd;
	return s->idle[i - 1];
}

static void setup_create(struct setup *s, int n, enum idle_kind kind)
{
	int p[2];
	memset(s, 0, sizeof *s);
	s->n = n;
	s->kind = kind;
	s->nidle = n - 1;
	if (pipe2(p, O_CLOEXEC) != 0)
		bench_die("pipe2 (ready)");
	s->rd = p[0];
	s->wr = p[1];
	if (write(s->wr, "0123456789", READY_BYTES) != READY_BYTES)
		bench_die("write (ready pipe)");

	s->idle = calloc((size_t)n, sizeof *s->idle);
	s->idle_wr = calloc((size_t)n, sizeof *s->idle_wr);
	if (!s->idle || !s->idle_wr)
		bench_die("calloc");
	for (int i = 0; i < s->nidle; i++) {
		if (kind == IDLE_EVENTFD) {
			s->idle[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
			if (s->idle[i] < 0)
				bench_die("eventfd (idle)");
			s->idle_wr[i] = -1;
		} else {
			if (pipe2(p, O_CLOEXEC) != 0)
				bench_die("pipe2 (idle)");
			s->idle[i] = p[0];
			s->idle_wr[i] = p[1];
		}
	}

	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		bench_die("epoll_create1");
	s->kq = kqueue();
	if (s->kq < 0)
		bench_die("kqueue");

	struct kevent chg[128];
	int k = 0;
	for (int i = 0; i < n; i++) {
		int fd = order_fd(s, i);
		struct epoll_event ee = { .events = EPOLLIN, .data.fd = fd };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ee) != 0)
			bench_die("epoll_ctl(ADD)");
		EV_SET(&chg[k], fd, EVFILT_READ, EV_ADD, 0, 0, (void *)(uintptr_t)fd);
		if (++k == (int)(sizeof chg / sizeof chg[0]) || i == n - 1) {
			int r = kevent(s->kq, chg, k, NULL, 0, NULL);
			if (r != 0)
				bench_fail("kevent(EV_ADD x%d) = %d (%s) at N=%d", k, r,
					   r < 0 ? strerror(errno) : "records returned", n);
			k = 0;
		}
	}
}

static void setup_destroy(struct setup *s)
{
	close(s->kq);
	close(s->ep);
	for (int i = 0; i < s->nidle; i++) {
		close(s->idle[i]);
		if (s->idle_wr[i] >= 0)
			close(s->idle_wr[i]);
	}
	close(s->rd);
	close(s->wr);
	free(s->idle);
	free(s->idle_wr);
}

/* ns per call of epoll_wait + FIONREAD over `calls` calls. */
static double run_epoll(const struct setup *s, long calls)
{
	struct epoll_event evs[MAX_EVENTS];
	int64_t t0 = bench_clock_ns();
	for (long i = 0; i < calls; i++) {
		int r = epoll_wait(s->ep, evs, opt_events, opt_timeout_ms);
		if (__builtin_expect(r != 1 || evs[0].data.fd != s->rd, 0))
			bench_fail("epoll_wait returned %d, fd %d (want 1, fd %d) at N=%d",
				   r, r > 0 ? evs[0].data.fd : -1, s->rd, s->n);
		int avail = -1;
		if (__builtin_expect(ioctl(evs[0].data.fd, FIONREAD, &avail) != 0 ||
				     avail != READY_BYTES, 0))
			bench_fail("FIONREAD gave %d (want %d)", avail, READY_BYTES);
	}
	return (double)(bench_clock_ns() - t0) / (double)calls;
}

/* ns per call of kevent() collecting the one ready record. */
static double run_kevent(const struct setup *s, long calls)
{
	const struct timespec ts = { opt_timeout_ms / 1000, (long)(opt_timeout_ms % 1000) * 1000000 };
	struct kevent ev[MAX_EVENTS];
	int64_t t0 = bench_clock_ns();
	for (long i = 0; i < calls; i++) {
		int r = kevent(s->kq, NULL, 0, ev, opt_events, &ts);
		if (__builtin_expect(r != 1 || ev[0].ident != (uintptr_t)s->rd ||
				     ev[0].filter != EVFILT_READ ||
				     ev[0].data != READY_BYTES ||
				     (ev[0].flags & (EV_EOF | EV_ERROR)) ||
				     ev[0].udata != (void *)(uintptr_t)s->rd, 0)) {
			if (r < 0)
				bench_fail("kevent: %s at N=%d", strerror(errno), s->n);
			bench_fail("kevent returned %d; first: ident %lu filter %d flags %#x "
				   "data %lld (want 1: ident %d filter %d data %d) at N=%d",
				   r, r > 0 ? (unsigned long)ev[0].ident : 0UL,
				   r > 0 ? ev[0].filter : 0, r > 0 ? ev[0].flags : 0,
				   r > 0 ? (long long)ev[0].data : 0LL, s->rd, EVFILT_READ,
				   READY_BYTES, s->n);
		}
	}
	return (double)(bench_clock_ns() - t0) / (double)calls;
}

struct result {
	int n;
	double epoll_ns, kevent_ns;   /* medians over the blocks */
	double ratio_paired;          /* median over the blocks of kevent/epoll */
};

static struct result measure(int n, enum idle_kind kind, long blocks, long calls)
{
	struct setup s;
	setup_create(&s, n, kind);

	/* Warm up both paths (caches, lazily built library state). */
	long warm = calls / 4 > 1000 ? calls / 4 : 1000;
	run_epoll(&s, warm);
	run_kevent(&s, warm);

	double *ep = calloc((size_t)blocks, sizeof *ep);
	double *kv = calloc((size_t)blocks, sizeof *kv);
	double *pr = calloc((size_t)blocks, sizeof *pr);
	if (!ep || !kv || !pr)
		bench_die("calloc");
	for (long b = 0; b < blocks; b++) {
		if (b % 2 == 0) {
			ep[b] = run_epoll(&s, calls);
			kv[b] = run_kevent(&s, calls);
		} else {
			kv[b] = run_kevent(&s, calls);
			ep[b] = run_epoll(&s, calls);
		}
		pr[b] = kv[b] / ep[b];
	}
	setup_destroy(&s);

	struct result res = { n, bench_median(ep, (size_t)blocks), bench_median(kv, (size_t)blocks),
			      bench_median(pr, (size_t)blocks) };
	printf("wait-one-ready N=%d epoll_ns=%.1f kevent_ns=%.1f ratio=%.3f idle=%s "
	       "ratio_paired=%.3f epoll_iqr_pct=%.1f kevent_iqr_pct=%.1f blocks=%ld calls=%ld\n",
	       n, res.epoll_ns, res.kevent_ns, res.kevent_ns / res.epoll_ns, idle_name[kind],
	       res.ratio_paired, bench_iqr_pct(ep, (size_t)blocks),
	       bench_iqr_pct(kv, (size_t)blocks), blocks, calls);
	fflush(stdout);
	free(ep);
	free(kv);
	free(pr);
	return res;
}

static void run_kind(enum idle_kind kind, const int *ns, int nn, long fd_budget,
		     long blocks, long calls)
{
	struct result res[16];
	int count = 0;
	/* Descriptors needed for N: the ready pipe (2) + idles (1 or 2 each). */
	long per_idle = kind == IDLE_EVENTFD ? 1 : 2;
	long largest = (fd_budget - 2) / per_idle + 1;
	for (int i = 0; i < nn && count < 16; i++) {
		int n = ns[i];
		if (n > largest) {
			/* Still measure the largest N that fits, once. */
			if (count > 0 && res[count - 1].n >= largest)
				break;
			printf("# idle=%s: N=%d needs more fds than the limit allows; using N=%ld\n",
			       idle_name[kind], n, largest);
			n = (int)largest;
		}
		res[count++] = measure(n, kind, blocks, calls);
	}

	double max_ratio = 0.0, max_paired = 0.0;
	int max_n = 0;
	for (int i = 0; i < count; i++) {
		double r = res[i].kevent_ns / res[i].epoll_ns;
		if (r > max_ratio) {
			max_ratio = r;
			max_n = res[i].n;
		}
		if (res[i].ratio_paired > max_paired)
			max_paired = res[i].ratio_paired;
	}
	/* flatness compares two N measured at different times, so machine drift
	 * enters it; epoll_flatness shows how much, and ratio_flatness (the
	 * paired ratio at the largest N over that at the smallest) cancels it. */
	const struct result *first = &res[0], *last = &res[count - 1];
	printf("wait-one-ready-summary idle=%s max_ratio=%.3f max_ratio_N=%d flatness=%.3f "
	       "largest_N=%d smallest_N=%d epoll_flatness=%.3f ratio_flatness=%.3f "
	       "max_ratio_paired=%.3f\n",
	       idle_name[kind], max_ratio, max_n, last->kevent_ns / first->kevent_ns, last->n,
	       first->n, last->epoll_ns / first->epoll_ns, last->ratio_paired / first->ratio_paired,
	       max_paired);
	fflush(stdout);
}

static int opt_idle = -1;   /* -1: the mode's default */
static long opt_n[16];      /* --n=LIST: the N to measure */
static int opt_nn;

static int parse_extra(const char *a)
{
	if (strcmp(a, "--idle=eventfd") == 0)
		opt_idle = 1 << IDLE_EVENTFD;
	else if (strcmp(a, "--idle=pipe") == 0)
		opt_idle = 1 << IDLE_PIPE;
	else if (strcmp(a, "--idle=both") == 0)
		opt_idle = (1 << IDLE_EVENTFD) | (1 << IDLE_PIPE);
	else if (strncmp(a, "--n=", 4) == 0)
		opt_nn = bench_parse_list("--n", a + 4, 1, opt_n, 16);
	else if (strncmp(a, "--events=", 9) == 0)
	{
		long v = bench_parse_long("--events", a + 9);
		opt_events = v > MAX_EVENTS ? MAX_EVENTS : (int)v;
	}
	else if (strncmp(a, "--timeout-ms=", 13) == 0)
		opt_timeout_ms = strcmp(a + 13, "0") == 0 ? 0
			: (int)(bench_parse_long("--timeout-ms", a + 13) % 1000000);
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static const int full_ns[] = { 1, 10, 100, 1000, 5000, 10000, 19000 };
	static const int quick_ns[] = { 1, 100, 1000 };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--idle=eventfd|pipe|both] [--n=N,N,...] [--events=M] [--timeout-ms=T]");

	const int *ns = o.quick ? quick_ns : full_ns;
	int nn = o.quick ? 3 : (int)(sizeof full_ns / sizeof full_ns[0]);
	int listed[16];
	if (opt_nn) {
		for (int i = 0; i < opt_nn; i++)
			listed[i] = opt_n[i] > INT32_MAX ? INT32_MAX : (int)opt_n[i];
		ns = listed;
		nn = opt_nn;
	}
	/* Short blocks, many of them: on a shared machine a burst of other work
	 * then spoils a few blocks of both contenders rather than a long block of
	 * one. */
	long blocks = o.blocks ? o.blocks : o.quick ? 10 : 100;
	long calls = o.per_block ? o.per_block : o.quick ? 2000 : 4000;
	int kinds = opt_idle >= 0 ? opt_idle
		  : o.quick ? 1 << IDLE_EVENTFD : (1 << IDLE_EVENTFD) | (1 << IDLE_PIPE);

	long limit = bench_raise_nofile();
	bench_header("wait-one-ready", &o);
	printf("# fd limit %ld; ready = pipe with %d unread bytes in the middle of the "
	       "registration order; N counts it; median of %ld blocks of %ld calls each, "
	       "contenders alternating\n", limit, READY_BYTES, blocks, calls);
	fflush(stdout);

	for (int k = IDLE_EVENTFD; k <= IDLE_PIPE; k++)
		if (kinds & (1 << k))
			run_kind((enum idle_kind)k, ns, nn, limit - FD_MARGIN, blocks, calls);
	return 0;
}
