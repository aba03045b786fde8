/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * add-delete: the cost of one change (EV_ADD, EV_DISABLE, EV_ENABLE,
 * EV_DELETE of EVFILT_READ on a socket) against one epoll_ctl doing the same:
 * the kqueue paper's Figure 13 (Lemon 2001: the cost of each action; enable
 * and disable cheaper than add and delete).
 *
 * Sockets: a pool of connected AF_UNIX SOCK_STREAM socketpairs, created fresh
 * for every block (so every add is a first registration of that socket); one
 * end of each pair is registered, the peer stays open and nothing is ever
 * written, so every registered socket is idle (not readable, no EOF).
 *
 * Contenders, same process, the order rotating from block to block
 * (bench_turn); each block runs four timed phases over the whole pool:
 *
 *   phase     epoll (baseline)                      kevent (libkq)
 *   add       epoll_ctl(ADD, EPOLLIN)               EV_ADD      EVFILT_READ
 *   disable   epoll_ctl(MOD, 0)                     EV_DISABLE
 *   enable    epoll_ctl(MOD, EPOLLIN)               EV_ENABLE
 *   delete    epoll_ctl(DEL)                        EV_DELETE
 *
 * kevent calls are kevent(kq, &change, 1, NULL, 0, NULL) and must return 0.
 * A third contender, changelist, makes the same changes as kevent but all of
 * a phase's changes in one kevent(kq, changes, pool, NULL, 0, NULL) call, as
 * the paper's programs pass them (one system call entry for many changes;
 * on Linux each change of a descriptor is still one epoll_ctl inside).
 * After the add and the enable phase (untimed) both sets are polled once and
 * must report nothing.
 *
 * Output, one line per operation:
 *   add-delete op=<add|delete|enable|disable> epoll_ns=<x> kevent_ns=<y> ratio=<y/x>
 *       ... changelist_ns=<z> changelist_ratio=<z/x> ...
 * then
 *   add-delete-summary max_ratio=<r> max_ratio_op=<op>
 * Target: ratio <= 1.10 for each operation.
 *
 * Exit: 0 done, 1 a call failed or returned something wrong, 2 bad usage.
 */
#include "bench.h"

#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/socket.h>

enum { PH_ADD, PH_DISABLE, PH_ENABLE, PH_DELETE, NPHASES };
static const char *const phase_name[NPHASES] = { "add", "disable", "enable", "delete" };
static const char *const baseline_name[NPHASES] = {
	"epoll_ctl_add", "epoll_ctl_mod", "epoll_ctl_mod", "epoll_ctl_del"
};
/* Print order, the order the targets are stated in: add, delete, enable,
 * disable. */
static const int print_order[NPHASES] = { PH_ADD, PH_DELETE, PH_ENABLE, PH_DISABLE };

struct pool {
	int n;
	int *fd;     /* registered ends */
	int *peer;   /* the other ends, kept open */
};

static void pool_create(struct pool *p)
{
	for (int i = 0; i < p->n; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
			bench_die("socketpair");
		p->fd[i] = sv[0];
		p->peer[i] = sv[1];
	}
}

static void pool_destroy(struct pool *p)
{
	for (int i = 0; i < p->n; i++) {
		close(p->fd[i]);
		close(p->peer[i]);
	}
}

static void check_epoll_idle(int ep, const char *when)
{
	struct epoll_event evs[8];
	int r = epoll_wait(ep, evs, 8, 0);
	if (r != 0)
		bench_fail("epoll_wait after %s returned %d (want 0: sockets are idle)", when, r);
}

static void check_kq_idle(int kq, const char *when)
{
	static const struct timespec zero = { 0, 0 };
	struct kevent ev[8];
	int r = kevent(kq, NULL, 0, ev, 8, &zero);
	if (r != 0)
		bench_fail("kevent poll after %s returned %d (%s; first ident %lu flags %#x "
			   "data %lld); want 0: sockets are idle", when, r,
			   r < 0 ? strerror(errno) : "records", r > 0 ? (unsigned long)ev[0].ident : 0UL,
			   r > 0 ? ev[0].flags : 0, r > 0 ? (long long)ev[0].data : 0LL);
}

/* One epoll_ctl per socket; ns per operation. */
static double epoll_phase(int ep, const struct pool *p, int op, uint32_t events)
{
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < p->n; i++) {
		struct epoll_event ee = { .events = events, .data.fd = p->fd[i] };
		if (__builtin_expect(epoll_ctl(ep, op, p->fd[i], &ee) != 0, 0))
			bench_die("epoll_ctl");
	}
	return (double)(bench_clock_ns() - t0) / (double)p->n;
}

/* One kevent() with one change per socket; ns per operation. */
static double kevent_phase(int kq, const struct pool *p, unsigned short flags, const char *what)
{
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < p->n; i++) {
		struct kevent ch;
		EV_SET(&ch, p->fd[i], EVFILT_READ, flags, 0, 0, (void *)(uintptr_t)p->fd[i]);
		int r = kevent(kq, &ch, 1, NULL, 0, NULL);
		if (__builtin_expect(r != 0, 0))
			bench_fail("kevent(%s, fd %d) = %d: %s", what, p->fd[i], r,
				   r < 0 ? strerror(errno) : "records returned");
	}
	return (double)(bench_clock_ns() - t0) / (double)p->n;
}

static void block_epoll(int ep, struct pool *p, double ns[NPHASES])
{
	pool_create(p);
	ns[PH_ADD] = epoll_phase(ep, p, EPOLL_CTL_ADD, EPOLLIN);
	check_epoll_idle(ep, "add");
	ns[PH_DISABLE] = epoll_phase(ep, p, EPOLL_CTL_MOD, 0);
	ns[PH_ENABLE] = epoll_phase(ep, p, EPOLL_CTL_MOD, EPOLLIN);
	check_epoll_idle(ep, "enable");
	ns[PH_DELETE] = epoll_phase(ep, p, EPOLL_CTL_DEL, 0);
	pool_destroy(p);
}

/* All of a phase's changes in one kevent() call; ns per change. */
static double changelist_phase(int kq, const struct pool *p, struct kevent *chg,
			       unsigned short flags, const char *what)
{
	for (int i = 0; i < p->n; i++)
		EV_SET(&chg[i], p->fd[i], EVFILT_READ, flags, 0, 0, (void *)(uintptr_t)p->fd[i]);
	int64_t t0 = bench_clock_ns();
	int r = kevent(kq, chg, p->n, NULL, 0, NULL);
	int64_t t1 = bench_clock_ns();
	if (r != 0)
		bench_fail("kevent(%s x%d) = %d: %s", what, p->n, r,
			   r < 0 ? strerror(errno) : "records returned");
	return (double)(t1 - t0) / (double)p->n;
}

static void block_changelist(int kq, struct pool *p, struct kevent *chg, double ns[NPHASES])
{
	pool_create(p);
	ns[PH_ADD] = changelist_phase(kq, p, chg, EV_ADD, "EV_ADD");
	check_kq_idle(kq, "EV_ADD (changelist)");
	ns[PH_DISABLE] = changelist_phase(kq, p, chg, EV_DISABLE, "EV_DISABLE");
	ns[PH_ENABLE] = changelist_phase(kq, p, chg, EV_ENABLE, "EV_ENABLE");
	check_kq_idle(kq, "EV_ENABLE (changelist)");
	ns[PH_DELETE] = changelist_phase(kq, p, chg, EV_DELETE, "EV_DELETE");
	pool_destroy(p);
}

static void block_kevent(int kq, struct pool *p, double ns[NPHASES])
{
	pool_create(p);
	ns[PH_ADD] = kevent_phase(kq, p, EV_ADD, "EV_ADD");
	check_kq_idle(kq, "EV_ADD");
	ns[PH_DISABLE] = kevent_phase(kq, p, EV_DISABLE, "EV_DISABLE");
	ns[PH_ENABLE] = kevent_phase(kq, p, EV_ENABLE, "EV_ENABLE");
	check_kq_idle(kq, "EV_ENABLE");
	ns[PH_DELETE] = kevent_phase(kq, p, EV_DELETE, "EV_DELETE");
	pool_destroy(p);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, NULL, NULL);
	long blocks = o.blocks ? o.blocks : o.quick ? 4 : 100;
	long pool_n = o.per_block ? o.per_block : o.quick ? 100 : 1000;

	long limit = bench_raise_nofile();
	if (2 * pool_n + 64 > limit)
		bench_fail("--per-block=%ld needs %ld fds; the limit is %ld", pool_n,
			   2 * pool_n + 64, limit);
	bench_header("add-delete", &o);
	printf("# sockets: AF_UNIX SOCK_STREAM socketpairs, idle, fresh each block; pool=%ld "
	       "changes per phase; median of %ld blocks, contenders in rotating order\n",
	       pool_n, blocks);
	fflush(stdout);

	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		bench_die("epoll_create1");
	int kq = kqueue();
	if (kq < 0)
		bench_die("kqueue");

	struct pool p = { (int)pool_n, bench_alloc((size_t)pool_n, sizeof(int)),
			  bench_alloc((size_t)pool_n, sizeof(int)) };
	struct kevent *chg = bench_alloc((size_t)pool_n, sizeof *chg);
	double *ep_ns[NPHASES], *kv_ns[NPHASES], *cl_ns[NPHASES], *pair[NPHASES];
	for (int ph = 0; ph < NPHASES; ph++) {
		ep_ns[ph] = bench_alloc((size_t)blocks, sizeof(double));
		kv_ns[ph] = bench_alloc((size_t)blocks, sizeof(double));
		cl_ns[ph] = bench_alloc((size_t)blocks, sizeof(double));
		pair[ph] = bench_alloc((size_t)blocks, sizeof(double));
	}

	/* Warm-up block for each, not recorded. */
	double e[NPHASES], k[NPHASES], c[NPHASES];
	block_epoll(ep, &p, e);
	block_kevent(kq, &p, k);
	block_changelist(kq, &p, chg, c);

	for (long b = 0; b < blocks; b++) {
		for (int t = 0; t < 3; t++) {
			int who = bench_turn(b, t, 3);
			if (who == 0)
				block_epoll(ep, &p, e);
			else if (who == 1)
				block_kevent(kq, &p, k);
			else
				block_changelist(kq, &p, chg, c);
		}
		for (int ph = 0; ph < NPHASES; ph++) {
			ep_ns[ph][b] = e[ph];
			kv_ns[ph][b] = k[ph];
			cl_ns[ph][b] = c[ph];
			pair[ph][b] = k[ph] / e[ph];
		}
	}

	double max_ratio = 0.0;
	int max_ph = 0;
	for (int i = 0; i < NPHASES; i++) {
		int ph = print_order[i];
		double em = bench_median(ep_ns[ph], (size_t)blocks);
		double km = bench_median(kv_ns[ph], (size_t)blocks);
		double cm = bench_median(cl_ns[ph], (size_t)blocks);
		printf("add-delete op=%s epoll_ns=%.1f kevent_ns=%.1f ratio=%.3f baseline=%s "
		       "ratio_paired=%.3f epoll_iqr_pct=%.1f kevent_iqr_pct=%.1f changelist_ns=%.1f "
		       "changelist_ratio=%.3f socket=unix-stream pool=%ld blocks=%ld\n",
		       phase_name[ph], em, km, km / em, baseline_name[ph],
		       bench_median(pair[ph], (size_t)blocks), bench_iqr_pct(ep_ns[ph], (size_t)blocks),
		       bench_iqr_pct(kv_ns[ph], (size_t)blocks), cm, cm / em, pool_n, blocks);
		if (km / em > max_ratio) {
			max_ratio = km / em;
			max_ph = ph;
		}
	}
	double max_paired = 0.0;
	for (int ph = 0; ph < NPHASES; ph++) {
		double r = bench_median(pair[ph], (size_t)blocks);
		if (r > max_paired)
			max_paired = r;
	}
	printf("add-delete-summary max_ratio=%.3f max_ratio_op=%s max_ratio_paired=%.3f\n",
	       max_ratio, phase_name[max_ph], max_paired);

	close(kq);
	close(ep);
	for (int ph = 0; ph < NPHASES; ph++) {
		free(ep_ns[ph]);
		free(kv_ns[ph]);
		free(cl_ns[ph]);
		free(pair[ph]);
	}
	free(chg);
	free(p.fd);
	free(p.peer);
	return 0;
}
