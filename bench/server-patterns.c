/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * server-patterns: the server patterns real programs use, each written twice,
 * on kevent() and as the raw-epoll program a careful Linux programmer would
 * write for the same work, measured side by side in one run for CPU per
 * request and system calls per request.
 *
 * Processes: this one is the server and nothing else; a forked child is
 * every client (and the proxy's backend).  When two CPUs are usable the
 * server is pinned to one and the child to the other (--no-pin: not); only
 * conn2's two server threads leave the pin for their blocks (see conn2).
 * They talk over a SOCK_SEQPACKET control socket.  Everything is on
 * 127.0.0.1.
 * Requests and replies are REQ_BYTES (64) bytes; every reply is checked by
 * the client (content and count) and every block must answer exactly its
 * requests, or the run fails.
 *
 * The patterns (both servers level-triggered, one kqueue / epoll set built
 * afresh per block, untimed, so a knote's first-event costs are paid in the
 * block and amortized over its requests):
 *   keepalive  100 TCP connections, one request in flight on each.
 *              kevent: read(fd, buf, data), write.  epoll: read(fd, buf,
 *              sizeof buf), write.
 *   conn       a new TCP connection per request, 16 in flight; the server
 *              accepts, reads the request, writes the reply, closes.
 *              kevent: accept `data` times on a listener event, the new
 *              socket's EV_ADD goes into the next kevent()'s changelist;
 *              close() drops its knote.  epoll: accept4 until EAGAIN,
 *              epoll_ctl(ADD) per socket, close (no DEL).  Accepted
 *              close-on-exec, or not with --inheritable (HAProxy's way).
 *   readd      the keepalive connections served with the read knote removed
 *              while the request is served: on a read event EV_DELETE it,
 *              read until EAGAIN (echoing), then EV_ADD it again; both
 *              changes travel in the next kevent()'s changelist.  epoll:
 *              EPOLL_CTL_DEL, reads and writes, EPOLL_CTL_ADD at EAGAIN.
 *   disable    the same with EV_DISABLE / EV_ENABLE; epoll:
 *              EPOLL_CTL_MOD to no events, then back to EPOLLIN.
 *   proxy      the keepalive connections' requests forwarded to a backend
 *              (in the client process) over an outgoing non-blocking
 *              connect per request; every 4th connect goes to a port that
 *              is bound but not listening and is refused, and the client
 *              gets an error reply.  kevent: EVFILT_WRITE EV_ADD|EV_ONESHOT
 *              for the connect, EV_EOF + fflags say it was refused; then
 *              write the request, EV_ADD EVFILT_READ (changelist), read the
 *              reply, write it to the client, close().  epoll: epoll_ctl(ADD,
 *              EPOLLOUT); on EPOLLERR getsockopt(SO_ERROR); else write,
 *              epoll_ctl(MOD, EPOLLIN), read, write to the client, close.
 *   udp        one UDP socket, 32 client sockets with a datagram in flight
 *              each; both servers recvfrom/sendto until EAGAIN per event.
 *   conn2      conn served by two threads of the server process, each with
 *              its own kqueue / epoll set and its own listener; the two
 *              listeners share one port (SO_REUSEPORT), so the client,
 *              as for conn, connects to one address and the kernel spreads
 *              the connections.  What it shows: whether close() in one
 *              thread costs more while the other thread waits in kevent()
 *              on a kqueue of its own (a close() that visits every live
 *              kqueue would).  Each thread adds what it served to a shared
 *              total after every batch; the one that completes the block
 *              writes an eventfd both sets watch (level), which wakes the
 *              other.  During these blocks both threads may run on every
 *              CPU the program was given (the server's pin is lifted and
 *              put back after), so that they really run in parallel.
 * The kevent servers use close() (libkq's); the epoll servers close with
 * the raw system call (bench_raw_close).
 *
 * A third variant, floor, is the epoll server plus one ioctl(FIONREAD) on
 * each returned event's descriptor: the least a kqueue on Linux pays for
 * the exact `data` FreeBSD reports.  It is measured like the others and
 * shows how much of kevent's CPU is the count and how much is libkq.
 *
 * CPU per request: the server's getrusage(RUSAGE_SELF) (user + system, both
 * threads for conn2) over a block divided by its requests.  The variants
 * take turns in rotating order (bench_turn), --blocks blocks each (31;
 * quick: 2) after a warm-up block each; a variant's figure is the median
 * over its blocks.  (With 11 blocks a pattern's kevent / epoll moved by
 * 3-5% from run to run on a 2-CPU virtual machine; the whole run takes
 * about 35 s with 31.)
 *
 * System calls per request: counted in separate, untimed blocks (counting
 * slows system calls), --count-blocks (2; quick: 1) per variant and pattern,
 * in the server process only, from the moment the block's work starts to
 * the moment its last request is answered; total calls / total requests.
 * Methods (method= in the output):
 *   perf    a perf_event_open() counter of the tracepoint
 *           raw_syscalls:sys_enter on this process (every system call
 *           entered, libkq's own included), opened only around the counted
 *           blocks and read before and after each one; the read() that
 *           ends a block is subtracted.  Needs root or perf_event_paranoid
 *           <= 1; the tracepoint's id is read from tracefs, which, when it
 *           is not mounted and this runs as root, a short-lived child
 *           mounts in a private mount namespace of its own.
 *   ptrace  a forked tracer process attaches to the server (PTRACE_SEIZE,
 *           PTRACE_O_TRACESYSGOOD) for the counted blocks and counts
 *           syscall-entry stops between two marker calls
 *           (getpriority(PRIO_PGRP, <magic>), not counted); also keeps a
 *           count per system call (getsockopt by option, ioctl by request,
 *           fcntl by command), printed with --breakdown.
 *   none    neither works: syscalls_per_req=na.
 * conn2 is counted with perf only (the counter is inherited by the second
 * thread, made for each block after the counter was opened); the tracer
 * follows one thread, so with ptrace (and --breakdown) conn2 gives na and
 * method=none.  Its counts include, per block, the stop eventfd's write,
 * the woken thread's last wait and the first thread out's wait for the
 * other (a few calls per block, not per request).
 * --method=perf|ptrace picks one; --breakdown implies ptrace and prints, per
 * pattern and variant, each system call's count per request.
 * "Events" are the records kevent() / epoll_wait() returned, per request;
 * the target allows the kevent server the epoll server's calls plus one per
 * kevent record (the query FreeBSD's exact `data` may need on Linux).
 * How often a server runs out of work and waits is timing, not code: in
 * udp a counted block may wait 0 or 10 times in 4000 requests, and each
 * wait costs the wait call and the read that found nothing.  So the
 * epoll server's calls are taken at the kevent server's number of waits:
 * each wait more (or fewer) adds (or takes off) what one of the epoll
 * server's waits cost it, the wait and its EAGAIN calls per wait, as
 * counted.  A call kevent's `data` saves (an accept loop's last accept)
 * is not a wait and stays to kevent's credit.
 *
 * Output, per pattern and variant:
 *   server-patterns pattern=<p> variant=<kevent|epoll|floor> cpu_us_per_req=<x>
 *       user_us_per_req= sys_us_per_req= vs_epoll=<cpu / epoll's cpu>
 *       syscalls_per_req= events_per_req= method= cpu_iqr_pct= ...
 * per pattern
 *   server-patterns-pattern pattern=<p> cpu_ratio= cpu_ratio_paired=
 *       cpu_vs_floor=<kevent / floor> floor_syscalls_per_req=
 *       kevent_syscalls_per_req= epoll_syscalls_per_req= kevent_waits_per_req=
 *       epoll_waits_per_req= epoll_calls_per_wait= syscall_limit=
 *       extra_syscalls_per_req=<kevent - epoll> syscalls_met=<yes|no|na>
 *       fewer_than_epoll=<yes|no|na> method=
 * with --breakdown, per pattern, variant and system call
 *   server-patterns-syscall pattern= variant= call=<name> per_req=
 * and at the end
 *   server-patterns-summary patterns= max_cpu_ratio= max_cpu_pattern=
 *       cpu_met=<n> syscalls_met=<n> fewer_than_epoll=<n> method=
 * Targets: CPU per request <= 1.00x of the raw-epoll server; system calls
 * per request <= epoll's + kevent's records per request.
 * --only=p,p,... runs only those patterns.
 *
 * Exit: 0 done, 1 a call failed or a reply was wrong, 2 bad usage.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define REQ_BYTES   64
#define NEVENTS     256
#define NKA         100      /* keep-alive connections */
#define CONN_INFLIGHT 16     /* pattern conn: connections in flight */
#define NUDP        32       /* UDP client sockets */
#define REFUSE_EVERY 4       /* proxy: every 4th connect is refused */
#define CHG_MAX     (4 * NEVENTS)
#define NR_MAX      1024     /* system call numbers kept by the tracer */

/* conn2 comes last so that the others keep their order in the output. */
enum { P_KEEPALIVE, P_CONN, P_READD, P_DISABLE, P_PROXY, P_UDP, P_CONN2, NP };
static const char *const pname[NP] = { "keepalive", "conn", "readd", "disable", "proxy",
				       "udp", "conn2" };
enum { V_KEVENT, V_EPOLL, V_FLOOR, NV };
static const char *const vname[NV] = { "kevent", "epoll", "floor" };
enum { M_NONE, M_PERF, M_PTRACE };
static const char *const mname[] = { "none", "perf", "ptrace" };

enum { CMD_CONNECT = 1, CMD_RUN, CMD_QUIT, CMD_ACK, CMD_DONE };

struct msg {
	int cmd, pat;
	long arg, arg2;
};

static void send_msg(int ctl, int cmd, int pat, long arg, long arg2)
{
	struct msg m = { cmd, pat, arg, arg2 };
	if (send(ctl, &m, sizeof m, MSG_NOSIGNAL) != (ssize_t)sizeof m)
		bench_die("send(control)");
}

static struct msg recv_msg(int ctl)
{
	struct msg m;
	bench_recv_exact(ctl, &m, sizeof m);
	return m;
}

/* A TCP or UDP socket bound to 127.0.0.1 on a free port; *addr gets it. */
static int bound_socket(int type, struct sockaddr_in *addr)
{
	int s = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (s < 0)
		bench_die("socket");
	memset(addr, 0, sizeof *addr);
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof *addr;
	if (bind(s, (struct sockaddr *)addr, sizeof *addr) != 0 ||
	    getsockname(s, (struct sockaddr *)addr, &alen) != 0)
		bench_die("bind");
	return s;
}

/* Two listeners on one port of 127.0.0.1 (SO_REUSEPORT: the kernel spreads
 * the connections between them); *addr gets the port. */
static void reuseport_pair(int lsn[2], struct sockaddr_in *addr)
{
	memset(addr, 0, sizeof *addr);
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < 2; i++) {
		int one = 1;
		lsn[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (lsn[i] < 0 ||
		    setsockopt(lsn[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0)
			bench_die("socket (SO_REUSEPORT)");
		socklen_t alen = sizeof *addr;
		/* the first takes a free port, the second joins it */
		if (bind(lsn[i], (struct sockaddr *)addr, sizeof *addr) != 0 ||
		    getsockname(lsn[i], (struct sockaddr *)addr, &alen) != 0)
			bench_die("bind (SO_REUSEPORT)");
		if (listen(lsn[i], 4096) != 0)
			bench_die("listen");
	}
}

static void fill_request(char *req, long seq)
{
	memset(req, '.', REQ_BYTES);
	int n = snprintf(req, REQ_BYTES, "Q%09ld request", seq);
	req[n] = '.';
}

static int is_echo(int pat)
{
	return pat != P_PROXY;
}

static int uses_keepalive(int pat)
{
	return pat == P_KEEPALIVE || pat == P_READD || pat == P_DISABLE || pat == P_PROXY;
}

/* A new connection per request: conn, and conn2 (the same for the client). */
static int uses_conn(int pat)
{
	return pat == P_CONN || pat == P_CONN2;
}

/* ---- the client process ---- */

enum { T_KA = 1, T_CONN, T_BLSN, T_BCONN, T_UDP };

static uint64_t tag(int t, int idx)
{
	return (uint64_t)t << 32 | (uint32_t)idx;
}

struct client {
	int ctl, ep, blsn;
	struct sockaddr_in ka_addr, conn_addr, conn2_addr, udp_addr;
	int ka[NKA], nka;
	int udp[NUDP];
	long fdcap;
	char (*req)[REQ_BYTES];   /* per fd / slot: the request in flight */
	char (*buf)[REQ_BYTES];   /* per fd / slot: the reply so far */
	int *got;                 /* per fd / slot: bytes of it */
	long issued, done, errors;
	long reqs;
	int pat;
};

/* --inheritable: connections are accepted without SOCK_CLOEXEC, as
 * HAProxy's are (a close then frees its file unless a child copied it). */
static int accept_cloexec = SOCK_CLOEXEC;

/* One connection from a non-blocking listener, or -1 when none is
 * waiting; any other failure, or a descriptor beyond the tables, ends the
 * run. */
static int accept_conn(int lsn, long fdcap, const char *who)
{
	int fd = accept4(lsn, NULL, NULL, SOCK_NONBLOCK | accept_cloexec);
	if (fd < 0 && errno == EAGAIN)
		return -1;
	if (fd < 0)
		bench_fail("accept4 (%s): %s", who, strerror(errno));
	if (fd >= fdcap)
		bench_fail("%s: fd %d above the limit", who, fd);
	return fd;
}

static void cli_ep(struct client *c, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ee = { .events = events, .data.u64 = data };
	if (epoll_ctl(c->ep, op, fd, &ee) != 0)
		bench_die("epoll_ctl (client)");
}

static void cli_write(int fd, const char *b)
{
	ssize_t w = write(fd, b, REQ_BYTES);
	if (w != REQ_BYTES)
		bench_fail("client: write = %zd (%s)", w, w < 0 ? strerror(errno) : "short");
}

/* Checks a complete reply against its request. */
static void cli_check(struct client *c, const char *req, const char *rep)
{
	if (is_echo(c->pat)) {
		if (memcmp(req, rep, REQ_BYTES) != 0)
			bench_fail("client (%s): reply '%.20s' to request '%.20s'", pname[c->pat],
				   rep, req);
	} else {
		if (memcmp(req + 1, rep + 1, REQ_BYTES - 1) != 0 || (rep[0] != 'B' && rep[0] != 'E'))
			bench_fail("client (proxy): reply '%.20s' to request '%.20s'", rep, req);
		if (rep[0] == 'E')
			c->errors++;
	}
	c->done++;
}

/* Slot layout of the per-fd arrays: fds index them directly; the
 * keep-alive and UDP slots live above the descriptor limit. */
static int ka_slot(struct client *c, int i)
{
	return (int)c->fdcap + i;
}

static int udp_slot(struct client *c, int i)
{
	return (int)c->fdcap + NKA + i;
}

static void ka_send(struct client *c, int i)
{
	int k = ka_slot(c, i);
	fill_request(c->req[k], c->issued++);
	c->got[k] = 0;
	cli_write(c->ka[i], c->req[k]);
}

static void conn_start(struct client *c)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		bench_die("socket (client conn)");
	if (s >= c->fdcap)
		bench_fail("client: fd %d above the limit", s);
	fill_request(c->req[s], c->issued++);
	c->got[s] = -1;   /* connecting */
	/* conn2's port is another one: conn's single listener has no
	 * SO_REUSEPORT and stays as it was */
	const struct sockaddr_in *to = c->pat == P_CONN2 ? &c->conn2_addr : &c->conn_addr;
	int r = connect(s, (const struct sockaddr *)to, sizeof *to);
	if (r != 0 && errno != EINPROGRESS)
		bench_die("connect (client conn)");
	cli_ep(c, EPOLL_CTL_ADD, s, EPOLLOUT, tag(T_CONN, s));
}

static void udp_send(struct client *c, int i)
{
	int k = udp_slot(c, i);
	fill_request(c->req[k], c->issued++);
	if (send(c->udp[i], c->req[k], REQ_BYTES, 0) != REQ_BYTES)
		bench_die("send (client udp)");
}

/* Reads into slot k from fd; 1 when the reply is complete. */
static int cli_read(struct client *c, int fd, int k)
{
	ssize_t n = read(fd, c->buf[k] + c->got[k], (size_t)(REQ_BYTES - c->got[k]));
	if (n < 0 && errno == EAGAIN)
		return 0;
	if (n <= 0)
		bench_fail("client (%s): read = %zd (%s) with %d bytes of a reply", pname[c->pat],
			   n, n < 0 ? strerror(errno) : "EOF", c->got[k]);
	c->got[k] += (int)n;
	return c->got[k] == REQ_BYTES;
}

static void cli_event(struct client *c, uint64_t d, uint32_t events)
{
	int t = (int)(d >> 32), i = (int)(uint32_t)d;
	switch (t) {
	case T_KA: {
		int k = ka_slot(c, i);
		if (!cli_read(c, c->ka[i], k))
			return;
		cli_check(c, c->req[k], c->buf[k]);
		if (c->issued < c->reqs)
			ka_send(c, i);
		return;
	}
	case T_CONN:
		if (c->got[i] < 0) {
			if (events & (EPOLLERR | EPOLLHUP))
				bench_fail("client: connect failed (events %#x)", events);
			c->got[i] = 0;
			cli_write(i, c->req[i]);
			cli_ep(c, EPOLL_CTL_MOD, i, EPOLLIN, tag(T_CONN, i));
			return;
		}
		if (!cli_read(c, i, i))
			return;
		cli_check(c, c->req[i], c->buf[i]);
		bench_raw_close(i);
		if (c->issued < c->reqs)
			conn_start(c);
		return;
	case T_BLSN:
		for (int s; (s = accept_conn(c->blsn, c->fdcap, "backend")) >= 0;) {
			c->got[s] = 0;
			cli_ep(c, EPOLL_CTL_ADD, s, EPOLLIN, tag(T_BCONN, s));
		}
		return;
	case T_BCONN:
		if (!cli_read(c, i, i))
			return;
		c->buf[i][0] = 'B';
		cli_write(i, c->buf[i]);
		bench_raw_close(i);
		return;
	case T_UDP: {
		int k = udp_slot(c, i);
		ssize_t n = recv(c->udp[i], c->buf[k], REQ_BYTES, 0);
		if (n < 0 && errno == EAGAIN)
			return;
		if (n != REQ_BYTES)
			bench_fail("client: udp recv = %zd", n);
		cli_check(c, c->req[k], c->buf[k]);
		if (c->issued < c->reqs)
			udp_send(c, i);
		return;
	}
	default:
		bench_fail("client: unknown tag %d", t);
	}
}

static void client_run(struct client *c, int pat, long reqs)
{
	c->pat = pat;
	c->reqs = reqs;
	c->issued = c->done = c->errors = 0;
	if (uses_keepalive(pat))
		for (int i = 0; i < c->nka && c->issued < reqs; i++)
			ka_send(c, i);
	else if (uses_conn(pat))
		for (int i = 0; i < CONN_INFLIGHT && c->issued < reqs; i++)
			conn_start(c);
	else
		for (int i = 0; i < NUDP && c->issued < reqs; i++)
			udp_send(c, i);
	struct epoll_event evs[NEVENTS];
	while (c->done < reqs) {
		int r = epoll_wait(c->ep, evs, NEVENTS, 10000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("client (%s): epoll_wait returned %d with %ld of %ld answers",
				   pname[pat], r, c->done, reqs);
		for (int j = 0; j < r; j++)
			cli_event(c, evs[j].data.u64, evs[j].events);
	}
}

static __attribute__((noreturn)) void client_main(struct client *c, int cpu)
{
	bench_pin_to(cpu);
	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep < 0)
		bench_die("epoll_create1 (client)");
	c->req = bench_alloc((size_t)c->fdcap + NKA + NUDP, sizeof *c->req);
	c->buf = bench_alloc((size_t)c->fdcap + NKA + NUDP, sizeof *c->buf);
	c->got = bench_alloc((size_t)c->fdcap + NKA + NUDP, sizeof *c->got);
	cli_ep(c, EPOLL_CTL_ADD, c->blsn, EPOLLIN, tag(T_BLSN, 0));
	for (int i = 0; i < NUDP; i++) {
		c->udp[i] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->udp[i] < 0 ||
		    connect(c->udp[i], (struct sockaddr *)&c->udp_addr, sizeof c->udp_addr) != 0)
			bench_die("udp socket (client)");
		cli_ep(c, EPOLL_CTL_ADD, c->udp[i], EPOLLIN, tag(T_UDP, i));
	}
	for (;;) {
		struct msg m = recv_msg(c->ctl);
		if (m.cmd == CMD_CONNECT) {
			for (int i = 0; i < m.arg; i++) {
				int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
				if (s < 0 || connect(s, (struct sockaddr *)&c->ka_addr,
						     sizeof c->ka_addr) != 0)
					bench_die("connect (keep-alive)");
				bench_nodelay(s);
				cli_ep(c, EPOLL_CTL_ADD, s, EPOLLIN, tag(T_KA, c->nka));
				c->ka[c->nka++] = s;
			}
			send_msg(c->ctl, CMD_ACK, 0, m.arg, 0);
		} else if (m.cmd == CMD_RUN) {
			client_run(c, m.pat, m.arg);
			send_msg(c->ctl, CMD_DONE, m.pat, c->done, c->errors);
		} else {
			_exit(0);
		}
	}
}

/* ---- counting system calls ---- */

static int method = M_NONE;
static int opt_breakdown;
static int perf_fd = -1;
static uint64_t perf_overhead;
static long long tp_id = -1;     /* raw_syscalls:sys_enter */

static int read_id(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long long id = -1;
	if (fscanf(f, "%lld", &id) != 1)
		id = -1;
	fclose(f);
	if (id >= 0)
		tp_id = id;
	return id >= 0 ? 0 : -1;
}

/* Finds the tracepoint's id: in a mounted tracefs, or else (root) in one a
 * child mounts in a private mount namespace, which goes with the child. */
static int find_tracepoint(void)
{
	if (read_id("/sys/kernel/tracing/events/raw_syscalls/sys_enter/id") == 0 ||
	    read_id("/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id") == 0)
		return 0;
	char dir[] = "/tmp/server-patterns-tracefs.XXXXXX";
	if (!mkdtemp(dir))
		return -1;
	int pfd[2];
	if (pipe(pfd) != 0) {
		rmdir(dir);
		return -1;
	}
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		long long id = -1;
		char path[256];
		snprintf(path, sizeof path, "%s/events/raw_syscalls/sys_enter/id", dir);
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
		    mount("tracefs", dir, "tracefs", 0, NULL) == 0 && read_id(path) == 0)
			id = tp_id;
		if (write(pfd[1], &id, sizeof id) != (ssize_t)sizeof id)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	long long id = -1;
	if (p < 0 || read(pfd[0], &id, sizeof id) != (ssize_t)sizeof id)
		id = -1;
	close(pfd[0]);
	if (p > 0)
		waitpid(p, NULL, 0);
	rmdir(dir);
	if (id < 0)
		return -1;
	tp_id = id;
	return 0;
}

static int perf_open(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof a;
	a.config = (uint64_t)tp_id;
	a.inherit = 1;   /* threads too: conn2's second, libkq's should it start any */
	perf_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return perf_fd >= 0 ? 0 : -1;
}

static uint64_t perf_read(void)
{
	uint64_t v;
	if (read(perf_fd, &v, sizeof v) != (ssize_t)sizeof v)
		bench_die("read(perf counter)");
	return v;
}

static void perf_close(void)
{
	if (perf_fd >= 0)
		bench_raw_close(perf_fd);
	perf_fd = -1;
}

/* The ptrace tracer's findings, in shared memory. */
#define NDETAIL     32       /* getsockopt / ioctl / fcntl told apart */
struct trace_shm {
	long total;
	long hist[NR_MAX];
	long detail[NDETAIL];
};

/* The calls --breakdown tells apart by their arguments: nr, then the second
 * argument (getsockopt's level, ioctl's request, fcntl's command; -1: any)
 * and the third (getsockopt's option; -1: any).  First match counts. */
static const struct {
	long nr, a1, a2;
	const char *name;
} details[] = {
	{ SYS_getsockopt, SOL_SOCKET, SO_TYPE, "getsockopt(SO_TYPE)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_ACCEPTCONN, "getsockopt(SO_ACCEPTCONN)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_SNDBUF, "getsockopt(SO_SNDBUF)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_RCVBUF, "getsockopt(SO_RCVBUF)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_RCVLOWAT, "getsockopt(SO_RCVLOWAT)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_SNDLOWAT, "getsockopt(SO_SNDLOWAT)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_ERROR, "getsockopt(SO_ERROR)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_DOMAIN, "getsockopt(SO_DOMAIN)" },
	{ SYS_getsockopt, SOL_SOCKET, SO_PROTOCOL, "getsockopt(SO_PROTOCOL)" },
	{ SYS_getsockopt, IPPROTO_TCP, TCP_INFO, "getsockopt(TCP_INFO)" },
	{ SYS_getsockopt, -1, -1, "getsockopt(other)" },
	{ SYS_ioctl, FIONREAD, -1, "ioctl(FIONREAD)" },
	{ SYS_ioctl, TIOCOUTQ, -1, "ioctl(SIOCOUTQ)" },
	{ SYS_ioctl, -1, -1, "ioctl(other)" },
	{ SYS_fcntl, F_GETFL, -1, "fcntl(F_GETFL)" },
	{ SYS_fcntl, F_GETFD, -1, "fcntl(F_GETFD)" },
	{ SYS_fcntl, -1, -1, "fcntl(other)" },
};
#define NDETAILS ((int)(sizeof details / sizeof details[0]))

/* The index in details[] of a call, or -1 when its number has none. */
static int detail_of(long nr, long a1, long a2)
{
	for (int i = 0; i < NDETAILS; i++)
		if (details[i].nr == nr && (details[i].a1 == -1 || details[i].a1 == a1) &&
		    (details[i].a2 == -1 || details[i].a2 == a2))
			return i;
	return -1;
}
static struct trace_shm *tshm;
static pid_t tracer = -1;

#define MARK_START  0x6b710001L
#define MARK_END    0x6b710002L
#define MARK_DETACH 0x6b710003L

static void trace_mark(long m)
{
	syscall(SYS_getpriority, PRIO_PGRP, m);
}

static __attribute__((noreturn)) void tracer_main(pid_t tracee, int gofd, int ackfd)
{
	char c;
	if (read(gofd, &c, 1) != 1)
		_exit(1);
	char ok = '1';
	if (ptrace(PTRACE_SEIZE, tracee, 0, PTRACE_O_TRACESYSGOOD) != 0 ||
	    ptrace(PTRACE_INTERRUPT, tracee, 0, 0) != 0)
		ok = '0';
	if (write(ackfd, &ok, 1) != 1 || ok != '1')
		_exit(1);
	int counting = 0;
	for (;;) {
		int st;
		pid_t p = waitpid(tracee, &st, __WALL);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0 || WIFEXITED(st) || WIFSIGNALED(st))
			_exit(0);
		if (!WIFSTOPPED(st))
			continue;
		int sig = WSTOPSIG(st), inject = 0;
		if (sig == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info si;
			long r = ptrace(PTRACE_GET_SYSCALL_INFO, tracee, sizeof si, &si);
			if (r > 0 && si.op == PTRACE_SYSCALL_INFO_ENTRY) {
				long nr = (long)si.entry.nr;
				int mark = nr == SYS_getpriority && si.entry.args[0] == PRIO_PGRP;
				long arg = (long)si.entry.args[1];
				if (mark && arg == MARK_START) {
					counting = 1;
					memset(tshm, 0, sizeof *tshm);
				} else if (mark && arg == MARK_END) {
					counting = 0;
				} else if (mark && arg == MARK_DETACH) {
					ptrace(PTRACE_DETACH, tracee, 0, 0);
					_exit(0);
				} else if (counting) {
					tshm->total++;
					if (nr >= 0 && nr < NR_MAX)
						tshm->hist[nr]++;
					int d = detail_of(nr, (long)si.entry.args[1],
							  (long)si.entry.args[2]);
					if (d >= 0)
						tshm->detail[d]++;
				}
			}
		} else if ((st >> 16) != PTRACE_EVENT_STOP) {
			inject = sig;
		}
		ptrace(PTRACE_SYSCALL, tracee, 0, inject);
	}
}

/* Starts a tracer on this process; 0 when it is attached. */
static int trace_attach(void)
{
	int go[2], ack[2];
	if (pipe2(go, O_CLOEXEC) != 0 || pipe2(ack, O_CLOEXEC) != 0)
		bench_die("pipe");
	pid_t self = getpid();
	fflush(stdout);
	tracer = fork();
	if (tracer < 0)
		bench_die("fork (tracer)");
	if (tracer == 0) {
		close(go[1]);
		close(ack[0]);
		tracer_main(self, go[0], ack[1]);
	}
	close(go[0]);
	close(ack[1]);
#ifdef PR_SET_PTRACER
	prctl(PR_SET_PTRACER, (unsigned long)tracer, 0, 0, 0);   /* for Yama; may fail */
#endif
	char c = '0';
	if (write(go[1], "g", 1) != 1 || read(ack[0], &c, 1) != 1)
		c = '0';
	close(go[1]);
	close(ack[0]);
	if (c != '1') {
		waitpid(tracer, NULL, 0);
		tracer = -1;
		return -1;
	}
	return 0;
}

static void trace_detach(void)
{
	if (tracer < 0)
		return;
	trace_mark(MARK_DETACH);
	int st;
	while (waitpid(tracer, &st, 0) < 0 && errno == EINTR)
		;
	tracer = -1;
}

/* Opens the counter for a pattern's counted blocks (0: counting works). */
static int count_open(void)
{
	if (method == M_PERF)
		return perf_open();
	if (method == M_PTRACE)
		return trace_attach();
	return -1;
}

static void count_close(void)
{
	if (method == M_PERF)
		perf_close();
	else if (method == M_PTRACE)
		trace_detach();
}

static uint64_t count_c0;

static void count_begin(void)
{
	if (method == M_PERF)
		count_c0 = perf_read();
	else if (method == M_PTRACE)
		trace_mark(MARK_START);
}

static long count_end(void)
{
	if (method == M_PERF)
		return (long)(perf_read() - count_c0 - perf_overhead);
	if (method == M_PTRACE) {
		trace_mark(MARK_END);
		return tshm->total;
	}
	return 0;
}

/* Names of the system calls a server here makes (numbers differ by arch). */
static const struct {
	long nr;
	const char *name;
} sysnames[] = {
	{ SYS_read, "read" }, { SYS_write, "write" }, { SYS_close, "close" },
	{ SYS_fstat, "fstat" }, { SYS_ioctl, "ioctl" }, { SYS_fcntl, "fcntl" },
	{ SYS_socket, "socket" }, { SYS_connect, "connect" }, { SYS_accept4, "accept4" },
	{ SYS_sendto, "sendto" }, { SYS_recvfrom, "recvfrom" }, { SYS_sendmsg, "sendmsg" },
	{ SYS_recvmsg, "recvmsg" }, { SYS_getsockopt, "getsockopt" },
	{ SYS_setsockopt, "setsockopt" }, { SYS_getsockname, "getsockname" },
	{ SYS_epoll_ctl, "epoll_ctl" }, { SYS_epoll_pwait, "epoll_pwait" },
	{ SYS_ppoll, "ppoll" }, { SYS_getrusage, "getrusage" },
	{ SYS_clock_gettime, "clock_gettime" }, { SYS_readv, "readv" },
	{ SYS_writev, "writev" }, { SYS_statx, "statx" }, { SYS_newfstatat, "newfstatat" },
	{ SYS_timerfd_settime, "timerfd_settime" }, { SYS_eventfd2, "eventfd2" },
	{ SYS_dup3, "dup3" }, { SYS_getpid, "getpid" }, { SYS_gettid, "gettid" },
	{ SYS_rt_sigprocmask, "rt_sigprocmask" }, { SYS_mmap, "mmap" },
	{ SYS_munmap, "munmap" }, { SYS_brk, "brk" }, { SYS_madvise, "madvise" },
	{ SYS_getpriority, "getpriority" },
#ifdef SYS_accept
	{ SYS_accept, "accept" },
#endif
#ifdef SYS_epoll_wait
	{ SYS_epoll_wait, "epoll_wait" },
#endif
#ifdef SYS_epoll_pwait2
	{ SYS_epoll_pwait2, "epoll_pwait2" },
#endif
#ifdef SYS_poll
	{ SYS_poll, "poll" },
#endif
#ifdef SYS_stat
	{ SYS_stat, "stat" },
#endif
#ifdef SYS_io_uring_enter
	{ SYS_io_uring_enter, "io_uring_enter" },
#endif
};

static void syscall_name(long nr, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof sysnames / sizeof sysnames[0]; i++)
		if (sysnames[i].nr == nr) {
			snprintf(buf, len, "%s", sysnames[i].name);
			return;
		}
	snprintf(buf, len, "nr%ld", nr);
}

/* ---- the servers ---- */

enum { R_NONE, R_KA, R_LSN, R_CONN, R_UDP, R_BACKEND, R_STOP };

/* What conn2's two server threads share (one instance: one block at a
 * time). */
struct duo {
	int lsn[2];              /* a listener per thread, one port (SO_REUSEPORT) */
	int stop;                /* eventfd, non-blocking, in both sets: the block is over */
	int done;                /* eventfd, blocking: the first thread out waits on it */
	int cpu;                 /* the server's pin, -1 none */
	cpu_set_t all;           /* the CPUs the threads may use during the block */
	pthread_t thread;        /* the second thread */
	atomic_long total;       /* requests both threads served, added per batch */
	atomic_int ready, go;    /* the second thread is up; the block has begun */
	atomic_int left;         /* threads out of their loops */
	int count;               /* a counted block */
	long syscalls;           /* the end readings, taken by the last thread out */
	double user1, sys1;
};
static struct duo duo;

struct server {
	int ctl, ka_lsn, lsn, udp;
	int ka[NKA], nka;
	struct sockaddr_in backend, refused;
	long fdcap;
	unsigned char *role;      /* per fd */
	int *got;                 /* per fd: bytes of the request so far */
	int *peer;                /* per backend fd: the client connection */
	unsigned char *connecting; /* per backend fd */
	char (*req)[REQ_BYTES];   /* per fd: the request */
	long served, target, nconnect, events;
	long waits, eagains;   /* wait calls; the server's calls that got EAGAIN */
	int floor;   /* the epoll server asks FIONREAD for every event */
	int pat, kq, ep;
	struct kevent chg[CHG_MAX];
	int nchg;
	struct duo *duo;          /* conn2's threads: the shared part; else NULL */
	long added;               /* conn2: of `served`, what is in duo->total */
};

static void srv_write(int fd, const char *b)
{
	ssize_t w = write(fd, b, REQ_BYTES);
	if (w != REQ_BYTES)
		bench_fail("server: write(fd %d) = %zd (%s)", fd, w, w < 0 ? strerror(errno) : "short");
}

static void kq_change(struct server *s, int fd, int filter, int flags)
{
	if (s->nchg == CHG_MAX) {
		if (kevent(s->kq, s->chg, s->nchg, NULL, 0, NULL) != 0)
			bench_die("kevent (changes)");
		s->nchg = 0;
	}
	EV_SET(&s->chg[s->nchg], fd, filter, flags, 0, 0, NULL);
	s->nchg++;
}

static void ep_ctl(struct server *s, int op, int fd, uint32_t events)
{
	struct epoll_event ee = { .events = events, .data.fd = fd };
	if (epoll_ctl(s->ep, op, fd, &ee) != 0)
		bench_die("epoll_ctl");
}

static void srv_close(struct server *s, int v, int fd)
{
	s->role[fd] = R_NONE;
	if (v == V_KEVENT) {
		if (close(fd) != 0)
			bench_die("close");
	} else {
		bench_raw_close(fd);
	}
}

/* Reads what a keep-alive connection has (at most `want` bytes if > 0),
 * echoing every complete request: -1 EAGAIN, else bytes read. */
static ssize_t ka_echo(struct server *s, int fd, long want)
{
	char buf[4096];
	size_t len = want > 0 && (size_t)want < sizeof buf ? (size_t)want : sizeof buf;
	ssize_t n = read(fd, buf, len);
	if (n < 0 && errno == EAGAIN) {
		s->eagains++;
		return -1;
	}
	if (n <= 0)
		bench_fail("server: read(fd %d) = %zd (%s)", fd, n, n < 0 ? strerror(errno) : "EOF");
	ssize_t w = write(fd, buf, (size_t)n);
	if (w != n)
		bench_fail("server: write(fd %d) = %zd of %zd", fd, w, n);
	s->got[fd] += (int)n;
	s->served += s->got[fd] / REQ_BYTES;
	s->got[fd] %= REQ_BYTES;
	return n;
}

/* Reads into the per-fd request buffer; 1 when a request is complete. */
static int read_request(struct server *s, int fd)
{
	ssize_t n = read(fd, s->req[fd] + s->got[fd], (size_t)(REQ_BYTES - s->got[fd]));
	if (n < 0 && errno == EAGAIN) {
		s->eagains++;
		return 0;
	}
	if (n <= 0)
		bench_fail("server (%s): read(fd %d) = %zd (%s)", pname[s->pat], fd, n,
			   n < 0 ? strerror(errno) : "EOF");
	s->got[fd] += (int)n;
	if (s->got[fd] < REQ_BYTES)
		return 0;
	s->got[fd] = 0;
	return 1;
}

static void udp_serve(struct server *s)
{
	char buf[2048];
	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(s->udp, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
		if (n < 0 && errno == EAGAIN) {
			s->eagains++;
			return;
		}
		if (n != REQ_BYTES)
			bench_fail("server: recvfrom = %zd (%s)", n, n < 0 ? strerror(errno) : "");
		if (sendto(s->udp, buf, (size_t)n, 0, (struct sockaddr *)&from, fl) != n)
			bench_die("sendto");
		s->served++;
	}
}

/* Proxy: a client's request is complete; connect to the backend. */
static void proxy_start(struct server *s, int v, int cfd)
{
	int b = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (b < 0)
		bench_die("socket (proxy)");
	if (b >= s->fdcap)
		bench_fail("server: fd %d above the limit", b);
	int refuse = s->nconnect++ % REFUSE_EVERY == REFUSE_EVERY - 1;
	const struct sockaddr_in *to = refuse ? &s->refused : &s->backend;
	s->role[b] = R_BACKEND;
	s->peer[b] = cfd;
	s->got[b] = 0;
	s->connecting[b] = 1;
	if (connect(b, (const struct sockaddr *)to, sizeof *to) != 0 && errno != EINPROGRESS) {
		if (errno != ECONNREFUSED)
			bench_die("connect (proxy)");
		s->req[cfd][0] = 'E';
		srv_write(cfd, s->req[cfd]);
		s->served++;
		srv_close(s, v, b);
		return;
	}
	if (v == V_KEVENT)
		kq_change(s, b, EVFILT_WRITE, EV_ADD | EV_ONESHOT);
	else
		ep_ctl(s, EPOLL_CTL_ADD, b, EPOLLOUT);
}

/* Proxy: the backend connection `b` is writable (connected) or failed. */
static void proxy_connected(struct server *s, int v, int b, int failed)
{
	int cfd = s->peer[b];
	s->connecting[b] = 0;
	if (!failed) {
		ssize_t w = write(b, s->req[cfd], REQ_BYTES);
		if (w < 0 && errno == ECONNREFUSED)
			failed = 1;
		else if (w != REQ_BYTES)
			bench_fail("server: write to backend = %zd (%s)", w,
				   w < 0 ? strerror(errno) : "short");
	}
	if (failed) {
		s->req[cfd][0] = 'E';
		srv_write(cfd, s->req[cfd]);
		s->served++;
		srv_close(s, v, b);
		return;
	}
	if (v == V_KEVENT)
		kq_change(s, b, EVFILT_READ, EV_ADD);
	else
		ep_ctl(s, EPOLL_CTL_MOD, b, EPOLLIN);
}

static void proxy_reply(struct server *s, int v, int b)
{
	if (!read_request(s, b))
		return;
	srv_write(s->peer[b], s->req[b]);
	s->served++;
	srv_close(s, v, b);
}

static void kevent_one(struct server *s, const struct kevent *e)
{
	int fd = (int)e->ident;
	if (e->flags & EV_ERROR)
		bench_fail("server (%s): EV_ERROR on fd %d: %s", pname[s->pat], fd,
			   strerror((int)e->data));
	switch (s->role[fd]) {
	case R_KA:
		if (s->pat == P_KEEPALIVE) {
			ka_echo(s, fd, (long)e->data);
		} else if (s->pat == P_READD || s->pat == P_DISABLE) {
			kq_change(s, fd, EVFILT_READ, s->pat == P_READD ? EV_DELETE : EV_DISABLE);
			while (ka_echo(s, fd, 0) >= 0)
				;
			kq_change(s, fd, EVFILT_READ, s->pat == P_READD ? EV_ADD : EV_ENABLE);
		} else if (read_request(s, fd)) {
			proxy_start(s, V_KEVENT, fd);
		}
		return;
	case R_LSN: {
		/* the listener is the event's: conn2's threads have one each */
		long k = e->data > 0 ? (long)e->data : 1;
		for (long i = 0; i < k; i++) {
			int c = accept_conn(fd, s->fdcap, "server");
			if (c < 0) {
				s->eagains++;
				break;
			}
			s->role[c] = R_CONN;
			s->got[c] = 0;
			kq_change(s, c, EVFILT_READ, EV_ADD);
		}
		return;
	}
	case R_CONN:
		if (read_request(s, fd)) {
			srv_write(fd, s->req[fd]);
			s->served++;
			srv_close(s, V_KEVENT, fd);
		} else if (e->flags & EV_EOF) {
			bench_fail("server: EOF before the request on fd %d", fd);
		}
		return;
	case R_UDP:
		udp_serve(s);
		return;
	case R_STOP:   /* conn2's end: the loop looks at the total */
		return;
	case R_BACKEND:
		if (e->filter == EVFILT_WRITE)
			proxy_connected(s, V_KEVENT, fd, (e->flags & EV_EOF) != 0);
		else
			proxy_reply(s, V_KEVENT, fd);
		return;
	default:
		bench_fail("server: event for unknown fd %d (filter %d)", fd, e->filter);
	}
}

static double usage_us(double *user, double *sys);

/* conn2: adds what this thread served since it last did to the two
 * threads' total.  The thread that completes the block's requests writes
 * the stop eventfd, which wakes the other one, asleep in kevent() /
 * epoll_wait() with nothing more to come.  No thread can serve beyond the
 * block: the client makes exactly its requests' connections. */
static void duo_batch(struct server *s)
{
	long n = s->served - s->added;
	if (n == 0)
		return;
	s->added = s->served;
	long before = atomic_fetch_add(&s->duo->total, n);
	if (before < s->target && before + n >= s->target) {
		uint64_t one = 1;
		if (write(s->duo->stop, &one, sizeof one) != (ssize_t)sizeof one)
			bench_die("write(stop eventfd)");
	}
}

/* Whether the block has requests left to serve.  conn2 looks at the total
 * (a stale read only costs one more wait, which the level-triggered stop
 * event ends at once). */
static int more(const struct server *s)
{
	if (!s->duo)
		return s->served < s->target;
	return atomic_load_explicit(&s->duo->total, memory_order_acquire) < s->target;
}

/* conn2: a thread is out of its loop.  The last one out takes the block's
 * end readings (the counter covers both threads, getrusage the process),
 * then lets the first one go, which waited so that neither its exit nor the
 * join falls inside them; its wait is one call, counted or not depending on
 * which thread is out first. */
static void duo_leave(struct server *s)
{
	struct duo *d = s->duo;
	uint64_t v = 1;
	ssize_t r;
	if (atomic_fetch_add(&d->left, 1) == 0) {
		while ((r = read(d->done, &v, sizeof v)) < 0 && errno == EINTR)
			;
		if (r != (ssize_t)sizeof v)
			bench_die("read(done eventfd)");
		return;
	}
	if (d->count)
		d->syscalls = count_end();
	usage_us(&d->user1, &d->sys1);
	if (write(d->done, &v, sizeof v) != (ssize_t)sizeof v)
		bench_die("write(done eventfd)");
}

static void serve_kevent(struct server *s)
{
	struct kevent ev[NEVENTS];
	while (more(s)) {
		int r = kevent(s->kq, s->chg, s->nchg, ev, NEVENTS, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("server: kevent returned %d (%s)", r, r < 0 ? strerror(errno) : "");
		s->nchg = 0;
		s->waits++;
		s->events += r;
		for (int j = 0; j < r; j++)
			kevent_one(s, &ev[j]);
		if (s->duo)
			duo_batch(s);
	}
	if (s->duo)
		duo_leave(s);
}

static void epoll_one(struct server *s, int fd, uint32_t events)
{
	switch (s->role[fd]) {
	case R_KA:
		if (events & ~(uint32_t)EPOLLIN)
			bench_fail("server: epoll events %#x on fd %d", events, fd);
		if (s->pat == P_KEEPALIVE) {
			ka_echo(s, fd, 0);
		} else if (s->pat == P_READD || s->pat == P_DISABLE) {
			if (s->pat == P_READD)
				ep_ctl(s, EPOLL_CTL_DEL, fd, 0);
			else
				ep_ctl(s, EPOLL_CTL_MOD, fd, 0);
			while (ka_echo(s, fd, 0) >= 0)
				;
			ep_ctl(s, s->pat == P_READD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, EPOLLIN);
		} else if (read_request(s, fd)) {
			proxy_start(s, V_EPOLL, fd);
		}
		return;
	case R_LSN:
		for (int c; (c = accept_conn(fd, s->fdcap, "server")) >= 0;) {
			s->role[c] = R_CONN;
			s->got[c] = 0;
			ep_ctl(s, EPOLL_CTL_ADD, c, EPOLLIN);
		}
		s->eagains++;
		return;
	case R_CONN:
		if (read_request(s, fd)) {
			srv_write(fd, s->req[fd]);
			s->served++;
			srv_close(s, V_EPOLL, fd);
		}
		return;
	case R_UDP:
		udp_serve(s);
		return;
	case R_STOP:
		return;
	case R_BACKEND:
		if (s->connecting[fd]) {
			int failed = 0;
			if (events & (EPOLLERR | EPOLLHUP)) {
				int err = 0;
				socklen_t el = sizeof err;
				if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
					bench_die("getsockopt(SO_ERROR)");
				if (err != ECONNREFUSED)
					bench_fail("server: backend connect: %s", strerror(err));
				failed = 1;
			}
			proxy_connected(s, V_EPOLL, fd, failed);
		} else {
			proxy_reply(s, V_EPOLL, fd);
		}
		return;
	default:
		bench_fail("server: epoll event for unknown fd %d", fd);
	}
}

static void serve_epoll(struct server *s)
{
	struct epoll_event evs[NEVENTS];
	while (more(s)) {
		int r = epoll_wait(s->ep, evs, NEVENTS, -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			bench_fail("server: epoll_wait returned %d (%s)", r,
				   r < 0 ? strerror(errno) : "");
		s->waits++;
		s->events += r;
		for (int j = 0; j < r; j++) {
			if (s->floor) {
				int q;
				(void)ioctl(evs[j].data.fd, FIONREAD, &q);
			}
			epoll_one(s, evs[j].data.fd, evs[j].events);
		}
		if (s->duo)
			duo_batch(s);
	}
	if (s->duo)
		duo_leave(s);
}

struct result {
	double user_us, sys_us;
	long syscalls, events, waits, eagains;
};

static double usage_us(double *user, double *sys)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		bench_die("getrusage");
	*user = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec;
	*sys = ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
	return *user + *sys;
}

/* A block's kqueue (variant kevent) or epoll set for s, watching fds for
 * reading, level-triggered. */
static void open_set(struct server *s, int v, const int *fds, int nfd)
{
	s->kq = s->ep = -1;
	s->nchg = 0;
	if (v == V_KEVENT) {
		s->kq = kqueue();
		if (s->kq < 0)
			bench_die("kqueue");
		for (int i = 0; i < nfd; i++)
			kq_change(s, fds[i], EVFILT_READ, EV_ADD);
		if (kevent(s->kq, s->chg, s->nchg, NULL, 0, NULL) != 0)
			bench_die("kevent (EV_ADD)");
		s->nchg = 0;
	} else {
		s->ep = epoll_create1(EPOLL_CLOEXEC);
		if (s->ep < 0)
			bench_die("epoll_create1");
		for (int i = 0; i < nfd; i++)
			ep_ctl(s, EPOLL_CTL_ADD, fds[i], EPOLLIN);
	}
}

/* Waits, without a system call (the counted block may have begun), for a
 * flag the other thread sets within microseconds; yields after a while, so
 * that with a single CPU the other thread gets to run. */
static void spin_until(atomic_int *flag)
{
	for (long n = 0; !atomic_load_explicit(flag, memory_order_acquire); n++)
		if (n > 100000)
			sched_yield();
}

/* conn2's second server thread: up before the block begins (its start-up
 * calls stay out of the count), then it serves once the block has begun. */
static void *duo_thread(void *arg)
{
	struct server *s = arg;
	atomic_store_explicit(&s->duo->ready, 1, memory_order_release);
	spin_until(&s->duo->go);
	if (s->kq >= 0)
		serve_kevent(s);
	else
		serve_epoll(s);
	return NULL;
}

/* conn2: the second thread's server, a copy of s (the per-fd tables are
 * shared: a descriptor belongs to the thread that accepted it) with its own
 * set, listener, changelist and counts; started and waiting for `go`. */
static struct server *duo_start(struct server *s, int v, int count)
{
	static struct server s2;
	struct duo *d = s->duo;
	s2 = *s;
	int fds[2] = { d->lsn[1], d->stop };
	open_set(&s2, v, fds, 2);
	atomic_store(&d->total, 0);
	atomic_store(&d->ready, 0);
	atomic_store(&d->go, 0);
	atomic_store(&d->left, 0);
	d->count = count;
	d->syscalls = 0;
	/* both threads on every CPU: the new one inherits this thread's mask */
	if (d->cpu >= 0 && sched_setaffinity(0, sizeof d->all, &d->all) != 0)
		bench_die("sched_setaffinity (conn2)");
	int rc = pthread_create(&d->thread, NULL, duo_thread, &s2);
	if (rc != 0)
		bench_fail("pthread_create: %s", strerror(rc));
	spin_until(&d->ready);
	return &s2;
}

/* conn2: after both threads are out (the end readings taken): joins the
 * second, pins the server again, empties the stop eventfd, closes the
 * second set. */
static void duo_end(struct server *s, struct server *s2)
{
	struct duo *d = s->duo;
	int rc = pthread_join(d->thread, NULL);
	if (rc != 0)
		bench_fail("pthread_join: %s", strerror(rc));
	bench_pin_to(d->cpu);
	uint64_t v;
	if (read(d->stop, &v, sizeof v) != (ssize_t)sizeof v)
		bench_die("read(stop eventfd)");
	if (s2->kq >= 0)
		close(s2->kq);
	if (s2->ep >= 0)
		bench_raw_close(s2->ep);
}

/* One block: pattern p on variant v, `reqs` requests; counts system calls
 * instead of timing when `count` is set. */
static struct result block(struct server *s, int p, int v, long reqs, int count)
{
	int fds[NKA + 2], nfd = 0;
	if (uses_keepalive(p)) {
		for (int i = 0; i < s->nka; i++)
			fds[nfd++] = s->ka[i];
	} else if (p == P_CONN2) {
		fds[nfd++] = duo.lsn[0];
		fds[nfd++] = duo.stop;
	} else {
		fds[nfd++] = p == P_CONN ? s->lsn : s->udp;
	}
	open_set(s, v, fds, nfd);
	s->pat = p;
	s->floor = v == V_FLOOR;
	s->served = s->nconnect = s->events = s->waits = s->eagains = 0;
	s->target = reqs;
	s->added = 0;
	/* only conn2's blocks run as two threads: s->duo says so */
	s->duo = p == P_CONN2 ? &duo : NULL;
	struct server *s2 = s->duo ? duo_start(s, v, count) : NULL;

	struct result res = { 0 };
	double u0, s0, u1, s1;
	send_msg(s->ctl, CMD_RUN, p, reqs, 0);
	usage_us(&u0, &s0);
	if (count)
		count_begin();
	if (s2)
		atomic_store_explicit(&duo.go, 1, memory_order_release);
	if (v == V_KEVENT)
		serve_kevent(s);
	else
		serve_epoll(s);
	long served = s->served;
	if (s2) {
		duo_end(s, s2);
		res.syscalls = duo.syscalls;
		u1 = duo.user1;
		s1 = duo.sys1;
		served += s2->served;
	} else {
		if (count)
			res.syscalls = count_end();
		usage_us(&u1, &s1);
	}
	res.user_us = u1 - u0;
	res.sys_us = s1 - s0;
	res.events = s->events + (s2 ? s2->events : 0);
	res.waits = s->waits + (s2 ? s2->waits : 0);
	res.eagains = s->eagains + (s2 ? s2->eagains : 0);

	struct msg m = recv_msg(s->ctl);
	if (m.cmd != CMD_DONE || m.arg != reqs || served != reqs)
		bench_fail("%s/%s: %ld requests served, client saw %ld of %ld answered",
			   pname[p], vname[v], served, m.arg, reqs);
	long want_err = p == P_PROXY ? reqs / REFUSE_EVERY : 0;
	if (m.arg2 != want_err)
		bench_fail("%s/%s: %ld error replies, expected %ld", pname[p], vname[v], m.arg2,
			   want_err);
	for (int i = 0; i < s->nka; i++)
		if (s->got[s->ka[i]] != 0)
			bench_fail("%s/%s: a partial request left on a connection", pname[p],
				   vname[v]);
	if (s->kq >= 0)
		close(s->kq);
	if (s->ep >= 0)
		bench_raw_close(s->ep);
	return res;
}

struct outcome {
	int done;
	double cpu_ratio;
	double sys_per_req[NV], ev_per_req[NV];
	double waits_per_req[NV], eagains_per_req[NV];
	int counted;
};

static long opt_count_blocks;
static unsigned opt_only = 0;

static struct outcome measure(struct server *s, int p, long blocks, long reqs, long cblocks)
{
	size_t nb = (size_t)blocks;
	double *cpu[NV], *usr[NV], *sys[NV];
	for (int v = 0; v < NV; v++) {
		cpu[v] = bench_alloc(nb, sizeof(double));
		usr[v] = bench_alloc(nb, sizeof(double));
		sys[v] = bench_alloc(nb, sizeof(double));
	}
	double *paired = bench_alloc(nb, sizeof(double));
	for (int v = 0; v < NV; v++)   /* warm-up, not recorded */
		block(s, p, v, reqs / 4 > 50 ? reqs / 4 : 50, 0);
	for (size_t b = 0; b < nb; b++) {
		for (int k = 0; k < NV; k++) {
			int v = bench_turn((long)b, k, NV);
			struct result r = block(s, p, v, reqs, 0);
			usr[v][b] = r.user_us / (double)reqs;
			sys[v][b] = r.sys_us / (double)reqs;
			cpu[v][b] = usr[v][b] + sys[v][b];
		}
		paired[b] = cpu[V_EPOLL][b] > 0 ? cpu[V_KEVENT][b] / cpu[V_EPOLL][b] : 0;
	}

	struct outcome o = { .done = 1 };
	long hist[NV][NR_MAX], det[NV][NDETAIL];
	memset(hist, 0, sizeof hist);
	memset(det, 0, sizeof det);
	for (int v = 0; v < NV; v++) {
		long calls = 0, evs = 0, waits = 0, eagains = 0, total = 0;
		/* the tracer follows one thread: conn2 is counted by perf or not */
		int ok = (p != P_CONN2 || method == M_PERF) && count_open() == 0;
		for (long c = 0; ok && c < cblocks; c++) {
			struct result r = block(s, p, v, reqs, 1);
			calls += r.syscalls;
			evs += r.events;
			waits += r.waits;
			eagains += r.eagains;
			total += reqs;
			if (method == M_PTRACE)
				for (int n = 0; n < NR_MAX; n++)
					hist[v][n] += tshm->hist[n];
			if (method == M_PTRACE)
				for (int d = 0; d < NDETAILS; d++)
					det[v][d] += tshm->detail[d];
		}
		if (ok)
			count_close();
		o.counted = v == 0 ? ok : o.counted && ok;
		o.sys_per_req[v] = ok ? (double)calls / (double)total : -1;
		o.ev_per_req[v] = ok ? (double)evs / (double)total : -1;
		o.waits_per_req[v] = ok ? (double)waits / (double)total : -1;
		o.eagains_per_req[v] = ok ? (double)eagains / (double)total : -1;
	}

	double med[NV];
	for (int v = 0; v < NV; v++)
		med[v] = bench_median(cpu[v], nb);
	o.cpu_ratio = med[V_KEVENT] / med[V_EPOLL];
	double vs_floor = med[V_KEVENT] / med[V_FLOOR];
	for (int v = 0; v < NV; v++) {
		char sc[32] = "na", ev[32] = "na";
		if (o.counted) {
			snprintf(sc, sizeof sc, "%.3f", o.sys_per_req[v]);
			snprintf(ev, sizeof ev, "%.3f", o.ev_per_req[v]);
		}
		printf("server-patterns pattern=%s variant=%s cpu_us_per_req=%.3f "
		       "user_us_per_req=%.3f sys_us_per_req=%.3f vs_epoll=%.3f "
		       "syscalls_per_req=%s events_per_req=%s method=%s cpu_iqr_pct=%.1f "
		       "reqs_per_block=%ld blocks=%ld count_blocks=%ld\n",
		       pname[p], vname[v], med[v], bench_median(usr[v], nb),
		       bench_median(sys[v], nb), med[v] / med[V_EPOLL], sc, ev,
		       mname[o.counted ? method : M_NONE], bench_iqr_pct(cpu[v], nb), reqs,
		       blocks, o.counted ? cblocks : 0);
	}
	if (o.counted) {
		/* the epoll server's calls at kevent's number of waits (see the
		 * header), plus one per kevent record */
		double ew = o.waits_per_req[V_EPOLL];
		double per_wait = ew > 0 ? 1 + o.eagains_per_req[V_EPOLL] / ew : 1;
		double lim = o.sys_per_req[V_EPOLL] + o.ev_per_req[V_KEVENT] +
			     (o.waits_per_req[V_KEVENT] - ew) * per_wait;
		printf("server-patterns-pattern pattern=%s cpu_ratio=%.3f cpu_ratio_paired=%.3f "
		       "cpu_vs_floor=%.3f floor_syscalls_per_req=%.3f "
		       "kevent_syscalls_per_req=%.3f epoll_syscalls_per_req=%.3f "
		       "kevent_events_per_req=%.3f epoll_events_per_req=%.3f "
		       "kevent_waits_per_req=%.4f epoll_waits_per_req=%.4f "
		       "epoll_calls_per_wait=%.3f syscall_limit=%.3f "
		       "extra_syscalls_per_req=%.3f syscalls_met=%s fewer_than_epoll=%s "
		       "method=%s\n",
		       pname[p], o.cpu_ratio, bench_median(paired, nb), vs_floor,
		       o.sys_per_req[V_FLOOR], o.sys_per_req[V_KEVENT],
		       o.sys_per_req[V_EPOLL], o.ev_per_req[V_KEVENT], o.ev_per_req[V_EPOLL],
		       o.waits_per_req[V_KEVENT], ew, per_wait, lim,
		       o.sys_per_req[V_KEVENT] - o.sys_per_req[V_EPOLL],
		       o.sys_per_req[V_KEVENT] <= lim + 0.0005 ? "yes" : "no",
		       o.sys_per_req[V_KEVENT] < o.sys_per_req[V_EPOLL] ? "yes" : "no",
		       mname[method]);
	} else {
		printf("server-patterns-pattern pattern=%s cpu_ratio=%.3f cpu_ratio_paired=%.3f "
		       "cpu_vs_floor=%.3f floor_syscalls_per_req=na "
		       "kevent_syscalls_per_req=na epoll_syscalls_per_req=na syscall_limit=na "
		       "syscalls_met=na fewer_than_epoll=na method=none\n",
		       pname[p], o.cpu_ratio, bench_median(paired, nb), vs_floor);
	}
	if (o.counted && method == M_PTRACE && opt_breakdown) {
		for (int v = 0; v < NV; v++)
			for (int n = 0; n < NR_MAX; n++) {
				if (!hist[v][n])
					continue;
				int split = 0;
				for (int d = 0; d < NDETAILS; d++)
					if (details[d].nr == n && det[v][d]) {
						split = 1;
						printf("server-patterns-syscall pattern=%s variant=%s "
						       "call=%s per_req=%.3f\n", pname[p], vname[v],
						       details[d].name,
						       (double)det[v][d] / (double)(reqs * cblocks));
					}
				if (split)
					continue;
				char name[32];
				syscall_name(n, name, sizeof name);
				printf("server-patterns-syscall pattern=%s variant=%s call=%s "
				       "per_req=%.3f\n", pname[p], vname[v], name,
				       (double)hist[v][n] / (double)(reqs * cblocks));
			}
	}
	fflush(stdout);
	for (int v = 0; v < NV; v++) {
		free(cpu[v]);
		free(usr[v]);
		free(sys[v]);
	}
	free(paired);
	return o;
}

static int opt_no_pin;
static int opt_method = -1;

static int parse_extra(const char *a)
{
	if (strcmp(a, "--no-pin") == 0) {
		opt_no_pin = 1;
	} else if (strcmp(a, "--breakdown") == 0) {
		opt_breakdown = 1;
	} else if (strcmp(a, "--inheritable") == 0) {
		accept_cloexec = 0;
	} else if (strncmp(a, "--count-blocks=", 15) == 0) {
		opt_count_blocks = bench_parse_long("--count-blocks", a + 15);
	} else if (strncmp(a, "--method=", 9) == 0) {
		for (int m = M_PERF; m <= M_PTRACE; m++)
			if (strcmp(a + 9, mname[m]) == 0)
				opt_method = m;
		if (opt_method < 0) {
			fprintf(stderr, "unknown method in %s (perf or ptrace)\n", a);
			exit(2);
		}
	} else if (strncmp(a, "--only=", 7) == 0) {
		char list[256];
		snprintf(list, sizeof list, "%s", a + 7);
		for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
			int found = 0;
			for (int p = 0; p < NP; p++)
				if (strcmp(t, pname[p]) == 0) {
					opt_only |= 1u << p;
					found = 1;
				}
			if (!found) {
				fprintf(stderr, "unknown pattern '%s' (keepalive, conn, readd, "
					"disable, proxy, udp, conn2)\n", t);
				exit(2);
			}
		}
	} else {
		return 0;
	}
	return 1;
}

/* Picks the counting method: --method, else perf, else ptrace. */
static void choose_method(void)
{
	int want = opt_breakdown ? M_PTRACE : opt_method;
	if ((want < 0 || want == M_PERF) && find_tracepoint() == 0 && perf_open() == 0) {
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < 5; i++) {
			uint64_t a = perf_read(), b = perf_read();
			if (b - a < best)
				best = b - a;
		}
		perf_overhead = best;
		perf_close();
		method = M_PERF;
		return;
	}
	if (want < 0 || want == M_PTRACE) {
		tshm = mmap(NULL, sizeof *tshm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
		if (tshm == MAP_FAILED)
			bench_die("mmap");
		if (trace_attach() == 0) {
			trace_mark(MARK_START);   /* check that it counts */
			getppid();
			trace_mark(MARK_END);
			long seen = tshm->total;
			trace_detach();
			if (seen == 1) {
				method = M_PTRACE;
				return;
			}
		}
	}
	method = M_NONE;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra,
			 "[--only=keepalive,conn,readd,disable,proxy,udp,conn2] [--method=perf|ptrace] "
			 "[--breakdown] [--count-blocks=N] [--no-pin] [--inheritable]");
	long blocks = o.blocks ? o.blocks : o.quick ? 2 : 31;
	long cblocks = opt_count_blocks ? opt_count_blocks : o.quick ? 1 : 2;
	/* requests per block, per pattern (--per-block sets them all) */
	static const long full_reqs[NP] = { 4000, 1000, 4000, 4000, 1000, 4000, 1000 };
	static const long quick_reqs[NP] = { 200, 60, 200, 200, 60, 200, 60 };
	long fdcap = bench_raise_nofile();
	if (fdcap > 65536)
		fdcap = 65536;

	cpu_set_t allowed;
	int cpus[2] = { -1, -1 }, ncpus = 0;
	if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
		for (int c = 0; c < CPU_SETSIZE && ncpus < 2; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[ncpus++] = c;
	int pin = !opt_no_pin && ncpus >= 2;

	struct server s;
	memset(&s, 0, sizeof s);
	s.fdcap = fdcap;
	struct client c;
	memset(&c, 0, sizeof c);
	c.fdcap = fdcap;
	s.ka_lsn = bound_socket(SOCK_STREAM, &c.ka_addr);
	s.lsn = bound_socket(SOCK_STREAM | SOCK_NONBLOCK, &c.conn_addr);
	s.udp = bound_socket(SOCK_DGRAM | SOCK_NONBLOCK, &c.udp_addr);
	int refused = bound_socket(SOCK_STREAM, &s.refused);   /* bound, never listening */
	c.blsn = bound_socket(SOCK_STREAM | SOCK_NONBLOCK, &s.backend);
	if (listen(s.ka_lsn, NKA) != 0 || listen(s.lsn, 4096) != 0 || listen(c.blsn, 4096) != 0)
		bench_die("listen");
	reuseport_pair(duo.lsn, &c.conn2_addr);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		bench_die("socketpair (control)");

	bench_header("server-patterns", &o);
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN);
	pid_t child = fork();
	if (child < 0)
		bench_die("fork");
	if (child == 0) {
		close(sv[0]);
		c.ctl = sv[1];
		client_main(&c, pin ? cpus[1] : -1);
	}
	bench_raw_close(sv[1]);
	bench_raw_close(c.blsn);
	s.ctl = sv[0];
	if (pin)
		bench_pin_to(cpus[0]);

	s.role = bench_alloc((size_t)fdcap, 1);
	s.got = bench_alloc((size_t)fdcap, sizeof *s.got);
	s.peer = bench_alloc((size_t)fdcap, sizeof *s.peer);
	s.connecting = bench_alloc((size_t)fdcap, 1);
	s.req = bench_alloc((size_t)fdcap, sizeof *s.req);
	s.role[s.lsn] = R_LSN;
	s.role[s.udp] = R_UDP;
	duo.cpu = pin ? cpus[0] : -1;
	duo.all = allowed;
	duo.stop = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	duo.done = eventfd(0, EFD_CLOEXEC);
	if (duo.stop < 0 || duo.done < 0)
		bench_die("eventfd");
	if (duo.stop >= fdcap)
		bench_fail("server: fd %d above the limit", duo.stop);
	s.role[duo.lsn[0]] = s.role[duo.lsn[1]] = R_LSN;
	s.role[duo.stop] = R_STOP;
	send_msg(s.ctl, CMD_CONNECT, 0, NKA, 0);
	for (int i = 0; i < NKA; i++) {
		int fd = accept4(s.ka_lsn, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			bench_die("accept4 (keep-alive)");
		if (fd >= fdcap)
			bench_fail("server: fd %d above the limit", fd);
		bench_nodelay(fd);
		s.role[fd] = R_KA;
		s.ka[s.nka++] = fd;
	}
	struct msg m = recv_msg(s.ctl);
	if (m.cmd != CMD_ACK || m.arg != NKA)
		bench_fail("control: expected ACK %d, got %d %ld", NKA, m.cmd, m.arg);

	choose_method();
	printf("# %d-byte requests on 127.0.0.1; server and clients in two processes%s; "
	       "CPU: median of %ld blocks per variant (getrusage of the server), order "
	       "rotating; system calls: %ld separate block(s) per variant, counted in the "
	       "server process, method=%s\n", REQ_BYTES,
	       pin ? " pinned to two CPUs" : "", blocks, cblocks, mname[method]);
	fflush(stdout);

	double max_ratio = 0;
	int max_at = -1, npat = 0, cpu_met = 0, sc_met = 0, fewer = 0, counted = 0;
	for (int p = 0; p < NP; p++) {
		if (opt_only && !(opt_only & (1u << p)))
			continue;
		long reqs = o.per_block ? o.per_block : o.quick ? quick_reqs[p] : full_reqs[p];
		struct outcome r = measure(&s, p, blocks, reqs, cblocks);
		npat++;
		if (r.cpu_ratio > max_ratio) {
			max_ratio = r.cpu_ratio;
			max_at = p;
		}
		cpu_met += r.cpu_ratio <= 1.005;
		if (r.counted) {
			counted++;
			sc_met += r.sys_per_req[V_KEVENT] <=
				r.sys_per_req[V_EPOLL] + r.ev_per_req[V_KEVENT] + 0.0005;
			fewer += r.sys_per_req[V_KEVENT] < r.sys_per_req[V_EPOLL];
		}
	}
	printf("server-patterns-summary patterns=%d max_cpu_ratio=%.3f max_cpu_pattern=%s "
	       "cpu_met=%d syscalls_met=%d fewer_than_epoll=%d counted=%d method=%s\n",
	       npat, max_ratio, max_at >= 0 ? pname[max_at] : "none", cpu_met, sc_met, fewer,
	       counted, mname[method]);

	send_msg(s.ctl, CMD_QUIT, 0, 0, 0);
	int st = 0;
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		bench_fail("the client process ended badly (status %#x)", st);
	for (int i = 0; i < s.nka; i++)
		bench_raw_close(s.ka[i]);
	bench_raw_close(s.ka_lsn);
	bench_raw_close(s.lsn);
	bench_raw_close(s.udp);
	bench_raw_close(duo.lsn[0]);
	bench_raw_close(duo.lsn[1]);
	bench_raw_close(duo.stop);
	bench_raw_close(duo.done);
	bench_raw_close(refused);
	bench_raw_close(s.ctl);
	free(s.role);
	free(s.got);
	free(s.peer);
	free(s.connecting);
	free(s.req);
	return 0;
}
