/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * table2-pipes: Table 2 of the Linux kqueue module prototype (Joukov and
 * Zadok, 2002): microseconds per call with all N pipes ready, connections
 * living for 1000 requests, N = 100, 500, 800, 1000.  They measured
 *   N      100   500   800   1000
 *   kqueue  51   250   260    278
 *   poll    48   251   401    527
 *
 * Here a "connection" is a pipe holding READY_BYTES unread bytes (so it is
 * ready on every call), and its lifetime is --lifetime calls (1000): one
 * block of a contender creates N fresh pipes (untimed), registers them
 * (timed), makes `lifetime` calls that each return all N (timed, every
 * answer checked), and closes everything (untimed).  The registration is
 * thus paid once per 1000 calls, as in the paper.
 *
 * Contenders, same process, the order rotating from block to block:
 *   kqueue  EV_ADD of N EVFILT_READ knotes in one kevent() call; then
 *           kevent(kq, NULL, 0, ev, N, &zero) returning N records with
 *           data == READY_BYTES
 *   poll    a pollfd array filled in; then poll(pfd, N, 0) and a scan of the
 *           N revents
 *   epoll   N epoll_ctl(ADD); then epoll_wait(ep, evs, N, 0) (raw epoll)
 *   floor   as epoll, plus one ioctl(FIONREAD) per event (what kqueue's
 *           exact `data` costs at the least on Linux)
 *
 * Output, one line per N:
 *   table2-pipes N=<n> kqueue_us=<x> poll_us= epoll_us= floor_us=
 *       kqueue_vs_poll= kqueue_vs_epoll= kqueue_vs_floor= paper_kqueue_us=
 *       paper_poll_us= kqueue_register_us= epoll_register_us= ...
 * (*_us: microseconds per call, registration included; *_register_us: per
 * lifetime.)
 *
 * Exit: 0 done, 1 a call returned something wrong (or setup failed),
 * 2 bad usage.
 */
#include "bench.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/ioctl.h>

#define READY_BYTES 3
#define FD_MARGIN   64
#define MAX_N       16

enum { C_KQUEUE, C_POLL, C_EPOLL, C_FLOOR, NC };

struct conns {
	int n;
	int *rd, *wr;
	int lo, hi;                 /* the read ends lie in [lo, hi] */
	struct pollfd *pfd;
	struct kevent *chg, *kev;
	struct epoll_event *evs;
};

static void conns_open(struct conns *s)
{
	s->lo = 1 << 30;
	s->hi = -1;
	for (int i = 0; i < s->n; i++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) != 0)
			bench_die("pipe2");
		if (write(p[1], "req", READY_BYTES) != READY_BYTES)
			bench_die("write");
		s->rd[i] = p[0];
		s->wr[i] = p[1];
		if (p[0] < s->lo)
			s->lo = p[0];
		if (p[0] > s->hi)
			s->hi = p[0];
	}
}

static void conns_close(struct conns *s)
{
	for (int i = 0; i < s->n; i++) {
		close(s->rd[i]);
		close(s->wr[i]);
	}
}

static int is_conn(const struct conns *s, long fd)
{
	return fd >= s->lo && fd <= s->hi;
}

struct times {
	double total, reg;   /* ns */
};

static struct times life_kqueue(struct conns *s, long calls)
{
	static const struct timespec zero = { 0, 0 };
	struct times t;
	for (int i = 0; i < s->n; i++)
		EV_SET(&s->chg[i], s->rd[i], EVFILT_READ, EV_ADD, 0, 0, NULL);
	int kq = kqueue();
	if (kq < 0)
		bench_die("kqueue");
	int64_t t0 = bench_clock_ns();
	int r = kevent(kq, s->chg, s->n, NULL, 0, NULL);
	int64_t t1 = bench_clock_ns();
	if (r != 0)
		bench_fail("kevent(EV_ADD x%d) = %d: %s", s->n, r,
			   r < 0 ? strerror(errno) : "records returned");
	for (long c = 0; c < calls; c++) {
		r = kevent(kq, NULL, 0, s->kev, s->n, &zero);
		if (__builtin_expect(r != s->n, 0))
			bench_fail("kevent returned %d (want %d)", r, s->n);
		for (int j = 0; j < r; j++)
			if (__builtin_expect(!is_conn(s, (long)s->kev[j].ident) ||
					     s->kev[j].data != READY_BYTES, 0))
				bench_fail("kevent record: ident %lu data %lld (want a pipe, %d)",
					   (unsigned long)s->kev[j].ident,
					   (long long)s->kev[j].data, READY_BYTES);
	}
	int64_t t2 = bench_clock_ns();
	close(kq);
	t.total = (double)(t2 - t0);
	t.reg = (double)(t1 - t0);
	return t;
}

static struct times life_poll(struct conns *s, long calls)
{
	struct times t;
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		s->pfd[i].fd = s->rd[i];
		s->pfd[i].events = POLLIN;
	}
	int64_t t1 = bench_clock_ns();
	for (long c = 0; c < calls; c++) {
		int r = poll(s->pfd, (nfds_t)s->n, 0);
		int seen = 0;
		for (int i = 0; i < s->n; i++)
			seen += s->pfd[i].revents == POLLIN;
		if (__builtin_expect(r != s->n || seen != s->n, 0))
			bench_fail("poll returned %d, %d POLLIN (want %d)", r, seen, s->n);
	}
	int64_t t2 = bench_clock_ns();
	t.total = (double)(t2 - t0);
	t.reg = (double)(t1 - t0);
	return t;
}

static struct times life_epoll(struct conns *s, long calls, int fionread)
{
	struct times t;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		bench_die("epoll_create1");
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		struct epoll_event ee = { .events = EPOLLIN, .data.fd = s->rd[i] };
		if (__builtin_expect(epoll_ctl(ep, EPOLL_CTL_ADD, s->rd[i], &ee) != 0, 0))
			bench_die("epoll_ctl(ADD)");
	}
	int64_t t1 = bench_clock_ns();
	for (long c = 0; c < calls; c++) {
		int r = epoll_wait(ep, s->evs, s->n, 0);
		if (__builtin_expect(r != s->n, 0))
			bench_fail("epoll_wait returned %d (want %d)", r, s->n);
		for (int j = 0; j < r; j++) {
			int fd = s->evs[j].data.fd;
			if (__builtin_expect(!is_conn(s, fd), 0))
				bench_fail("epoll_wait reported fd %d", fd);
			if (fionread) {
				int avail = -1;
				if (__builtin_expect(ioctl(fd, FIONREAD, &avail) != 0 ||
						     avail != READY_BYTES, 0))
					bench_fail("FIONREAD gave %d (want %d)", avail, READY_BYTES);
			}
		}
	}
	int64_t t2 = bench_clock_ns();
	bench_raw_close(ep);
	t.total = (double)(t2 - t0);
	t.reg = (double)(t1 - t0);
	return t;
}

static struct times lifetime(struct conns *s, int c, long calls)
{
	conns_open(s);
	struct times t = c == C_KQUEUE ? life_kqueue(s, calls)
		       : c == C_POLL ? life_poll(s, calls) : life_epoll(s, calls, c == C_FLOOR);
	conns_close(s);
	return t;
}

/* The paper's Table 2, for the output lines (0: not in the table). */
static void paper(int n, int *kq, int *pl)
{
	static const int tab[][3] = { { 100, 51, 48 }, { 500, 250, 251 },
				      { 800, 260, 401 }, { 1000, 278, 527 } };
	*kq = *pl = 0;
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (tab[i][0] == n) {
			*kq = tab[i][1];
			*pl = tab[i][2];
		}
}

static void measure(int n, long blocks, long calls)
{
	struct conns s = { .n = n };
	s.rd = bench_alloc((size_t)n, sizeof *s.rd);
	s.wr = bench_alloc((size_t)n, sizeof *s.wr);
	s.pfd = bench_alloc((size_t)n, sizeof *s.pfd);
	s.chg = bench_alloc((size_t)n, sizeof *s.chg);
	s.kev = bench_alloc((size_t)n, sizeof *s.kev);
	s.evs = bench_alloc((size_t)n, sizeof *s.evs);
	size_t nb = (size_t)blocks;
	double *tot[NC], *reg[NC];
	for (int c = 0; c < NC; c++) {
		tot[c] = bench_alloc(nb, sizeof(double));
		reg[c] = bench_alloc(nb, sizeof(double));
		lifetime(&s, c, calls / 10 > 2 ? calls / 10 : 2);   /* warm-up */
	}
	for (size_t b = 0; b < nb; b++)
		for (int k = 0; k < NC; k++) {
			int c = bench_turn((long)b, k, NC);
			struct times t = lifetime(&s, c, calls);
			tot[c][b] = t.total / (double)calls / 1000.0;   /* us per call */
			reg[c][b] = t.reg / 1000.0;                       /* us per lifetime */
		}
	double us[NC], rg[NC];
	for (int c = 0; c < NC; c++) {
		us[c] = bench_median(tot[c], nb);
		rg[c] = bench_median(reg[c], nb);
	}
	int pk, pp;
	paper(n, &pk, &pp);
	printf("table2-pipes N=%d kqueue_us=%.2f poll_us=%.2f epoll_us=%.2f floor_us=%.2f "
	       "kqueue_vs_poll=%.3f kqueue_vs_epoll=%.3f kqueue_vs_floor=%.3f "
	       "paper_kqueue_us=%d paper_poll_us=%d paper_kqueue_vs_poll=%.3f "
	       "kqueue_register_us=%.1f epoll_register_us=%.1f kqueue_iqr_pct=%.1f "
	       "poll_iqr_pct=%.1f floor_iqr_pct=%.1f lifetime=%ld blocks=%ld\n",
	       n, us[C_KQUEUE], us[C_POLL], us[C_EPOLL], us[C_FLOOR], us[C_KQUEUE] / us[C_POLL],
	       us[C_KQUEUE] / us[C_EPOLL], us[C_KQUEUE] / us[C_FLOOR], pk, pp,
	       pp ? (double)pk / pp : 0.0, rg[C_KQUEUE], rg[C_EPOLL],
	       bench_iqr_pct(tot[C_KQUEUE], nb), bench_iqr_pct(tot[C_POLL], nb),
	       bench_iqr_pct(tot[C_FLOOR], nb), calls, blocks);
	fflush(stdout);
	for (int c = 0; c < NC; c++) {
		free(tot[c]);
		free(reg[c]);
	}
	free(s.rd);
	free(s.wr);
	free(s.pfd);
	free(s.chg);
	free(s.kev);
	free(s.evs);
}

static long opt_n[MAX_N];
static int opt_nn;
static long opt_lifetime;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--n=", 4) == 0)
		opt_nn = bench_parse_list("--n", a + 4, 1, opt_n, MAX_N);
	else if (strncmp(a, "--lifetime=", 11) == 0)
		opt_lifetime = bench_parse_long("--lifetime", a + 11);
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static const long full_n[] = { 100, 500, 800, 1000 };
	static const long quick_n[] = { 100 };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--n=N,N,...] [--lifetime=CALLS]");
	long blocks = o.blocks ? o.blocks : o.quick ? 3 : 9;
	long calls = opt_lifetime ? opt_lifetime : o.quick ? 100 : 1000;
	const long *ns = opt_nn ? opt_n : o.quick ? quick_n : full_n;
	int nn = opt_nn ? opt_nn : o.quick ? 1 : (int)(sizeof full_n / sizeof full_n[0]);

	long limit = bench_raise_nofile();
	bench_header("table2-pipes", &o);
	printf("# all N pipes ready (%d unread bytes each); a connection lives %ld calls "
	       "(registration included, timed); median of %ld blocks, order rotating\n",
	       READY_BYTES, calls, blocks);
	fflush(stdout);
	for (int i = 0; i < nn; i++) {
		if (2 * ns[i] + FD_MARGIN > limit) {
			printf("# N=%ld needs %ld descriptors; the limit is %ld: skipped\n", ns[i],
			       2 * ns[i] + FD_MARGIN, limit);
			continue;
		}
		measure((int)ns[i], blocks, calls);
	}
	return 0;
}
