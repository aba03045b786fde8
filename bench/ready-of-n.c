/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ready-of-n: one monitoring call over N pipes of which R are ready, made
 * with select(), poll(), epoll and kevent().  This is the table of the epoll
 * lecture (Kerrisk: "1,000,000 monitoring calls, 1 ready pipe at the middle
 * of N", and R ready of N) and the wait curves of the kqueue paper (Lemon
 * 2001): Figure 10's line for N idle descriptors and Figure 11, all N active.
 *
 * Descriptors: N pipes.  The read ends are watched; the write ends stay open
 * (moved to numbers >= FD_SETSIZE when select() takes part, so that the read
 * ends fit in an fd_set).  A ready pipe holds READY_BYTES bytes that are never
 * read, so whatever is ready stays ready and every call sees the same state.
 *
 * Contenders, same process, same pipes, the order rotating from block to
 * block (bench_turn); every call's answer is checked:
 *
 *   select  an fd_set copied from a template, select(maxfd + 1, ..., zero
 *           timeout), then a scan of the N numbers for the ready ones; only
 *           while the read ends fit below FD_SETSIZE (N <= 1000)
 *   poll    poll(pfd, N, 0), then a scan of the N revents
 *   epoll   epoll_wait(ep, evs, N + 1, 0): the R ready ones, nothing else
 *           (raw epoll: no byte counts)
 *   floor   the same epoll_wait + one ioctl(FIONREAD) per returned event:
 *           the least a Linux program pays for BSD's exact `data`; the
 *           baseline of the targets
 *   kevent  kevent(kq, NULL, 0, ev, N + 1, &zero) with EVFILT_READ knotes:
 *           R records, each a ready pipe with data == READY_BYTES
 *
 * Each contender runs as many calls per block as take about --target-us of
 * CPU (calibrated once per point), so cheap and dear calls are both timed
 * over a stretch long enough for the clock; a figure is the median over the
 * blocks of ns per call.
 *
 * Sweeps (--sweeps=idle,one,active,spread; all by default):
 *   idle    R = 0 over N = 1 .. 9,900: Figure 10's waiting over idle
 *           descriptors (kqueue constant in N, poll linear)
 *   one     R = 1, the ready pipe in the middle: the lecture's table
 *   active  R = N: Figure 11, every descriptor active
 *   spread  N = 1000 (--spread-n), R = 1 .. N spread evenly: the lecture's
 *           "R ready of N", and the cost of each further returned event
 * --n=LIST replaces the N of the first three.  N is bounded by the hard
 * limit of 20,000 descriptors (two per pipe): at most about 9,960.
 *
 * Output, one line per point:
 *   ready-of-n sweep=<s> N=<n> R=<r> select_ns=<x|na> poll_ns= epoll_ns=
 *       floor_ns= kevent_ns= ratio=<kevent/floor> kevent_vs_epoll=
 *       kevent_vs_poll= kevent_vs_select=<|na> ratio_paired= ...
 * and per sweep a summary:
 *   ready-of-n-summary sweep=idle|one|active ... max_ratio= flatness= ...
 *   ready-of-n-summary sweep=spread N= kevent_per_event_ns= floor_per_event_ns=
 *       per_event_ratio=<kevent slope / floor slope> ...
 * (per-event figures are least-squares slopes of ns per call against R).
 * Targets: sweep=one ratio <= 1.05 and flat in N;
 * per_event_ratio <= 1.10.
 *
 * Exit: 0 done, 1 a call returned something wrong (or setup failed),
 * 2 bad usage.
 */
#include "bench.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/ioctl.h>
#include <sys/select.h>

#define READY_BYTES 5
#define FD_MARGIN   64     /* stdio, the epoll set, the kqueue's own fds */
#define SELECT_MAX_N 1000
#define MAX_POINTS  32

enum { C_SELECT, C_POLL, C_EPOLL, C_FLOOR, C_KEVENT, NC };

struct point {
	int n, r;
	int *rd, *wr;            /* the pipes */
	unsigned char *ready;    /* by read-end number: holds data */
	int nready_tab;          /* size of ready[] */
	int maxfd;               /* largest read end */
	int use_select;
	fd_set tmpl;
	struct pollfd *pfd;
	int ep, kq;
	struct epoll_event *evs;
	struct kevent *kev;
};

/* Pipe i (0 <= i < n) is ready when it is one of R spread evenly, the middle
 * one when R = 1. */
static void mark_ready(unsigned char *is_ready, int n, int r)
{
	memset(is_ready, 0, (size_t)n);
	for (int k = 0; k < r; k++) {
		long i = (long)((2 * (long long)k + 1) * n / (2 * (long long)r));
		is_ready[i] = 1;
	}
}

static void point_create(struct point *p, int n, int r, int want_select)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	p->r = r;
	p->rd = bench_alloc((size_t)n, sizeof *p->rd);
	p->wr = bench_alloc((size_t)n, sizeof *p->wr);
	unsigned char *is_ready = bench_alloc((size_t)n, 1);
	mark_ready(is_ready, n, r);

	int move = want_select && n <= SELECT_MAX_N;
	for (int i = 0; i < n; i++) {
		int fds[2];
		if (pipe2(fds, O_CLOEXEC) != 0)
			bench_die("pipe2");
		p->rd[i] = fds[0];
		p->wr[i] = move ? bench_fd_move_above(fds[1], FD_SETSIZE) : fds[1];
		if (p->rd[i] > p->maxfd)
			p->maxfd = p->rd[i];
		if (is_ready[i] && write(p->wr[i], "abcdefgh", READY_BYTES) != READY_BYTES)
			bench_die("write (ready pipe)");
	}
	p->use_select = move && p->maxfd < FD_SETSIZE;
	p->nready_tab = p->maxfd + 1;
	p->ready = bench_alloc((size_t)p->nready_tab, 1);
	for (int i = 0; i < n; i++)
		p->ready[p->rd[i]] = is_ready[i];
	free(is_ready);

	FD_ZERO(&p->tmpl);
	p->pfd = bench_alloc((size_t)n, sizeof *p->pfd);
	for (int i = 0; i < n; i++) {
		if (p->use_select)
			FD_SET(p->rd[i], &p->tmpl);
		p->pfd[i].fd = p->rd[i];
		p->pfd[i].events = POLLIN;
	}

	p->ep = epoll_create1(EPOLL_CLOEXEC);
	if (p->ep < 0)
		bench_die("epoll_create1");
	p->kq = kqueue();
	if (p->kq < 0)
		bench_die("kqueue");
	p->evs = bench_alloc((size_t)n + 1, sizeof *p->evs);
	p->kev = bench_alloc((size_t)n + 1, sizeof *p->kev);

	struct kevent chg[256];
	int k = 0;
	for (int i = 0; i < n; i++) {
		struct epoll_event ee = { .events = EPOLLIN, .data.fd = p->rd[i] };
		if (epoll_ctl(p->ep, EPOLL_CTL_ADD, p->rd[i], &ee) != 0)
			bench_die("epoll_ctl(ADD)");
		EV_SET(&chg[k], p->rd[i], EVFILT_READ, EV_ADD, 0, 0, NULL);
		if (++k == (int)(sizeof chg / sizeof chg[0]) || i == n - 1) {
			int rc = kevent(p->kq, chg, k, NULL, 0, NULL);
			if (rc != 0)
				bench_fail("kevent(EV_ADD x%d) = %d (%s) at N=%d", k, rc,
					   rc < 0 ? strerror(errno) : "records returned", n);
			k = 0;
		}
	}
}

static void point_destroy(struct point *p)
{
	close(p->kq);
	bench_raw_close(p->ep);
	for (int i = 0; i < p->n; i++) {
		close(p->rd[i]);
		close(p->wr[i]);
	}
	free(p->rd);
	free(p->wr);
	free(p->ready);
	free(p->pfd);
	free(p->evs);
	free(p->kev);
}

static int is_ready_fd(const struct point *p, long fd)
{
	return fd >= 0 && fd < p->nready_tab && p->ready[fd];
}

static void run_select(const struct point *p, long calls)
{
	for (long c = 0; c < calls; c++) {
		fd_set rs = p->tmpl;
		struct timeval tv = { 0, 0 };
		int r = select(p->maxfd + 1, &rs, NULL, NULL, &tv);
		int seen = 0;
		for (int i = 0; i < p->n; i++)
			if (FD_ISSET(p->rd[i], &rs))
				seen += is_ready_fd(p, p->rd[i]) ? 1 : 1000000;
		if (__builtin_expect(r != p->r || seen != r, 0))
			bench_fail("select returned %d, %d ready found (want %d) at N=%d", r, seen,
				   p->r, p->n);
	}
}

static void run_poll(const struct point *p, long calls)
{
	for (long c = 0; c < calls; c++) {
		int r = poll(p->pfd, (nfds_t)p->n, 0);
		int seen = 0;
		for (int i = 0; i < p->n; i++)
			if (p->pfd[i].revents)
				seen += p->pfd[i].revents == POLLIN && is_ready_fd(p, p->pfd[i].fd)
					? 1 : 1000000;
		if (__builtin_expect(r != p->r || seen != r, 0))
			bench_fail("poll returned %d, %d ready found (want %d) at N=%d", r, seen,
				   p->r, p->n);
	}
}

static void run_epoll(const struct point *p, long calls, int fionread)
{
	for (long c = 0; c < calls; c++) {
		int r = epoll_wait(p->ep, p->evs, p->n + 1, 0);
		if (__builtin_expect(r != p->r, 0))
			bench_fail("epoll_wait returned %d (want %d) at N=%d", r, p->r, p->n);
		for (int j = 0; j < r; j++) {
			int fd = p->evs[j].data.fd;
			if (__builtin_expect(!is_ready_fd(p, fd), 0))
				bench_fail("epoll_wait reported fd %d, which is not ready", fd);
			if (fionread) {
				int avail = -1;
				if (__builtin_expect(ioctl(fd, FIONREAD, &avail) != 0 ||
						     avail != READY_BYTES, 0))
					bench_fail("FIONREAD gave %d (want %d)", avail, READY_BYTES);
			}
		}
	}
}

static void run_kevent(const struct point *p, long calls)
{
	static const struct timespec zero = { 0, 0 };
	for (long c = 0; c < calls; c++) {
		int r = kevent(p->kq, NULL, 0, p->kev, p->n + 1, &zero);
		if (__builtin_expect(r != p->r, 0))
			bench_fail("kevent returned %d (%s; want %d) at N=%d", r,
				   r < 0 ? strerror(errno) : "records", p->r, p->n);
		for (int j = 0; j < r; j++) {
			const struct kevent *e = &p->kev[j];
			if (__builtin_expect(!is_ready_fd(p, (long)e->ident) ||
					     e->filter != EVFILT_READ || e->data != READY_BYTES ||
					     (e->flags & (EV_EOF | EV_ERROR)), 0))
				bench_fail("kevent record: ident %lu filter %d flags %#x data %lld "
					   "(want a ready pipe, EVFILT_READ, data %d)",
					   (unsigned long)e->ident, e->filter, e->flags,
					   (long long)e->data, READY_BYTES);
		}
	}
}

/* ns per call of `calls` calls of contender c. */
static double run(const struct point *p, int c, long calls)
{
	int64_t t0 = bench_clock_ns();
	switch (c) {
	case C_SELECT:
		run_select(p, calls);
		break;
	case C_POLL:
		run_poll(p, calls);
		break;
	case C_EPOLL:
	case C_FLOOR:
		run_epoll(p, calls, c == C_FLOOR);
		break;
	default:
		run_kevent(p, calls);
		break;
	}
	return (double)(bench_clock_ns() - t0) / (double)calls;
}

struct result {
	int n, r;
	double ns[NC];           /* medians; < 0: not run */
	double ratio_paired;     /* median of per-block kevent / floor */
};

struct cfg {
	long blocks;
	double target_ns;        /* CPU per contender per block */
	int want_select;
};

static struct result measure(const char *sweep, int n, int r, const struct cfg *cf)
{
	struct point p;
	point_create(&p, n, r, cf->want_select);

	int cont[NC], ncont = 0;
	for (int c = 0; c < NC; c++)
		if (c != C_SELECT || p.use_select)
			cont[ncont++] = c;

	/* Warm-up, then calibrate each contender's calls per block. */
	long calls[NC];
	for (int k = 0; k < ncont; k++) {
		int c = cont[k];
		run(&p, c, 3);
		double est = run(&p, c, 5);
		double want = cf->target_ns / (est > 1.0 ? est : 1.0);
		calls[c] = want < 3 ? 3 : want > 200000 ? 200000 : (long)want;
	}

	size_t nb = (size_t)cf->blocks;
	double *t[NC];
	for (int c = 0; c < NC; c++)
		t[c] = bench_alloc(nb, sizeof(double));
	double *pair = bench_alloc(nb, sizeof(double));
	for (size_t b = 0; b < nb; b++) {
		for (int k = 0; k < ncont; k++) {
			int c = cont[bench_turn((long)b, k, ncont)];
			t[c][b] = run(&p, c, calls[c]);
		}
		pair[b] = t[C_KEVENT][b] / t[C_FLOOR][b];
	}
	point_destroy(&p);

	struct result res = { .n = n, .r = r };
	for (int c = 0; c < NC; c++)
		res.ns[c] = (c == C_SELECT && !p.use_select) ? -1.0 : bench_median(t[c], nb);
	res.ratio_paired = bench_median(pair, nb);

	char sel[32], ksel[32];
	snprintf(sel, sizeof sel, "na");
	snprintf(ksel, sizeof ksel, "na");
	if (res.ns[C_SELECT] > 0) {
		snprintf(sel, sizeof sel, "%.1f", res.ns[C_SELECT]);
		snprintf(ksel, sizeof ksel, "%.3f", res.ns[C_KEVENT] / res.ns[C_SELECT]);
	}
	printf("ready-of-n sweep=%s N=%d R=%d select_ns=%s poll_ns=%.1f epoll_ns=%.1f "
	       "floor_ns=%.1f kevent_ns=%.1f ratio=%.3f kevent_vs_epoll=%.3f "
	       "kevent_vs_poll=%.3f kevent_vs_select=%s poll_vs_epoll=%.3f ratio_paired=%.3f "
	       "floor_iqr_pct=%.1f kevent_iqr_pct=%.1f poll_iqr_pct=%.1f blocks=%ld "
	       "kevent_calls=%ld poll_calls=%ld\n",
	       sweep, n, r, sel, res.ns[C_POLL], res.ns[C_EPOLL], res.ns[C_FLOOR],
	       res.ns[C_KEVENT], res.ns[C_KEVENT] / res.ns[C_FLOOR],
	       res.ns[C_KEVENT] / res.ns[C_EPOLL], res.ns[C_KEVENT] / res.ns[C_POLL], ksel,
	       res.ns[C_POLL] / res.ns[C_EPOLL], res.ratio_paired,
	       bench_iqr_pct(t[C_FLOOR], nb), bench_iqr_pct(t[C_KEVENT], nb),
	       bench_iqr_pct(t[C_POLL], nb), cf->blocks, calls[C_KEVENT], calls[C_POLL]);
	fflush(stdout);
	for (int c = 0; c < NC; c++)
		free(t[c]);
	free(pair);
	return res;
}

/* Sweeps over N (idle: R = 0, one: R = 1, active: R = N). */
static void sweep_n(const char *sweep, const long *ns, int nn, int largest,
		    const struct cfg *cf)
{
	struct result res[MAX_POINTS];
	int count = 0;
	for (int i = 0; i < nn && count < MAX_POINTS; i++) {
		int n = (int)ns[i];
		if (n > largest) {
			if (count > 0 && res[count - 1].n >= largest)
				break;
			printf("# sweep=%s: N=%d needs more descriptors than the limit allows; "
			       "using N=%d\n", sweep, n, largest);
			n = largest;
		}
		int r = strcmp(sweep, "idle") == 0 ? 0 : strcmp(sweep, "one") == 0 ? 1 : n;
		res[count++] = measure(sweep, n, r, cf);
	}
	if (count == 0)
		return;

	double max_ratio = 0.0, max_paired = 0.0;
	int max_n = 0, below_poll_from = -1;
	for (int i = 0; i < count; i++) {
		double q = res[i].ns[C_KEVENT] / res[i].ns[C_FLOOR];
		if (q > max_ratio) {
			max_ratio = q;
			max_n = res[i].n;
		}
		if (res[i].ratio_paired > max_paired)
			max_paired = res[i].ratio_paired;
	}
	/* The smallest N from which on kevent stays below poll. */
	for (int i = count - 1; i >= 0 && res[i].ns[C_KEVENT] < res[i].ns[C_POLL]; i--)
		below_poll_from = res[i].n;
	const struct result *f = &res[0], *l = &res[count - 1];
	printf("ready-of-n-summary sweep=%s max_ratio=%.3f max_ratio_N=%d "
	       "max_ratio_paired=%.3f smallest_N=%d largest_N=%d flatness=%.3f "
	       "floor_flatness=%.3f poll_growth=%.1f kevent_vs_poll_at_largest=%.3f "
	       "kevent_below_poll_from_N=%d\n",
	       sweep, max_ratio, max_n, max_paired, f->n, l->n,
	       l->ns[C_KEVENT] / f->ns[C_KEVENT], l->ns[C_FLOOR] / f->ns[C_FLOOR],
	       l->ns[C_POLL] / f->ns[C_POLL], l->ns[C_KEVENT] / l->ns[C_POLL], below_poll_from);
	fflush(stdout);
}

/* Least-squares slope of y against x. */
static double slope(const double *x, const double *y, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	double d = n * sxx - sx * sx;
	return d != 0.0 ? (n * sxy - sx * sy) / d : 0.0;
}

static void sweep_spread(int n, const long *rs, int nr, const struct cfg *cf)
{
	struct result res[MAX_POINTS];
	int count = 0;
	for (int i = 0; i < nr && count < MAX_POINTS; i++)
		if (rs[i] <= n)
			res[count++] = measure("spread", n, (int)rs[i], cf);
	if (count < 2)
		return;
	double x[MAX_POINTS], y[NC][MAX_POINTS];
	for (int i = 0; i < count; i++) {
		x[i] = res[i].r;
		for (int c = 0; c < NC; c++)
			y[c][i] = res[i].ns[c];
	}
	double s[NC];
	for (int c = 0; c < NC; c++)
		s[c] = slope(x, y[c], count);
	/* The smallest R from which on poll is cheaper than epoll (raw). */
	int poll_wins_from = -1;
	for (int i = count - 1; i >= 0 && res[i].ns[C_POLL] < res[i].ns[C_EPOLL]; i--)
		poll_wins_from = res[i].r;
	char sel[32];
	snprintf(sel, sizeof sel, "na");
	if (res[0].ns[C_SELECT] > 0)
		snprintf(sel, sizeof sel, "%.2f", s[C_SELECT]);
	printf("ready-of-n-summary sweep=spread N=%d kevent_per_event_ns=%.2f "
	       "floor_per_event_ns=%.2f epoll_per_event_ns=%.2f poll_per_event_ns=%.2f "
	       "select_per_event_ns=%s per_event_ratio=%.3f per_event_vs_epoll=%.3f "
	       "poll_beats_epoll_from_R=%d points=%d\n",
	       n, s[C_KEVENT], s[C_FLOOR], s[C_EPOLL], s[C_POLL], sel, s[C_KEVENT] / s[C_FLOOR],
	       s[C_KEVENT] / s[C_EPOLL], poll_wins_from, count);
	fflush(stdout);
}

enum { S_IDLE = 1, S_ONE = 2, S_ACTIVE = 4, S_SPREAD = 8 };
static int opt_sweeps;
static long opt_n[MAX_POINTS];
static int opt_nn;
static long opt_spread_n;
static long opt_target_us;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--sweeps=", 9) == 0) {
		char buf[128];
		snprintf(buf, sizeof buf, "%s", a + 9);
		for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
			if (strcmp(tok, "idle") == 0)
				opt_sweeps |= S_IDLE;
			else if (strcmp(tok, "one") == 0)
				opt_sweeps |= S_ONE;
			else if (strcmp(tok, "active") == 0)
				opt_sweeps |= S_ACTIVE;
			else if (strcmp(tok, "spread") == 0)
				opt_sweeps |= S_SPREAD;
			else {
				fprintf(stderr, "unknown sweep '%s'\n", tok);
				exit(2);
			}
		}
	} else if (strncmp(a, "--n=", 4) == 0) {
		opt_nn = bench_parse_list("--n", a + 4, 1, opt_n, MAX_POINTS);
	} else if (strncmp(a, "--spread-n=", 11) == 0) {
		opt_spread_n = bench_parse_long("--spread-n", a + 11);
	} else if (strncmp(a, "--target-us=", 12) == 0) {
		opt_target_us = bench_parse_long("--target-us", a + 12);
	} else {
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static const long full_one[] = { 1, 10, 100, 1000, 5000, 9900 };
	static const long full_active[] = { 1, 10, 100, 500, 1000, 2000, 5000, 9900 };
	static const long quick_n[] = { 1, 100, 1000 };
	static const long spread_r[] = { 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000 };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra,
			 "[--sweeps=idle,one,active,spread] [--n=N,N,...] [--spread-n=N] "
			 "[--target-us=T]");
	int sweeps = opt_sweeps ? opt_sweeps : S_IDLE | S_ONE | S_ACTIVE | S_SPREAD;
	struct cfg cf = {
		.blocks = o.blocks ? o.blocks : o.quick ? 5 : 31,
		.target_ns = 1000.0 * (opt_target_us ? opt_target_us : o.quick ? 150 : 1500),
		.want_select = 1,
	};
	long spread_n = opt_spread_n ? opt_spread_n : o.quick ? 100 : 1000;

	long limit = bench_raise_nofile();
	int largest = (int)((limit - FD_MARGIN) / 2);
	if (spread_n > largest)
		spread_n = largest;
	bench_header("ready-of-n", &o);
	printf("# N pipes (2 fds each, fd limit %ld: N <= %d); ready = %d unread bytes; "
	       "median of %ld blocks, ~%.0f us of CPU per contender per block, order "
	       "rotating; select only while the read ends fit below FD_SETSIZE (N <= %d)\n",
	       limit, largest, READY_BYTES, cf.blocks, cf.target_ns / 1000.0, SELECT_MAX_N);
	fflush(stdout);

	const long *ns_one = opt_nn ? opt_n : o.quick ? quick_n : full_one;
	int nn_one = opt_nn ? opt_nn : o.quick ? 3 : (int)(sizeof full_one / sizeof full_one[0]);
	const long *ns_act = opt_nn ? opt_n : o.quick ? quick_n : full_active;
	int nn_act = opt_nn ? opt_nn
		   : o.quick ? 3 : (int)(sizeof full_active / sizeof full_active[0]);

	if (sweeps & S_IDLE)
		sweep_n("idle", ns_one, nn_one, largest, &cf);
	if (sweeps & S_ONE)
		sweep_n("one", ns_one, nn_one, largest, &cf);
	if (sweeps & S_ACTIVE)
		sweep_n("active", ns_act, nn_act, largest, &cf);
	if (sweeps & S_SPREAD)
		sweep_spread((int)spread_n, spread_r, (int)(sizeof spread_r / sizeof spread_r[0]),
			     &cf);
	return 0;
}
