/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * idle-server: an echo server on 127.0.0.1 with 100 active clients and
 * 0 .. 15,000 idle connections, built three times, on kevent(), on poll()
 * and on raw epoll: the experiment of the kqueue paper's Figures 14-16
 * (Lemon 2001: thttpd and a web proxy under httperf with 100 active and up to
 * 10,000 idle connections; kqueue's CPU stayed flat while the select()-based
 * server saturated at a few thousand idle connections).
 *
 * Processes: this one is the server; a forked child holds every client
 * socket (the hard limit of 20,000 descriptors applies per process, and each
 * side of a connection is a descriptor, so the server holds 100 + idle
 * accepted sockets and the child as many client sockets).  When two CPUs are
 * usable the server is pinned to one and the clients to the other
 * (--no-pin leaves placement to the scheduler).  They talk over a
 * SOCK_SEQPACKET control socket; latencies travel in shared memory.
 *
 * The clients (raw epoll, level-triggered): each of the 100 active
 * connections has one request of REQ_BYTES in flight; when its echo is
 * complete the round-trip time is recorded and the next request goes out,
 * until the block's --per-block requests (4,000) have all been answered.
 * Idle connections are connected and accepted, then never carry a byte.
 *
 * The server variants, all level-triggered, all watching every connection
 * (idle ones included) and the control socket:
 *   kevent  a kqueue with one EVFILT_READ knote per connection;
 *           kevent(kq, NULL, 0, ev, 256, NULL); read(fd, buf, min(data, buf))
 *   poll    one pollfd per connection; poll(pfd, n, -1) and a scan
 *   epoll   epoll_wait(ep, evs, 256, -1); read(fd, buf, sizeof buf)
 *   floor   as epoll, plus one ioctl(FIONREAD) per event and a read of that
 *           many bytes: raw epoll doing the kernel work kevent's `data` needs
 * and on each readable connection write() back what was read.  Every block
 * builds its variant's interest set afresh, so whatever a knote costs once,
 * at its first event, is paid once per block: --per-block sets how far that
 * is amortized.  --profile=VARIANT runs only that variant (for perf stat /
 * perf record; its ratios are then meaningless).
 *
 * A block: the server builds the variant's interest set (a new kqueue / epoll
 * set / pollfd array; untimed), reads getrusage(RUSAGE_SELF), tells the
 * client process to run, serves until the control socket says the block is
 * done, and reads getrusage again: CPU per request = (user + system time) /
 * requests.  The three variants take turns in rotating order, --blocks
 * blocks each (21) per number of idle connections, after a short warm-up.
 * (With 7 blocks the worst of the six levels' kevent / epoll moved by 10%
 * from run to run on a 2-CPU virtual machine: 1.11 to 1.14 against 1.06
 * with 21, where each level's figure lies within 1.02-1.11.)
 * Latency: median and 99th percentile of the round trips of all of a
 * variant's blocks at that number of idle connections, seen by the clients
 * (wall clock, so a busy machine shows here first).
 *
 * Output, per number of idle connections and variant:
 *   idle-server idle=<i> variant=<kevent|poll|epoll|floor> cpu_us_per_req=<x>
 *       user_us_per_req= sys_us_per_req= vs_epoll=<cpu / epoll's cpu>
 *       lat_median_us= lat_p99_us= req_per_s= ...
 * (the user/system split is the kernel's tick-sampled one; their sum is exact)
 * per number of idle connections
 *   idle-server-level idle=<i> kevent_vs_epoll= poll_vs_epoll= kevent_vs_floor=
 *       floor_vs_epoll= kevent_vs_epoll_paired= ...
 * and at the end
 *   idle-server-summary kevent_flatness=<cpu at most idle / at 0 idle>
 *       epoll_flatness= poll_flatness= ratio_flatness=<the same for
 *       kevent / epoll> max_kevent_vs_epoll= max_kevent_vs_floor= ...
 * Target: kevent CPU per request flat in the idle connections and
 * within 10% of the raw-epoll server.
 *
 * Exit: 0 done, 1 a call failed or a reply was wrong, 2 bad usage.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define REQ_BYTES   64
#define NEVENTS     256
#define FD_MARGIN   64
#define MAX_LEVELS  16

enum { V_KEVENT, V_POLL, V_EPOLL, V_FLOOR, NV };
static const char *const vname[NV] = { "kevent", "poll", "epoll", "floor" };
static int opt_profile = -1;   /* --profile=VARIANT: run only that one (for perf) */

enum { CMD_CONNECT = 1, CMD_RUN, CMD_QUIT, CMD_ACK, CMD_DONE };

struct msg {
	int cmd;
	long arg;
};

static void send_msg(int ctl, int cmd, long arg)
{
	struct msg m = { cmd, arg };
	if (send(ctl, &m, sizeof m, MSG_NOSIGNAL) != (ssize_t)sizeof m)
		bench_die("send(control)");
}

static struct msg recv_msg(int ctl)
{
	struct msg m;
	bench_recv_exact(ctl, &m, sizeof m);
	return m;
}

/* ---- the client process ---- */

struct client {
	int ctl, ep;
	struct sockaddr_in addr;
	int nactive, want_active;
	int *active;              /* the active connections */
	int64_t *sent_at;         /* per active connection: when its request left */
	int *got;                 /* per active connection: echo bytes so far */
	double *lat;              /* shared with the server: round trips (us) */
	long lat_cap;
};

static void client_connect(struct client *c, long k)
{
	for (long i = 0; i < k; i++) {
		int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0)
			bench_die("socket (client)");
		if (connect(s, (struct sockaddr *)&c->addr, sizeof c->addr) != 0)
			bench_die("connect");
		bench_nodelay(s);
		if (c->nactive < c->want_active) {
			struct epoll_event ee = { .events = EPOLLIN, .data.u32 = (uint32_t)c->nactive };
			if (epoll_ctl(c->ep, EPOLL_CTL_ADD, s, &ee) != 0)
				bench_die("epoll_ctl (client)");
			c->active[c->nactive++] = s;
		}
		/* Idle connections just stay open. */
	}
}

static void client_send(struct client *c, int i)
{
	static const char req[REQ_BYTES] = "GET /echo";
	c->got[i] = 0;
	c->sent_at[i] = bench_now_ns();
	if (write(c->active[i], req, REQ_BYTES) != REQ_BYTES)
		bench_die("write (client request)");
}

static void client_run(struct client *c, long reqs)
{
	struct epoll_event evs[NEVENTS];
	char buf[4 * REQ_BYTES];
	long issued = 0, done = 0;
	if (reqs > c->lat_cap)
		reqs = c->lat_cap;
	for (int i = 0; i < c->nactive && issued < reqs; i++, issued++)
		client_send(c, i);
	while (done < reqs) {
		int r = epoll_wait(c->ep, evs, NEVENTS, 10000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("client: epoll_wait returned %d with %ld of %ld answers", r, done,
				   reqs);
		for (int j = 0; j < r; j++) {
			int i = (int)evs[j].data.u32;
			ssize_t n = read(c->active[i], buf, sizeof buf);
			if (n <= 0 || c->got[i] + n > REQ_BYTES)
				bench_fail("client: read returned %zd with %d of %d echo bytes", n,
					   c->got[i], REQ_BYTES);
			c->got[i] += (int)n;
			if (c->got[i] < REQ_BYTES)
				continue;
			c->lat[done++] = (double)(bench_now_ns() - c->sent_at[i]) / 1000.0;
			if (issued < reqs) {
				client_send(c, i);
				issued++;
			}
		}
	}
}

static __attribute__((noreturn)) void client_main(int ctl, struct sockaddr_in addr,
						  int nactive, double *lat, long lat_cap,
						  int cpu)
{
	struct client c = { .ctl = ctl, .addr = addr, .want_active = nactive, .lat = lat,
			    .lat_cap = lat_cap };
	bench_pin_to(cpu);
	c.ep = epoll_create1(EPOLL_CLOEXEC);
	if (c.ep < 0)
		bench_die("epoll_create1 (client)");
	c.active = bench_alloc((size_t)nactive, sizeof *c.active);
	c.sent_at = bench_alloc((size_t)nactive, sizeof *c.sent_at);
	c.got = bench_alloc((size_t)nactive, sizeof *c.got);
	for (;;) {
		struct msg m = recv_msg(ctl);
		if (m.cmd == CMD_CONNECT) {
			client_connect(&c, m.arg);
			send_msg(ctl, CMD_ACK, m.arg);
		} else if (m.cmd == CMD_RUN) {
			client_run(&c, m.arg);
			send_msg(ctl, CMD_DONE, m.arg);
		} else {
			_exit(0);
		}
	}
}

/* ---- the server ---- */

struct server {
	int ctl, lsn;
	int nconn;
	int *conn;                /* every accepted connection */
	struct pollfd *pfd;
	struct kevent *chg;
};

static void server_accept(struct server *s, long k)
{
	send_msg(s->ctl, CMD_CONNECT, k);
	for (long i = 0; i < k; i++) {
		int fd = accept4(s->lsn, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			bench_die("accept4");
		bench_nodelay(fd);
		s->conn[s->nconn++] = fd;
	}
	struct msg m = recv_msg(s->ctl);
	if (m.cmd != CMD_ACK || m.arg != k)
		bench_fail("control: expected ACK %ld, got %d %ld", k, m.cmd, m.arg);
}

/* Echoes what `fd` has (at most `want` bytes); 1 when the control socket
 * said the block is done. */
static int serve_fd(struct server *s, int fd, long want)
{
	char buf[4096];
	if (fd == s->ctl) {
		struct msg m = recv_msg(s->ctl);
		if (m.cmd != CMD_DONE)
			bench_fail("control: expected DONE, got %d", m.cmd);
		return 1;
	}
	size_t len = want > 0 && (size_t)want < sizeof buf ? (size_t)want : sizeof buf;
	ssize_t n = read(fd, buf, len);
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		bench_fail("server: read(fd %d) = %zd (%s)", fd, n, n < 0 ? strerror(errno) : "EOF");
	ssize_t w = write(fd, buf, (size_t)n);
	if (w != n)
		bench_fail("server: write(fd %d) = %zd of %zd", fd, w, n);
	return 0;
}

struct usage {
	double user_us, sys_us;
};

static struct usage usage_now(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		bench_die("getrusage");
	struct usage u = { ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec,
			   ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec };
	return u;
}

/* Serves until the control socket says the block's requests are done. */
static void serve_kevent(struct server *s, int kq)
{
	struct kevent ev[NEVENTS];
	for (;;) {
		int r = kevent(kq, NULL, 0, ev, NEVENTS, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("server: kevent returned %d (%s)", r, r < 0 ? strerror(errno) : "");
		int done = 0;
		for (int j = 0; j < r; j++) {
			if (ev[j].flags & (EV_ERROR | EV_EOF))
				bench_fail("server: kevent record for fd %lu has flags %#x",
					   (unsigned long)ev[j].ident, ev[j].flags);
			done |= serve_fd(s, (int)ev[j].ident, (long)ev[j].data);
		}
		if (done)
			return;
	}
}

static void serve_poll(struct server *s, int n)
{
	for (;;) {
		int r = poll(s->pfd, (nfds_t)n, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("server: poll returned %d (%s)", r, r < 0 ? strerror(errno) : "");
		int done = 0;
		for (int i = 0; i < n && r > 0; i++) {
			if (!s->pfd[i].revents)
				continue;
			r--;
			if (s->pfd[i].revents != POLLIN)
				bench_fail("server: poll revents %#x on fd %d", s->pfd[i].revents,
					   s->pfd[i].fd);
			done |= serve_fd(s, s->pfd[i].fd, 0);
		}
		if (done)
			return;
	}
}

static void serve_epoll(struct server *s, int ep, int fionread)
{
	struct epoll_event evs[NEVENTS];
	for (;;) {
		int r = epoll_wait(ep, evs, NEVENTS, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("server: epoll_wait returned %d (%s)", r,
				   r < 0 ? strerror(errno) : "");
		int done = 0;
		for (int j = 0; j < r; j++) {
			if (evs[j].events != EPOLLIN)
				bench_fail("server: epoll events %#x on fd %d", evs[j].events,
					   evs[j].data.fd);
			int fd = evs[j].data.fd, avail = 0;
			if (fionread && fd != s->ctl && ioctl(fd, FIONREAD, &avail) != 0)
				bench_die("ioctl(FIONREAD)");
			done |= serve_fd(s, fd, avail);
		}
		if (done)
			return;
	}
}

/* One block of variant v: builds its interest set over every connection and
 * the control socket (untimed), then times `reqs` requests. */
static struct usage block(struct server *s, int v, long reqs)
{
	int total = s->nconn + 1, kq = -1, ep = -1;
	for (int i = 0; i < total; i++) {
		int fd = i < s->nconn ? s->conn[i] : s->ctl;
		if (v == V_KEVENT)
			EV_SET(&s->chg[i], fd, EVFILT_READ, EV_ADD, 0, 0, NULL);
		s->pfd[i].fd = fd;
		s->pfd[i].events = POLLIN;
		s->pfd[i].revents = 0;
	}
	if (v == V_KEVENT) {
		kq = kqueue();
		if (kq < 0)
			bench_die("kqueue");
		for (int off = 0; off < total; off += 1024) {
			int k = total - off < 1024 ? total - off : 1024;
			int r = kevent(kq, s->chg + off, k, NULL, 0, NULL);
			if (r != 0)
				bench_fail("kevent(EV_ADD x%d) = %d: %s", k, r,
					   r < 0 ? strerror(errno) : "records returned");
		}
	} else if (v == V_EPOLL || v == V_FLOOR) {
		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0)
			bench_die("epoll_create1");
		for (int i = 0; i < total; i++) {
			struct epoll_event ee = { .events = EPOLLIN, .data.fd = s->pfd[i].fd };
			if (epoll_ctl(ep, EPOLL_CTL_ADD, s->pfd[i].fd, &ee) != 0)
				bench_die("epoll_ctl(ADD)");
		}
	}

	struct usage u0 = usage_now();
	send_msg(s->ctl, CMD_RUN, reqs);
	if (v == V_KEVENT)
		serve_kevent(s, kq);
	else if (v == V_POLL)
		serve_poll(s, total);
	else
		serve_epoll(s, ep, v == V_FLOOR);
	struct usage u1 = usage_now();

	if (kq >= 0)
		close(kq);
	if (ep >= 0)
		bench_raw_close(ep);
	struct usage d = { u1.user_us - u0.user_us, u1.sys_us - u0.sys_us };
	return d;
}

struct level {
	int idle;
	double cpu[NV];          /* us per request, medians */
	double paired_kevent;    /* median of per-block kevent / epoll */
	double paired_poll;
	double paired_floor;     /* median of per-block kevent / floor */
};

static struct level measure(struct server *s, int idle, long blocks, long reqs,
			    const double *lat_shared)
{
	size_t nb = (size_t)blocks;
	double *cpu[NV], *usr[NV], *sys[NV], *wall[NV], *lat[NV];
	for (int v = 0; v < NV; v++) {
		cpu[v] = bench_alloc(nb, sizeof(double));
		usr[v] = bench_alloc(nb, sizeof(double));
		sys[v] = bench_alloc(nb, sizeof(double));
		wall[v] = bench_alloc(nb, sizeof(double));
		lat[v] = bench_alloc(nb * (size_t)reqs, sizeof(double));
	}
	double *pk = bench_alloc(nb, sizeof(double)), *pp = bench_alloc(nb, sizeof(double));
	double *pf = bench_alloc(nb, sizeof(double));

	for (int v = 0; v < NV; v++)   /* warm-up, not recorded */
		if (opt_profile < 0 || v == opt_profile)
			block(s, v, reqs / 4 > 100 ? reqs / 4 : 100);
	for (size_t b = 0; b < nb; b++) {
		for (int k = 0; k < NV; k++) {
			int v = bench_turn((long)b, k, NV);
			if (opt_profile >= 0 && v != opt_profile) {
				cpu[v][b] = usr[v][b] = sys[v][b] = wall[v][b] = 1.0;
				continue;   /* --profile: only one variant runs */
			}
			int64_t w0 = bench_now_ns();
			struct usage u = block(s, v, reqs);
			wall[v][b] = (double)(bench_now_ns() - w0);
			usr[v][b] = u.user_us / (double)reqs;
			sys[v][b] = u.sys_us / (double)reqs;
			cpu[v][b] = usr[v][b] + sys[v][b];
			memcpy(lat[v] + b * (size_t)reqs, lat_shared, (size_t)reqs * sizeof(double));
		}
		pk[b] = cpu[V_KEVENT][b] / cpu[V_EPOLL][b];
		pp[b] = cpu[V_POLL][b] / cpu[V_EPOLL][b];
		pf[b] = cpu[V_KEVENT][b] / cpu[V_FLOOR][b];
	}

	struct level L = { .idle = idle };
	for (int v = 0; v < NV; v++)
		L.cpu[v] = bench_median(cpu[v], nb);
	L.paired_kevent = bench_median(pk, nb);
	L.paired_poll = bench_median(pp, nb);
	L.paired_floor = bench_median(pf, nb);
	size_t nl = nb * (size_t)reqs;
	for (int v = 0; v < NV; v++) {
		printf("idle-server idle=%d variant=%s cpu_us_per_req=%.2f user_us_per_req=%.2f "
		       "sys_us_per_req=%.2f vs_epoll=%.3f lat_median_us=%.1f lat_p99_us=%.1f "
		       "req_per_s=%.0f cpu_iqr_pct=%.1f clients=%d reqs_per_block=%ld blocks=%ld\n",
		       idle, vname[v], L.cpu[v], bench_median(usr[v], nb), bench_median(sys[v], nb),
		       L.cpu[v] / L.cpu[V_EPOLL], bench_median(lat[v], nl),
		       bench_quantile(lat[v], nl, 0.99), reqs / (bench_median(wall[v], nb) / 1e9),
		       bench_iqr_pct(cpu[v], nb), s->nconn - idle, reqs, blocks);
	}
	printf("idle-server-level idle=%d kevent_vs_epoll=%.3f poll_vs_epoll=%.3f "
	       "kevent_vs_floor=%.3f floor_vs_epoll=%.3f kevent_vs_epoll_paired=%.3f "
	       "poll_vs_epoll_paired=%.3f kevent_vs_floor_paired=%.3f\n",
	       idle, L.cpu[V_KEVENT] / L.cpu[V_EPOLL], L.cpu[V_POLL] / L.cpu[V_EPOLL],
	       L.cpu[V_KEVENT] / L.cpu[V_FLOOR], L.cpu[V_FLOOR] / L.cpu[V_EPOLL],
	       L.paired_kevent, L.paired_poll, L.paired_floor);
	fflush(stdout);
	for (int v = 0; v < NV; v++) {
		free(cpu[v]);
		free(usr[v]);
		free(sys[v]);
		free(wall[v]);
		free(lat[v]);
	}
	free(pk);
	free(pp);
	free(pf);
	return L;
}

static long opt_idle[MAX_LEVELS];
static int opt_nidle;
static long opt_clients;
static int opt_no_pin;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--idle=", 7) == 0)
		opt_nidle = bench_parse_list("--idle", a + 7, 0, opt_idle, MAX_LEVELS);
	else if (strncmp(a, "--clients=", 10) == 0)
		opt_clients = bench_parse_long("--clients", a + 10);
	else if (strcmp(a, "--no-pin") == 0)
		opt_no_pin = 1;
	else if (strncmp(a, "--profile=", 10) == 0) {
		for (int v = 0; v < NV; v++)
			if (strcmp(a + 10, vname[v]) == 0)
				opt_profile = v;
		if (opt_profile < 0) {
			fprintf(stderr, "unknown variant in %s\n", a);
			exit(2);
		}
	}
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static const long full_idle[] = { 0, 1000, 2000, 5000, 10000, 15000 };
	static const long quick_idle[] = { 0, 500 };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra,
			 "[--idle=I,I,...] [--clients=N] [--no-pin] [--profile=kevent|poll|epoll|floor]");
	long blocks = o.blocks ? o.blocks : o.quick ? 2 : 21;
	long reqs = o.per_block ? o.per_block : o.quick ? 400 : 4000;
	int nactive = (int)(opt_clients ? opt_clients : 100);
	const long *idle = opt_nidle ? opt_idle : o.quick ? quick_idle : full_idle;
	int nidle = opt_nidle ? opt_nidle : o.quick ? 2 : (int)(sizeof full_idle / sizeof full_idle[0]);

	long limit = bench_raise_nofile();
	long max_idle = limit - FD_MARGIN - nactive;
	cpu_set_t allowed;
	int cpus[2] = { -1, -1 }, ncpus = 0;
	if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
		for (int c = 0; c < CPU_SETSIZE && ncpus < 2; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[ncpus++] = c;
	int pin = !opt_no_pin && ncpus >= 2;

	bench_header("idle-server", &o);
	printf("# echo of %d-byte requests over TCP on 127.0.0.1; %d active clients in a child "
	       "process, one request in flight each; %ld requests per block, median of %ld "
	       "blocks per variant, order rotating; fd limit %ld per process (idle <= %ld); "
	       "%s\n", REQ_BYTES, nactive, reqs, blocks, limit, max_idle,
	       pin ? "server and clients pinned to two CPUs" : "not pinned");
	if (opt_profile >= 0)
		printf("# --profile=%s: only that variant runs; every ratio below is meaningless\n",
		       vname[opt_profile]);
	fflush(stdout);

	struct server s = { 0 };
	s.lsn = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s.lsn < 0)
		bench_die("socket (listen)");
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof addr;
	if (bind(s.lsn, (struct sockaddr *)&addr, sizeof addr) != 0 ||
	    getsockname(s.lsn, (struct sockaddr *)&addr, &alen) != 0 || listen(s.lsn, 4096) != 0)
		bench_die("bind/listen");
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		bench_die("socketpair (control)");
	double *lat = mmap(NULL, (size_t)reqs * sizeof(double), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lat == MAP_FAILED)
		bench_die("mmap (latencies)");

	fflush(stdout);
	pid_t child = fork();
	if (child < 0)
		bench_die("fork");
	if (child == 0) {
		close(sv[0]);
		close(s.lsn);
		client_main(sv[1], addr, nactive, lat, reqs, pin ? cpus[1] : -1);
	}
	close(sv[1]);
	s.ctl = sv[0];
	if (pin)
		bench_pin_to(cpus[0]);

	long most = nactive + max_idle;
	s.conn = bench_alloc((size_t)most, sizeof *s.conn);
	s.pfd = bench_alloc((size_t)most + 1, sizeof *s.pfd);
	s.chg = bench_alloc((size_t)most + 1, sizeof *s.chg);
	server_accept(&s, nactive);

	struct level lv[MAX_LEVELS];
	int nl = 0;
	for (int i = 0; i < nidle; i++) {
		long want = idle[i];
		if (want > max_idle) {
			if (nl > 0 && lv[nl - 1].idle >= max_idle)
				break;
			printf("# %ld idle connections do not fit under the fd limit; using %ld\n",
			       want, max_idle);
			want = max_idle;
		}
		long have = s.nconn - nactive;
		if (want < have) {
			printf("# idle=%ld: levels must grow; skipped\n", want);
			continue;
		}
		if (want > have)
			server_accept(&s, want - have);
		lv[nl++] = measure(&s, (int)want, blocks, reqs, lat);
	}

	send_msg(s.ctl, CMD_QUIT, 0);
	int st = 0;
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bench_fail("the client process ended badly (status %#x)", st);

	if (nl > 0) {
		const struct level *f = &lv[0], *l = &lv[nl - 1];
		double max_ratio = 0.0, max_paired = 0.0, max_floor = 0.0;
		int max_at = 0;
		for (int i = 0; i < nl; i++) {
			double r = lv[i].cpu[V_KEVENT] / lv[i].cpu[V_EPOLL];
			if (r > max_ratio) {
				max_ratio = r;
				max_at = lv[i].idle;
			}
			if (lv[i].paired_kevent > max_paired)
				max_paired = lv[i].paired_kevent;
			if (lv[i].cpu[V_KEVENT] / lv[i].cpu[V_FLOOR] > max_floor)
				max_floor = lv[i].cpu[V_KEVENT] / lv[i].cpu[V_FLOOR];
		}
		/* Flatness compares levels measured at different times, so machine
		 * drift enters it (epoll_flatness shows how much); ratio_flatness,
		 * kevent / epoll at the most idle connections over the same at the
		 * fewest, cancels it. */
		printf("idle-server-summary kevent_flatness=%.3f epoll_flatness=%.3f "
		       "poll_flatness=%.3f ratio_flatness=%.3f max_kevent_vs_epoll=%.3f "
		       "max_kevent_vs_epoll_idle=%d max_kevent_vs_epoll_paired=%.3f "
		       "max_kevent_vs_floor=%.3f poll_vs_epoll_at_most_idle=%.3f "
		       "smallest_idle=%d largest_idle=%d target_ratio=1.10\n",
		       l->cpu[V_KEVENT] / f->cpu[V_KEVENT], l->cpu[V_EPOLL] / f->cpu[V_EPOLL],
		       l->cpu[V_POLL] / f->cpu[V_POLL],
		       (l->cpu[V_KEVENT] / l->cpu[V_EPOLL]) / (f->cpu[V_KEVENT] / f->cpu[V_EPOLL]),
		       max_ratio, max_at, max_paired, max_floor, l->cpu[V_POLL] / l->cpu[V_EPOLL],
		       f->idle, l->idle);
	}
	for (int i = 0; i < s.nconn; i++)
		bench_raw_close(s.conn[i]);
	bench_raw_close(s.lsn);
	bench_raw_close(s.ctl);
	munmap(lat, (size_t)reqs * sizeof(double));
	free(s.conn);
	free(s.pfd);
	free(s.chg);
	return 0;
}
