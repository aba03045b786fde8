/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * load: the client of real-server/run.sh and haproxy-calls.sh.  Two
 * builds of one HTTP server are running, each on its own port; this drives
 * them in turn with the same closed-loop load and measures what each server
 * process spends in CPU per request.  Plain epoll and non-blocking sockets, nothing of
 * libkq's, so that the client costs both builds the same.
 *
 *   load port
 *       prints a free TCP port on 127.0.0.1
 *   load probe PORT
 *       exit 0 iff a connection to PORT on 127.0.0.1 is accepted
 *   load run [OPTIONS] NAME_A PORT_A PID_A NAME_B PORT_B PID_B
 *       --conn=keepalive|close|reset  HTTP/1.1 requests on connections
 *                     kept open for the whole run, or one request per
 *                     connection ("Connection: close", the server closes),
 *                     or one keep-alive request per connection, which the
 *                     client then resets (a close with SO_LINGER 0)
 *       --path=PATH   what is asked for (default /small.txt)
 *       --body=N      the body length every reply must have
 *       --conns=N     requests in flight, one per connection (default 32)
 *       --blocks=N    measured blocks of each server (default 7)
 *       --block-ms=N  how long a block issues requests (default 1000)
 *       --idle=N      N more connections to each server, opened before the
 *                     blocks and left silent (each server's set held by a
 *                     child process of its own: the descriptor limit is
 *                     per process)
 *       --label=TEXT  the case's name in the output
 *
 * A block: the server's CPU time is read, requests are issued on every
 * connection for --block-ms, then no new one is issued and those in flight
 * are finished; the CPU time is read again.  So a block's CPU time is that
 * of exactly its requests (in close mode: their connections' accept and
 * close too).  The CPU time is the sum over the server process's threads
 * of the scheduler's run time (/proc/PID/task/T/schedstat, nanoseconds;
 * /proc/PID/stat's utime+stime count in ticks of 10 ms, too coarse for a
 * block).  One unmeasured pair of blocks warms both up; then the blocks
 * come in pairs, the server going first alternating from pair to pair
 * (A B, B A, A B, ...), so that a machine growing busier or quieter
 * weighs on both alike.  Every reply's status and length are checked.
 *
 * Output, one line per result:
 *   real-server-warmup case, idle, build, requests (the unmeasured block)
 *   real-server-block  case, idle, pair, build, requests, cpu_us, us_per_req
 *   real-server-pair   case, idle, pair, ratio (A's CPU per request / B's)
 *   real-server        per case: each build's median CPU per request, the
 *                      ratio of the medians (A / B), the median of the
 *                      pairs' ratios (ratio_paired), the lowest and highest
 *                      pair ratio, each build's spread (interquartile range
 *                      of its blocks in % of the median)
 * exit: 0 measured; 1 a wrong reply or a failure (printed on stderr).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXPAIRS 64
#define BUFSZ 16384

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "load: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct sockaddr_in addr_of(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static DIR *proc_dir(int pid, const char *what)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", pid, what);
	return opendir(path);
}

/* CPU time of every thread of PID, in ns; a thread that ended took its
 * time with it, but the servers measured here run one thread per worker. */
static uint64_t cpu_ns(int pid)
{
	DIR *d = proc_dir(pid, "task");
	if (!d)
		die("server process %d is gone", pid);
	uint64_t sum = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[320];
		snprintf(p, sizeof p, "/proc/%d/task/%s/schedstat", pid, e->d_name);
		FILE *f = fopen(p, "r");
		unsigned long long run = 0;
		if (f) {
			if (fscanf(f, "%llu", &run) != 1)
				run = 0;
			fclose(f);
		}
		sum += run;
	}
	closedir(d);
	return sum;
}

static int count_fds(int pid)
{
	DIR *d = proc_dir(pid, "fd");
	if (!d)
		return -1;
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 2;
}

/* ---- the load ---- */

enum { IDLE, CONNECTING, WAITING };

struct conn {
	int fd;
	int state;
	size_t got;
	char buf[BUFSZ];
};

struct server {
	const char *name;
	int port, pid;
	struct conn *c;
	double us[MAXPAIRS];
	long reqs[MAXPAIRS];
};

static int ep;
static bool keepalive = true;
static bool reset;   /* keepalive, one request per connection, then RST */
static int nconns = 32;
static char request[512];
static size_t reqlen;
static long body = -1;

static void arm(struct conn *c, uint32_t events, int op)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };
	if (epoll_ctl(ep, op, c->fd, &ev) != 0)
		die("epoll_ctl: %s", strerror(errno));
}

static void send_request(struct conn *c)
{
	ssize_t n = send(c->fd, request, reqlen, MSG_NOSIGNAL);
	if (n != (ssize_t)reqlen)
		die("send: %s", n < 0 ? strerror(errno) : "short");
	c->state = WAITING;
	c->got = 0;
}

static void open_conn(struct server *s, struct conn *c)
{
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die("socket: %s", strerror(errno));
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	struct sockaddr_in a = addr_of(s->port);
	c->got = 0;
	if (connect(c->fd, (struct sockaddr *)&a, sizeof a) == 0) {
		arm(c, EPOLLIN, EPOLL_CTL_ADD);
		send_request(c);
	} else if (errno == EINPROGRESS) {
		c->state = CONNECTING;
		arm(c, EPOLLOUT, EPOLL_CTL_ADD);
	} else {
		die("connect to %s: %s", s->name, strerror(errno));
	}
}

/* The reply in c->buf, if it is whole: 1 if it is right and complete, 0
 * if more is to come, dies if it is wrong.  eof: the server has closed. */
static int reply_done(struct server *s, struct conn *c, bool eof)
{
	c->buf[c->got] = '\0';
	char *end = strstr(c->buf, "\r\n\r\n");
	if (!end) {
		if (eof)
			die("%s closed before a whole header (%zu bytes)", s->name, c->got);
		if (c->got >= BUFSZ - 1)
			die("%s: header too long", s->name);
		return 0;
	}
	if (strncmp(c->buf, "HTTP/1.1 200 ", 13) != 0)
		die("%s replied: %.40s", s->name, c->buf);
	char *cl = strcasestr(c->buf, "\r\nContent-Length:");
	if (!cl || cl > end)
		die("%s: a reply without Content-Length", s->name);
	long len = strtol(cl + 17, NULL, 10);
	if (body >= 0 && len != body)
		die("%s: a body of %ld bytes, not %ld", s->name, len, body);
	size_t want = (size_t)(end + 4 - c->buf) + (size_t)len;
	if (want >= BUFSZ)
		die("%s: a reply too long for the client", s->name);
	if (c->got < want) {
		if (eof)
			die("%s closed after %zu of %zu bytes", s->name, c->got, want);
		return 0;
	}
	if (c->got > want)
		die("%s: %zu bytes more than the reply", s->name, c->got - want);
	/* in close mode the reply is done when the server has closed */
	return keepalive || eof;
}

/* One block on S: requests issued until DEADLINE, then those in flight
 * finished.  Returns how many were answered. */
static long block(struct server *s, uint64_t deadline)
{
	long done = 0;
	int busy = 0;
	for (int i = 0; i < nconns; i++) {
		if (keepalive && !reset && s->c[i].fd >= 0)
			send_request(&s->c[i]);
		else
			open_conn(s, &s->c[i]);
		busy++;
	}
	struct epoll_event evs[128];
	while (busy > 0) {
		/* generous: the machines this runs on may be busy */
		int n = epoll_wait(ep, evs, 128, 10000);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		if (n == 0)
			die("%s: no reply for 10 s", s->name);
		bool more = now_ns() < deadline;
		for (int i = 0; i < n; i++) {
			struct conn *c = evs[i].data.ptr;
			if (c->state == CONNECTING) {
				int err = 0;
				socklen_t l = sizeof err;
				getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
				if (err)
					die("connect to %s: %s", s->name, strerror(err));
				arm(c, EPOLLIN, EPOLL_CTL_MOD);
				send_request(c);
				continue;
			}
			ssize_t r = recv(c->fd, c->buf + c->got, BUFSZ - 1 - c->got, 0);
			if (r < 0) {
				if (errno == EAGAIN || errno == EINTR)
					continue;
				die("recv from %s: %s", s->name, strerror(errno));
			}
			if (r == 0 && keepalive)
				die("%s closed a keep-alive connection", s->name);
			c->got += (size_t)r;
			if (!reply_done(s, c, r == 0))
				continue;
			done++;
			if (reset) {
				struct linger lg = { .l_onoff = 1, .l_linger = 0 };
				setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
			}
			if (!keepalive || reset) {
				close(c->fd);
				c->fd = -1;
			}
			if (!more) {
				c->state = IDLE;
				busy--;
			} else if (keepalive && !reset) {
				send_request(c);
			} else {
				open_conn(s, c);
			}
		}
	}
	return done;
}

/* ---- silent connections ---- */

/* A child holding N connections to PORT open and silent until the parent
 * goes (its end of the pipe closes).  Returns the pipe to the child. */
static int hold_idle(const char *name, int port, int n)
{
	int ready[2], hold[2];
	if (pipe(ready) != 0 || pipe(hold) != 0)
		die("pipe: %s", strerror(errno));
	fflush(stdout);   /* the child's exit() would print it again */
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		int e = epoll_create1(0);
		struct sockaddr_in a = addr_of(port);
		/* in batches: more at once than the listener's backlog would
		 * leave SYNs to be retried a second later */
		for (int done = 0; done < n;) {
			int batch = n - done < 256 ? n - done : 256, pending = 0;
			for (int i = 0; i < batch; i++) {
				int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
				if (fd < 0)
					die("idle socket %d for %s: %s", done + i, name, strerror(errno));
				if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
					continue;
				if (errno != EINPROGRESS)
					die("idle connect to %s: %s", name, strerror(errno));
				struct epoll_event ev = { .events = EPOLLOUT, .data.fd = fd };
				epoll_ctl(e, EPOLL_CTL_ADD, fd, &ev);
				pending++;
			}
			while (pending > 0) {
				struct epoll_event evs[256];
				int k = epoll_wait(e, evs, 256, 10000);
				if (k <= 0)
					die("idle connections to %s do not complete", name);
				for (int i = 0; i < k; i++) {
					int err = 0;
					socklen_t l = sizeof err;
					getsockopt(evs[i].data.fd, SOL_SOCKET, SO_ERROR, &err, &l);
					if (err)
						die("idle connect to %s: %s", name, strerror(err));
					epoll_ctl(e, EPOLL_CTL_DEL, evs[i].data.fd, NULL);
					pending--;
				}
			}
			done += batch;
		}
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		char b;
		while (read(hold[0], &b, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	char b;
	if (read(ready[0], &b, 1) != 1) {
		int st;
		waitpid(pid, &st, 0);
		die("the child opening %d connections to %s failed", n, name);
	}
	close(ready[0]);
	return hold[1];
}

/* Waits until server S holds N descriptors (at least: more, or at most:
 * fewer), the silent connections accepted or closed. */
static void await_fds(struct server *s, int n, bool more)
{
	int have = 0;
	for (int i = 0; i < 300; i++) {
		have = count_fds(s->pid);
		if (more ? have >= n : have <= n)
			return;
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	die("%s holds %d descriptors after 30 s, not %s %d", s->name, have,
	    more ? "the" : "at most", n);
}

/* ---- figures ---- */

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the q-quantile of v[0..n) (sorted copy), linear between ranks */
static double quantile(const double *v, int n, double q)
{
	double s[MAXPAIRS];
	memcpy(s, v, (size_t)n * sizeof *v);
	qsort(s, (size_t)n, sizeof *s, cmpd);
	double r = q * (n - 1);
	int lo = (int)r;
	return lo + 1 < n ? s[lo] + (r - lo) * (s[lo + 1] - s[lo]) : s[lo];
}

static void run_block(struct server *s, const char *label, int idle, int pair, uint64_t ms)
{
	uint64_t c0 = cpu_ns(s->pid);
	long n = block(s, now_ns() + ms * 1000000u);
	uint64_t c1 = cpu_ns(s->pid);
	if (pair < 0) {
		/* counted by whoever counts the server's system calls */
		printf("real-server-warmup case=%s idle=%d build=%s requests=%ld\n", label, idle, s->name, n);
		fflush(stdout);
		return;
	}
	s->reqs[pair] = n;
	s->us[pair] = (double)(c1 - c0) / 1000.0 / (double)n;
	printf("real-server-block case=%s idle=%d pair=%d build=%s requests=%ld cpu_us=%.0f us_per_req=%.3f\n",
	       label, idle, pair + 1, s->name, n, (double)(c1 - c0) / 1000.0, s->us[pair]);
	fflush(stdout);
}

static int cmd_run(int argc, char **argv)
{
	const char *path = "/small.txt", *label = "keepalive";
	int blocks = 7, block_ms = 1000, idle = 0, i;
	for (i = 0; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		char *a = argv[i], *v = strchr(a, '=');
		if (!v)
			die("option without a value: %s", a);
		v++;
		if (!strncmp(a, "--conn=", 7)) {
			keepalive = strcmp(v, "close") != 0;
			reset = strcmp(v, "reset") == 0;
		} else if (!strncmp(a, "--path=", 7))
			path = v;
		else if (!strncmp(a, "--body=", 7))
			body = atol(v);
		else if (!strncmp(a, "--conns=", 8))
			nconns = atoi(v);
		else if (!strncmp(a, "--blocks=", 9))
			blocks = atoi(v);
		else if (!strncmp(a, "--block-ms=", 11))
			block_ms = atoi(v);
		else if (!strncmp(a, "--idle=", 7))
			idle = atoi(v);
		else if (!strncmp(a, "--label=", 8))
			label = v;
		else
			die("unknown option %s", a);
	}
	if (argc - i != 6 || blocks < 1 || blocks > MAXPAIRS || nconns < 1 || block_ms < 1)
		die("usage: load run [OPTIONS] NAME_A PORT_A PID_A NAME_B PORT_B PID_B");
	struct server sv[2];
	for (int k = 0; k < 2; k++) {
		sv[k].name = argv[i + 3 * k];
		sv[k].port = atoi(argv[i + 3 * k + 1]);
		sv[k].pid = atoi(argv[i + 3 * k + 2]);
		sv[k].c = calloc((size_t)nconns, sizeof *sv[k].c);
		if (!sv[k].c)
			die("out of memory");
		for (int j = 0; j < nconns; j++)
			sv[k].c[j].fd = -1;
	}
	reqlen = (size_t)snprintf(request, sizeof request,
				  "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", path,
				  keepalive ? "" : "Connection: close\r\n");
	signal(SIGPIPE, SIG_IGN);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1: %s", strerror(errno));

	int holders[2] = { -1, -1 }, before[2];
	if (idle > 0) {
		for (int k = 0; k < 2; k++) {
			before[k] = count_fds(sv[k].pid);
			holders[k] = hold_idle(sv[k].name, sv[k].port, idle);
			await_fds(&sv[k], before[k] + idle, true);
		}
	}
	/* warm-up, not counted; in keepalive mode it opens the connections
	 * the blocks use */
	run_block(&sv[0], label, idle, -1, (uint64_t)block_ms / 2);
	run_block(&sv[1], label, idle, -1, (uint64_t)block_ms / 2);
	for (int p = 0; p < blocks; p++) {
		int first = p % 2;
		run_block(&sv[first], label, idle, p, (uint64_t)block_ms);
		run_block(&sv[!first], label, idle, p, (uint64_t)block_ms);
		printf("real-server-pair case=%s idle=%d pair=%d ratio=%.3f\n", label, idle, p + 1,
		       sv[0].us[p] / sv[1].us[p]);
	}

	double ratio[MAXPAIRS];
	for (int p = 0; p < blocks; p++)
		ratio[p] = sv[0].us[p] / sv[1].us[p];
	double ma = quantile(sv[0].us, blocks, 0.5), mb = quantile(sv[1].us, blocks, 0.5);
	printf("real-server case=%s idle=%d conns=%d blocks=%d %s_us_per_req=%.3f %s_us_per_req=%.3f"
	       " ratio=%.3f ratio_paired=%.3f pair_min=%.3f pair_max=%.3f %s_iqr_pct=%.1f %s_iqr_pct=%.1f\n",
	       label, idle, nconns, blocks, sv[0].name, ma, sv[1].name, mb, ma / mb,
	       quantile(ratio, blocks, 0.5), quantile(ratio, blocks, 0), quantile(ratio, blocks, 1),
	       sv[0].name, 100 * (quantile(sv[0].us, blocks, 0.75) - quantile(sv[0].us, blocks, 0.25)) / ma,
	       sv[1].name, 100 * (quantile(sv[1].us, blocks, 0.75) - quantile(sv[1].us, blocks, 0.25)) / mb);
	for (int k = 0; k < 2; k++) {
		for (int j = 0; j < nconns; j++)
			if (sv[k].c[j].fd >= 0)
				close(sv[k].c[j].fd);
		if (holders[k] >= 0)
			close(holders[k]);
	}
	while (wait(NULL) > 0)
		;
	/* the next run counts the servers' descriptors afresh: the silent
	 * connections must be gone from them first */
	for (int k = 0; k < 2; k++)
		if (holders[k] >= 0)
			await_fds(&sv[k], before[k], false);
	return 0;
}

static int cmd_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = addr_of(0);
	socklen_t l = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &l) != 0)
		die("no free port: %s", strerror(errno));
	printf("%d\n", ntohs(a.sin_port));
	close(s);
	return 0;
}

static int cmd_probe(int port)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = addr_of(port);
	return s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "probe") == 0)
		return cmd_probe(atoi(argv[2]));
	if (argc >= 2 && strcmp(argv[1], "port") == 0)
		return cmd_port();
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 2, argv + 2);
	fprintf(stderr, "usage: load port | load probe PORT | load run [OPTIONS] NAME_A PORT_A PID_A NAME_B PORT_B PID_B\n");
	return 2;
}
