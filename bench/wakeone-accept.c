/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wakeone-accept: several processes accepting on one listening socket, with
 * and without EV_WAKEONE (libkq's wake-one extension): the thundering herd.
 *
 * A TCP listener on 127.0.0.1 (non-blocking, backlog 1024) is shared by P
 * worker processes (--procs, default 4), each with its own kqueue holding one
 * EVFILT_READ knote on it: READ|EV_WAKEONE in variant "wakeone", plain READ
 * in variant "plain".  A worker sleeps in kevent(kq, NULL, 0, ev, 2, NULL);
 * every return with a listener record is a wake-up; it then accepts until
 * EAGAIN, and a wake-up that accepted nothing is an empty one (a loser of the
 * herd).  Each accepted connection is closed at once with SO_LINGER 0 (a
 * short connection; no TIME_WAIT piles up over the run).  A second knote on
 * a pipe tells the worker the block is over; it then writes its counts and
 * exits.
 *
 * The load, from this process: C client threads (--clients, default 8), each
 * connecting (blocking), waiting for the server's close (read returns 0 or
 * ECONNRESET) and connecting again, until the block's --per-block
 * connections (default 3000; --quick 200) are done.  Per block: throughput
 * = connections / wall time, and the workers' CPU per connection
 * (getrusage(RUSAGE_CHILDREN) around the block: user + system of the P
 * workers).  Blocks alternate the variants in rotating order (bench_turn),
 * --blocks per variant (default 9; --quick 2), fresh workers each block.
 *
 * Output:
 *   wakeone-accept variant=<wakeone|plain> procs= clients= conns_per_block=
 *       blocks= conn_per_s=<median> worker_cpu_us_per_conn=<median>
 *       wakeups_per_conn=<all blocks> empty_wakeups_per_conn=
 *   wakeone-accept-summary throughput_ratio=<wakeone / plain, medians>
 *       throughput_ratio_paired=<median of per-pair ratios> cpu_ratio=
 *       wakeups_per_conn_wakeone= wakeups_per_conn_plain= target_ratio=1.10
 * Targets: with EV_WAKEONE one waiter woken per connection, and
 * throughput at least 1.10x of the plain variant.
 *
 * Exit: 0 done, 1 a call failed, 2 bad usage.
 */
#include "bench.h"

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/event.h>
#include <sys/socket.h>
#include <sys/wait.h>

#ifndef EV_WAKEONE
#define EV_WAKEONE 0x0800
#endif

enum { V_WAKEONE, V_PLAIN, NV };
static const char *const vname[NV] = { "wakeone", "plain" };

struct counts { long wakeups, empty, accepted, sleeps; };

#define MAXP 8
static long opt_procs[MAXP], opt_clients;
static int opt_nprocs;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--procs=", 8) == 0)
		opt_nprocs = bench_parse_list("--procs", a + 8, 1, opt_procs, MAXP);
	else if (strncmp(a, "--clients=", 10) == 0)
		opt_clients = bench_parse_long("--clients", a + 10);
	else
		return 0;
	return 1;
}

static void worker(int lst, int stop, int rep, unsigned short flags)
{
	int kq = kqueue();
	if (kq < 0)
		_exit(1);
	struct kevent ch[2], ev[2];
	EV_SET(&ch[0], lst, EVFILT_READ, EV_ADD | flags, 0, 0, NULL);
	EV_SET(&ch[1], stop, EVFILT_READ, EV_ADD, 0, 0, NULL);
	if (kevent(kq, ch, 2, NULL, 0, NULL) != 0)
		_exit(1);
	struct counts c = { 0, 0, 0, 0 };
	struct linger lg = { 1, 0 };
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	for (;;) {
		int n = kevent(kq, NULL, 0, ev, 2, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		int done = 0;
		for (int i = 0; i < n; i++) {
			if ((int)ev[i].ident == stop) {
				done = 1;
				continue;
			}
			c.wakeups++;
			long got = 0;
			for (;;) {
				int s = accept4(lst, NULL, NULL, SOCK_CLOEXEC);
				if (s < 0)
					break;
				setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
				close(s);
				got++;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED)
				_exit(1);
			c.accepted += got;
			if (!got)
				c.empty++;
		}
		if (done)
			break;
	}
	/* every time the worker slept and was woken, herd or not: a wake-up
	 * that found nothing is swallowed by kevent()'s re-validation and
	 * never shows as a record */
	getrusage(RUSAGE_SELF, &ru1);
	c.sleeps = ru1.ru_nvcsw - ru0.ru_nvcsw;
	if (write(rep, &c, sizeof c) != (ssize_t)sizeof c)
		_exit(1);
	_exit(0);
}

static struct sockaddr_in addr;
static atomic_long remaining;

static void *client(void *arg)
{
	(void)arg;
	char buf[16];
	while (atomic_fetch_sub(&remaining, 1) > 0) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			bench_die("socket");
		if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
			/* the server's reset can reach the socket before this
			 * thread returns from connect(): accepted and closed */
			if (errno != ECONNRESET)
				bench_die("connect");
			close(s);
			continue;
		}
		ssize_t r;
		while ((r = read(s, buf, sizeof buf)) > 0)
			;
		if (r < 0 && errno != ECONNRESET)
			bench_die("read");
		close(s);
	}
	return NULL;
}

static double child_cpu_us(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		bench_die("getrusage");
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* One block: fresh workers of variant v, `conns` connections. */
static void block(int lst, int v, long procs, long clients, long conns,
		  double *conn_per_s, double *cpu_us_per_conn, struct counts *tot)
{
	int stop[2], rep[2];
	if (pipe2(stop, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		bench_die("pipe2");
	double cpu0 = child_cpu_us();
	pid_t *pid = bench_alloc((size_t)procs, sizeof *pid);
	for (long i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			bench_die("fork");
		if (pid[i] == 0) {
			close(stop[1]);
			close(rep[0]);
			worker(lst, stop[0], rep[1], v == V_WAKEONE ? EV_WAKEONE : 0);
		}
	}
	close(stop[0]);
	close(rep[1]);
	usleep(20000);   /* let every worker reach its first kevent() */

	atomic_store(&remaining, conns);
	pthread_t *th = bench_alloc((size_t)clients, sizeof *th);
	int64_t t0 = bench_now_ns();
	for (long i = 0; i < clients; i++)
		if (pthread_create(&th[i], NULL, client, NULL) != 0)
			bench_fail("pthread_create");
	for (long i = 0; i < clients; i++)
		pthread_join(th[i], NULL);
	int64_t t1 = bench_now_ns();

	close(stop[1]);
	struct counts c;
	long accepted = 0;
	for (long i = 0; i < procs; i++) {
		if (read(rep[0], &c, sizeof c) != (ssize_t)sizeof c)
			bench_fail("a %s worker did not report", vname[v]);
		tot->wakeups += c.wakeups;
		tot->empty += c.empty;
		tot->sleeps += c.sleeps;
		accepted += c.accepted;
	}
	for (long i = 0; i < procs; i++) {
		int st;
		if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bench_fail("a %s worker failed", vname[v]);
	}
	if (accepted != conns)
		bench_fail("%s: %ld connections accepted, %ld made", vname[v], accepted, conns);
	tot->accepted += accepted;
	close(rep[0]);
	free(pid);
	free(th);
	*conn_per_s = (double)conns / ((double)(t1 - t0) / 1e9);
	*cpu_us_per_conn = (child_cpu_us() - cpu0) / (double)conns;
}

/* Both variants with `procs` workers; prints their lines and the level's
 * comparison, returns wakeone's throughput / plain's. */
static double level(int lst, long procs, long clients, long blocks, long conns)
{
	double *tp[NV], *cpu[NV];
	struct counts tot[NV];
	for (int v = 0; v < NV; v++) {
		tp[v] = bench_alloc((size_t)blocks, sizeof *tp[v]);
		cpu[v] = bench_alloc((size_t)blocks, sizeof *cpu[v]);
		memset(&tot[v], 0, sizeof tot[v]);
	}
	double warm_tp, warm_cpu;
	struct counts warm = { 0, 0, 0, 0 };
	block(lst, V_PLAIN, procs, clients, conns / 4 > 50 ? conns / 4 : 50, &warm_tp, &warm_cpu,
	      &warm);   /* warm-up, not recorded */
	double *pair = bench_alloc((size_t)blocks, sizeof *pair);
	for (long b = 0; b < blocks; b++) {
		for (int pos = 0; pos < NV; pos++) {
			int v = bench_turn(b, pos, NV);
			block(lst, v, procs, clients, conns, &tp[v][b], &cpu[v][b], &tot[v]);
		}
		pair[b] = tp[V_WAKEONE][b] / tp[V_PLAIN][b];
	}

	double med_tp[NV], med_cpu[NV], wpc[NV], spc[NV];
	for (int v = 0; v < NV; v++) {
		med_tp[v] = bench_median(tp[v], (size_t)blocks);
		med_cpu[v] = bench_median(cpu[v], (size_t)blocks);
		wpc[v] = (double)tot[v].wakeups / (double)tot[v].accepted;
		spc[v] = (double)tot[v].sleeps / (double)tot[v].accepted;
		printf("wakeone-accept variant=%s procs=%ld clients=%ld conns_per_block=%ld "
		       "blocks=%ld conn_per_s=%.0f worker_cpu_us_per_conn=%.2f "
		       "wakeups_per_conn=%.3f empty_wakeups_per_conn=%.3f "
		       "sleeps_per_conn=%.3f conn_per_s_iqr_pct=%.1f\n",
		       vname[v], procs, clients, conns, blocks, med_tp[v], med_cpu[v], wpc[v],
		       (double)tot[v].empty / (double)tot[v].accepted, spc[v],
		       bench_iqr_pct(tp[v], (size_t)blocks));
		free(tp[v]);
		free(cpu[v]);
	}
	double ratio = med_tp[V_WAKEONE] / med_tp[V_PLAIN];
	printf("wakeone-accept-level procs=%ld throughput_ratio=%.3f throughput_ratio_paired=%.3f "
	       "cpu_ratio=%.3f wakeups_per_conn_wakeone=%.3f wakeups_per_conn_plain=%.3f "
	       "sleeps_per_conn_wakeone=%.3f sleeps_per_conn_plain=%.3f\n",
	       procs, ratio, bench_median(pair, (size_t)blocks),
	       med_cpu[V_WAKEONE] / med_cpu[V_PLAIN], wpc[V_WAKEONE], wpc[V_PLAIN],
	       spc[V_WAKEONE], spc[V_PLAIN]);
	fflush(stdout);
	free(pair);
	return ratio;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--procs=LIST] [--clients=N]");
	if (!opt_nprocs) {
		static const long dflt[] = { 4, 16, 32 };
		opt_nprocs = o.quick ? 1 : 3;
		for (int i = 0; i < opt_nprocs; i++)
			opt_procs[i] = dflt[i];
	}
	long clients = opt_clients ? opt_clients : 4;
	long blocks = o.blocks ? o.blocks : o.quick ? 2 : 9;
	long conns = o.per_block ? o.per_block : o.quick ? 200 : 3000;
	signal(SIGPIPE, SIG_IGN);
	bench_header("wakeone-accept", &o);
	printf("# worker processes, one kqueue each, on one TCP listener on 127.0.0.1; "
	       "%ld client threads; %ld short connections per block; %ld blocks per variant\n",
	       clients, conns, blocks);
	fflush(stdout);

	int lst = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lst < 0)
		bench_die("socket");
	int one = 1;
	setsockopt(lst, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof addr;
	if (bind(lst, (struct sockaddr *)&addr, sizeof addr) || listen(lst, 1024) ||
	    getsockname(lst, (struct sockaddr *)&addr, &al))
		bench_die("listen");

	double min_ratio = 0, last_ratio = 0;
	long last_procs = 0;
	for (int i = 0; i < opt_nprocs; i++) {
		double r = level(lst, opt_procs[i], clients, blocks, conns);
		if (i == 0 || r < min_ratio)
			min_ratio = r;
		last_ratio = r;
		last_procs = opt_procs[i];
	}
	printf("wakeone-accept-summary min_throughput_ratio=%.3f largest_procs=%ld "
	       "throughput_ratio_largest=%.3f target_ratio=1.10\n",
	       min_ratio, last_procs, last_ratio);
	close(lst);
	return 0;
}
