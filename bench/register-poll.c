/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * register-poll: what registering N sockets costs against one poll() over
 * them, and how the one-time registration pays off over repeated calls: the
 * kqueue paper's Figures 10 and 12 (Lemon 2001).  The paper found adding a
 * knote cost about 2x a poll() pass over the same descriptor, a kevent() wait
 * over idle descriptors constant in N, and kqueue ahead once a descriptor is
 * polled about 4 times or more.
 *
 * Descriptors: N UDP sockets bound to 127.0.0.1, created fresh for every
 * block, so every registration is a first registration (1 fd each, so N
 * reaches 19,000 under the hard limit of 20,000).
 *
 * One block, for each N; inside each group the order of the contenders
 * rotates from block to block (bench_turn):
 *
 *   register  kevent   one kevent(kq, changes, N, NULL, 0, NULL) call with N
 *                      EV_ADD EVFILT_READ changes (a new kqueue)
 *             epoll    N epoll_ctl(ADD, EPOLLIN) (a new epoll set)
 *             poll     one poll(pfd, N, 0) pass over the idle sockets (the
 *                      price poll() pays on every call), repeated enough
 *                      times to be timed
 *   idle      kevent / epoll_wait / poll with zero timeout, nothing ready
 *   active    one datagram of READY_BYTES is sent to every socket
 *             (untimed); then kevent returning N records (data checked),
 *             epoll_wait + one FIONREAD per event (the floor for `data`),
 *             and poll with all N revents
 *
 * Figure 12 is computed from the same blocks' medians: the cost per
 * descriptor accumulated over k calls,
 *   kevent(k) = (register + k * wait) / N,   poll(k) = k * pass / N,
 * for idle and for all-active descriptors, and the crossover (the first k
 * at which kevent's total is the smaller).
 *
 * Output, per N:
 *   register-poll N=<n> kevent_register_ns_per_fd= epoll_register_ns_per_fd=
 *       poll_pass_ns_per_fd= register_vs_poll=<kevent register / poll pass>
 *       register_vs_epoll= idle_kevent_ns= idle_epoll_ns= idle_poll_ns=
 *       active_kevent_ns= active_floor_ns= active_poll_ns= ...
 *   register-poll-accum N= state=idle|active k= kevent_ns_per_fd=
 *       epoll_ns_per_fd= poll_ns_per_fd=
 *   register-poll-crossover N= state=idle|active kevent_calls=<k|never>
 *       epoll_calls=<k|never>
 * (`*_ns` of waits are per call; `*_ns_per_fd` divide by N.)
 *
 * Exit: 0 done, 1 a call returned something wrong (or setup failed),
 * 2 bad usage.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define READY_BYTES 9
#define FD_MARGIN   64
#define MAX_N       16

enum { R_KEVENT, R_EPOLL, R_POLL, NR };       /* register group */
enum { W_KEVENT, W_EPOLL, W_POLL, NW };       /* wait groups (epoll = floor when active) */

struct socks {
	int n;
	int *fd;
	struct sockaddr_in *addr;
	struct pollfd *pfd;
	struct kevent *chg;
	struct epoll_event *evs;
	struct kevent *kev;
	int sender;
	int kq, ep;
	int active;
	int fd_lo, fd_hi;       /* the sockets' numbers lie in [fd_lo, fd_hi] */
};

static void socks_create(struct socks *s)
{
	s->fd_lo = 1 << 30;
	s->fd_hi = -1;
	for (int i = 0; i < s->n; i++) {
		int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			bench_die("socket(UDP)");
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof a;
		if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
		    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
			bench_die("bind/getsockname (UDP)");
		s->fd[i] = fd;
		s->addr[i] = a;
		s->pfd[i].fd = fd;
		s->pfd[i].events = POLLIN;
		EV_SET(&s->chg[i], fd, EVFILT_READ, EV_ADD, 0, 0, NULL);
		if (fd < s->fd_lo)
			s->fd_lo = fd;
		if (fd > s->fd_hi)
			s->fd_hi = fd;
	}
	s->kq = kqueue();
	if (s->kq < 0)
		bench_die("kqueue");
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0)
		bench_die("epoll_create1");
	s->active = 0;
}

static void socks_destroy(struct socks *s)
{
	close(s->kq);
	bench_raw_close(s->ep);
	for (int i = 0; i < s->n; i++)
		close(s->fd[i]);
}

static void make_active(struct socks *s)
{
	for (int i = 0; i < s->n; i++)
		if (sendto(s->sender, "datagram!", READY_BYTES, 0, (struct sockaddr *)&s->addr[i],
			   sizeof s->addr[i]) != READY_BYTES)
			bench_die("sendto");
	s->active = 1;
}

static int is_sock(const struct socks *s, long fd)
{
	return fd >= s->fd_lo && fd <= s->fd_hi;
}

/* ---- timed pieces; each returns ns (of the whole piece) ---- */

static double reg_kevent(struct socks *s)
{
	int64_t t0 = bench_clock_ns();
	int r = kevent(s->kq, s->chg, s->n, NULL, 0, NULL);
	int64_t t1 = bench_clock_ns();
	if (r != 0)
		bench_fail("kevent(EV_ADD x%d) = %d: %s", s->n, r,
			   r < 0 ? strerror(errno) : "records returned");
	return (double)(t1 - t0);
}

static double reg_epoll(struct socks *s)
{
	int64_t t0 = bench_clock_ns();
	for (int i = 0; i < s->n; i++) {
		struct epoll_event ee = { .events = EPOLLIN, .data.fd = s->fd[i] };
		if (__builtin_expect(epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd[i], &ee) != 0, 0))
			bench_die("epoll_ctl(ADD)");
	}
	return (double)(bench_clock_ns() - t0);
}

static double wait_poll(struct socks *s, long calls)
{
	int want = s->active ? s->n : 0;
	int64_t t0 = bench_clock_ns();
	for (long c = 0; c < calls; c++) {
		int r = poll(s->pfd, (nfds_t)s->n, 0);
		int seen = 0;
		for (int i = 0; i < s->n; i++)
			seen += s->pfd[i].revents == POLLIN;
		if (__builtin_expect(r != want || seen != want, 0))
			bench_fail("poll returned %d, %d POLLIN (want %d) at N=%d", r, seen, want,
				   s->n);
	}
	return (double)(bench_clock_ns() - t0) / (double)calls;
}

static double wait_epoll(struct socks *s, long calls)
{
	int want = s->active ? s->n : 0;
	int64_t t0 = bench_clock_ns();
	for (long c = 0; c < calls; c++) {
		int r = epoll_wait(s->ep, s->evs, s->n + 1, 0);
		if (__builtin_expect(r != want, 0))
			bench_fail("epoll_wait returned %d (want %d) at N=%d", r, want, s->n);
		for (int j = 0; j < r; j++) {
			int avail = -1;
			if (__builtin_expect(!is_sock(s, s->evs[j].data.fd) ||
					     ioctl(s->evs[j].data.fd, FIONREAD, &avail) != 0 ||
					     avail != READY_BYTES, 0))
				bench_fail("epoll record fd %d: FIONREAD %d (want %d)",
					   s->evs[j].data.fd, avail, READY_BYTES);
		}
	}
	return (double)(bench_clock_ns() - t0) / (double)calls;
}

static double wait_kevent(struct socks *s, long calls)
{
	static const struct timespec zero = { 0, 0 };
	int want = s->active ? s->n : 0;
	int64_t t0 = bench_clock_ns();
	for (long c = 0; c < calls; c++) {
		int r = kevent(s->kq, NULL, 0, s->kev, s->n + 1, &zero);
		if (__builtin_expect(r != want, 0))
			bench_fail("kevent returned %d (%s; want %d) at N=%d", r,
				   r < 0 ? strerror(errno) : "records", want, s->n);
		for (int j = 0; j < r; j++)
			if (__builtin_expect(!is_sock(s, (long)s->kev[j].ident) ||
					     s->kev[j].filter != EVFILT_READ ||
					     s->kev[j].data != READY_BYTES ||
					     (s->kev[j].flags & (EV_EOF | EV_ERROR)), 0))
				bench_fail("kevent record: ident %lu filter %d flags %#x data %lld "
					   "(want a socket, EVFILT_READ, data %d)",
					   (unsigned long)s->kev[j].ident, s->kev[j].filter,
					   s->kev[j].flags, (long long)s->kev[j].data, READY_BYTES);
	}
	return (double)(bench_clock_ns() - t0) / (double)calls;
}

static double wait_one(struct socks *s, int c, long calls)
{
	return c == W_KEVENT ? wait_kevent(s, calls)
	     : c == W_EPOLL ? wait_epoll(s, calls) : wait_poll(s, calls);
}

/* Calls per timed wait piece: about `target_ns` of work, at least 2. */
static long calls_for(double est_ns, double target_ns)
{
	double c = target_ns / (est_ns > 1.0 ? est_ns : 1.0);
	return c < 2 ? 2 : c > 100000 ? 100000 : (long)c;
}

struct series {
	double *reg[NR];            /* per block: ns per fd (poll: one pass per fd) */
	double *idle[NW], *act[NW]; /* per block: ns per call */
};

/* The smallest whole number >= x, at least 1. */
static double ceil_pos(double x)
{
	double k = (double)(long)x;
	if (k < x)
		k += 1.0;
	return k < 1.0 ? 1.0 : k;
}

static void print_accum(int n, const char *state, double reg_k, double reg_e,
			double wk, double we, double wp)
{
	static const int ks[] = { 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40 };
	for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
		int k = ks[i];
		printf("register-poll-accum N=%d state=%s k=%d kevent_ns_per_fd=%.1f "
		       "epoll_ns_per_fd=%.1f poll_ns_per_fd=%.1f\n",
		       n, state, k, (reg_k + k * wk) / n, (reg_e + k * we) / n, k * wp / n);
	}
	/* First k with register + k * wait <= k * pass. */
	char kc[32], ec[32];
	snprintf(kc, sizeof kc, "never");
	snprintf(ec, sizeof ec, "never");
	if (wp > wk)
		snprintf(kc, sizeof kc, "%.0f", ceil_pos(reg_k / (wp - wk)));
	if (wp > we)
		snprintf(ec, sizeof ec, "%.0f", ceil_pos(reg_e / (wp - we)));
	printf("register-poll-crossover N=%d state=%s kevent_calls=%s epoll_calls=%s "
	       "kevent_wait_ns=%.1f epoll_wait_ns=%.1f poll_ns=%.1f\n",
	       n, state, kc, ec, wk, we, wp);
}

static void measure(int n, long blocks, double target_ns, int sender)
{
	struct socks s = { .n = n, .sender = sender };
	s.fd = bench_alloc((size_t)n, sizeof *s.fd);
	s.addr = bench_alloc((size_t)n, sizeof *s.addr);
	s.pfd = bench_alloc((size_t)n, sizeof *s.pfd);
	s.chg = bench_alloc((size_t)n, sizeof *s.chg);
	s.evs = bench_alloc((size_t)n + 1, sizeof *s.evs);
	s.kev = bench_alloc((size_t)n + 1, sizeof *s.kev);
	size_t nb = (size_t)blocks;
	struct series t;
	for (int c = 0; c < NR; c++)
		t.reg[c] = bench_alloc(nb, sizeof(double));
	for (int c = 0; c < NW; c++) {
		t.idle[c] = bench_alloc(nb, sizeof(double));
		t.act[c] = bench_alloc(nb, sizeof(double));
	}

	/* Calibration block (not recorded): calls per wait piece. */
	long idle_calls[NW], act_calls[NW], pass_calls;
	socks_create(&s);
	reg_kevent(&s);
	reg_epoll(&s);
	for (int c = 0; c < NW; c++)
		idle_calls[c] = calls_for(wait_one(&s, c, 3), target_ns);
	pass_calls = idle_calls[W_POLL];
	make_active(&s);
	for (int c = 0; c < NW; c++)
		act_calls[c] = calls_for(wait_one(&s, c, 2), target_ns);
	socks_destroy(&s);

	for (size_t b = 0; b < nb; b++) {
		socks_create(&s);
		for (int k = 0; k < NR; k++) {
			int c = bench_turn((long)b, k, NR);
			if (c == R_KEVENT)
				t.reg[c][b] = reg_kevent(&s) / n;
			else if (c == R_EPOLL)
				t.reg[c][b] = reg_epoll(&s) / n;
			else
				t.reg[c][b] = wait_poll(&s, pass_calls) / n;
		}
		for (int k = 0; k < NW; k++) {
			int c = bench_turn((long)b, k, NW);
			t.idle[c][b] = wait_one(&s, c, idle_calls[c]);
		}
		make_active(&s);
		for (int k = 0; k < NW; k++) {
			int c = bench_turn((long)b, k, NW);
			t.act[c][b] = wait_one(&s, c, act_calls[c]);
		}
		socks_destroy(&s);
	}

	double reg[NR], idle[NW], act[NW];
	for (int c = 0; c < NR; c++)
		reg[c] = bench_median(t.reg[c], nb);
	for (int c = 0; c < NW; c++) {
		idle[c] = bench_median(t.idle[c], nb);
		act[c] = bench_median(t.act[c], nb);
	}
	printf("register-poll N=%d kevent_register_ns_per_fd=%.1f epoll_register_ns_per_fd=%.1f "
	       "poll_pass_ns_per_fd=%.1f register_vs_poll=%.2f register_vs_epoll=%.3f "
	       "idle_kevent_ns=%.1f idle_epoll_ns=%.1f idle_poll_ns=%.1f "
	       "active_kevent_ns=%.1f active_floor_ns=%.1f active_poll_ns=%.1f "
	       "active_kevent_vs_floor=%.3f active_kevent_vs_poll=%.3f "
	       "kevent_register_iqr_pct=%.1f epoll_register_iqr_pct=%.1f blocks=%ld\n",
	       n, reg[R_KEVENT], reg[R_EPOLL], reg[R_POLL], reg[R_KEVENT] / reg[R_POLL],
	       reg[R_KEVENT] / reg[R_EPOLL], idle[W_KEVENT], idle[W_EPOLL], idle[W_POLL],
	       act[W_KEVENT], act[W_EPOLL], act[W_POLL], act[W_KEVENT] / act[W_EPOLL],
	       act[W_KEVENT] / act[W_POLL], bench_iqr_pct(t.reg[R_KEVENT], nb),
	       bench_iqr_pct(t.reg[R_EPOLL], nb), blocks);
	print_accum(n, "idle", reg[R_KEVENT] * n, reg[R_EPOLL] * n, idle[W_KEVENT], idle[W_EPOLL],
		    idle[W_POLL]);
	print_accum(n, "active", reg[R_KEVENT] * n, reg[R_EPOLL] * n, act[W_KEVENT],
		    act[W_EPOLL], act[W_POLL]);
	fflush(stdout);

	for (int c = 0; c < NR; c++)
		free(t.reg[c]);
	for (int c = 0; c < NW; c++) {
		free(t.idle[c]);
		free(t.act[c]);
	}
	free(s.fd);
	free(s.addr);
	free(s.pfd);
	free(s.chg);
	free(s.evs);
	free(s.kev);
}

static long opt_n[MAX_N];
static int opt_nn;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--n=", 4) != 0)
		return 0;
	opt_nn = bench_parse_list("--n", a + 4, 1, opt_n, MAX_N);
	return 1;
}

int main(int argc, char **argv)
{
	static const long full_n[] = { 100, 1000, 5000, 10000, 19000 };
	static const long quick_n[] = { 100, 1000 };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--n=N,N,...]");
	long blocks = o.blocks ? o.blocks : o.quick ? 3 : 15;
	double target_ns = o.quick ? 100e3 : 1000e3;
	const long *ns = opt_nn ? opt_n : o.quick ? quick_n : full_n;
	int nn = opt_nn ? opt_nn : o.quick ? 2 : (int)(sizeof full_n / sizeof full_n[0]);

	long limit = bench_raise_nofile();
	long largest = limit - FD_MARGIN;
	bench_header("register-poll", &o);
	printf("# N UDP sockets bound to 127.0.0.1, fresh every block (fd limit %ld: N <= %ld); "
	       "active = one %d-byte datagram queued on each; median of %ld blocks, order "
	       "rotating\n", limit, largest, READY_BYTES, blocks);
	fflush(stdout);

	int sender = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sender < 0)
		bench_die("socket(UDP sender)");
	long done = 0;
	for (int i = 0; i < nn; i++) {
		long n = ns[i];
		if (n > largest) {
			if (done >= largest)
				break;
			printf("# N=%ld needs more descriptors than the limit allows; using N=%ld\n",
			       n, largest);
			n = largest;
		}
		measure((int)n, blocks, target_ns, sender);
		done = n;
	}
	bench_raw_close(sender);
	return 0;
}
