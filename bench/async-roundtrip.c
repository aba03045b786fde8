/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * async-roundtrip: waking an event loop through its mailbox, an eventfd
 * watched for reading, between two threads (libuv's uv_async_send() on its
 * kqueue loop: async1 and million_async of bench/libuv-bench.sh), against
 * the same over epoll.
 *
 * FreeBSD's READ record on an eventfd has the counter in `data`; Linux
 * shows the counter without consuming it only in the eventfd's fdinfo file
 * in /proc, which libkq keeps open and reads with one pread() per record
 * (src/filter/efdinfo.c).  Every wake-up here follows a write, so no record
 * can reuse an older reading: this measures what that exact `data` costs
 * a wake-up, and the least it can cost ("floor").
 *
 * Thread A (the main thread) and thread B play ping-pong over eventfds efd1
 * (A to B) and efd2 (B to A); the i-th round trip carries the value i,
 * which each side checks:
 *   kevent  kq1 holds an EVFILT_READ knote on efd1, kq2 one on efd2 (level,
 *           as libuv adds them).  A: write(efd1, i); kevent(kq2) must return
 *           efd2's record with data i; read(efd2) == i.  B: kevent(kq1),
 *           data i; read(efd1) == i; write(efd2, i).
 *   epoll   ep1 watches efd1, ep2 efd2 (EPOLLIN, level): epoll_wait(), then
 *           read() and write() as above.
 *   floor   epoll, plus one pread() of the eventfd's fdinfo file (opened
 *           once) per wake-up, its counter parsed and checked: readiness
 *           with the exact counter, the least it costs on Linux.
 * The read() and write() calls are the same in all three.  Each block times
 * R round trips of each contender in process CPU time (both threads), the
 * order turning from block to block; a figure is the median over the
 * blocks.  Before the blocks, the fdinfo pread() alone is timed in one
 * thread (pread_ns).
 *
 * Placement (--cpu=cross|same|both, default both):
 *   cross  the threads pinned to two CPUs: each wake-up crosses CPUs, and
 *          its cost (an idle CPU waking) is most of a round trip's;
 *   same   both on one CPU: a wake-up is a context switch, and what the
 *          calls themselves cost shows.
 *
 * Output, one line per placement:
 *   async-roundtrip cpu=<cross|same> kevent_ns=<x> epoll_ns=<y>
 *       floor_ns=<z> ratio=<x/y> floor_ratio=<z/y> vs_floor=<x/z>
 *       pread_ns=<fdinfo read> kevent_iqr_pct= epoll_iqr_pct=
 *       floor_iqr_pct= blocks= trips=
 * Exit: 0 done, 77 no /proc fdinfo to read (nothing to measure), 1 a record
 * was wrong (or setup failed), 2 bad usage.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/eventfd.h>

enum mode { M_KEVENT, M_EPOLL, M_FLOOR, M_QUIT, NMODES = M_QUIT };
static const char *const mode_name[NMODES] = { "kevent", "epoll", "floor" };

/* One direction of the ping-pong: the eventfd, its kqueue, its epoll set
 * and its fdinfo file. */
struct side {
	int efd, kq, ep, info;
};

static struct {
	struct side to_b, to_a;
	pthread_barrier_t start, done;
	enum mode mode;
	long trips;
} sh;

static void post(const struct side *s, long i)
{
	uint64_t v = (uint64_t)i;
	if (__builtin_expect(write(s->efd, &v, sizeof v) != (ssize_t)sizeof v, 0))
		bench_die("write(eventfd)");
}

static void drain(const struct side *s, long i)
{
	uint64_t v = 0;
	ssize_t r = read(s->efd, &v, sizeof v);
	if (__builtin_expect(r != (ssize_t)sizeof v || v != (uint64_t)i, 0))
		bench_fail("read(eventfd) = %zd, value %llu (want 8, %ld)", r,
			   (unsigned long long)v, i);
}

/* The counter in the fdinfo file, read without consuming it. */
static uint64_t fdinfo_count(int info)
{
	char buf[512];
	ssize_t n = pread(info, buf, sizeof buf - 1, 0);
	if (n <= 0)
		bench_die("pread(fdinfo)");
	buf[n] = 0;
	const char *p = strstr(buf, "eventfd-count:");
	if (!p)
		bench_fail("no eventfd-count in the fdinfo file");
	return strtoull(p + 14, NULL, 16);
}

static void wait_for(const struct side *s, enum mode m, long i)
{
	if (m == M_KEVENT) {
		struct kevent ev;
		int r = kevent(s->kq, NULL, 0, &ev, 1, NULL);
		if (__builtin_expect(r != 1 || ev.ident != (uintptr_t)s->efd ||
				     ev.filter != EVFILT_READ || ev.data != i ||
				     (ev.flags & (EV_ERROR | EV_EOF)), 0))
			bench_fail("kevent returned %d: ident %lu filter %d flags %#x data %lld "
				   "(want 1 READ record of eventfd %d, data %ld)",
				   r, (unsigned long)ev.ident, ev.filter, ev.flags,
				   (long long)ev.data, s->efd, i);
	} else {
		struct epoll_event ee;
		int r = epoll_wait(s->ep, &ee, 1, -1);
		if (__builtin_expect(r != 1 || ee.data.fd != s->efd, 0))
			bench_fail("epoll_wait returned %d (want 1, fd %d)", r, s->efd);
		if (m == M_FLOOR && __builtin_expect(fdinfo_count(s->info) != (uint64_t)i, 0))
			bench_fail("fdinfo counter is not %ld", i);
	}
	drain(s, i);
}

static void *thread_b(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&sh.start);
		if (sh.mode == M_QUIT)
			return NULL;
		for (long i = 1; i <= sh.trips; i++) {
			wait_for(&sh.to_b, sh.mode, i);
			post(&sh.to_a, i);
		}
		pthread_barrier_wait(&sh.done);
	}
}

/* One block of one contender: CPU ns per round trip, both threads. */
static double block(enum mode m, long trips)
{
	sh.mode = m;
	sh.trips = trips;
	pthread_barrier_wait(&sh.start);
	int64_t c0 = bench_clock_ns();
	for (long i = 1; i <= trips; i++) {
		post(&sh.to_b, i);
		wait_for(&sh.to_a, m, i);
	}
	int64_t c1 = bench_clock_ns();
	pthread_barrier_wait(&sh.done);
	return (double)(c1 - c0) / (double)trips;
}

static void side_setup(struct side *s)
{
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->kq = kqueue();
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->efd < 0 || s->kq < 0 || s->ep < 0)
		bench_die("eventfd/kqueue/epoll_create1");
	struct kevent ch;
	EV_SET(&ch, s->efd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	if (kevent(s->kq, &ch, 1, NULL, 0, NULL) != 0)
		bench_die("kevent(EV_ADD EVFILT_READ)");
	struct epoll_event ee = { .events = EPOLLIN, .data.fd = s->efd };
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->efd, &ee) != 0)
		bench_die("epoll_ctl(ADD)");
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", s->efd);
	s->info = open(path, O_RDONLY | O_CLOEXEC);
	if (s->info < 0) {
		printf("# async-roundtrip: cannot open %s (%s): skipped\n", path, strerror(errno));
		exit(77);
	}
}

/* The fdinfo pread() and parse alone, ns per read (median of 9 runs). */
static double pread_ns(long reads)
{
	double t[9];
	post(&sh.to_b, 5);
	for (int k = 0; k < 9; k++) {
		int64_t c0 = bench_clock_ns();
		for (long i = 0; i < reads; i++)
			if (__builtin_expect(fdinfo_count(sh.to_b.info) != 5, 0))
				bench_fail("fdinfo counter is not 5");
		t[k] = (double)(bench_clock_ns() - c0) / (double)reads;
	}
	drain(&sh.to_b, 5);
	return bench_median(t, 9);
}

static void measure(const char *placement, long blocks, long trips, double pr)
{
	for (int m = 0; m < NMODES; m++)
		block((enum mode)m, trips / 4 > 50 ? trips / 4 : 50);
	double *fig[NMODES], med[NMODES];
	for (int m = 0; m < NMODES; m++)
		fig[m] = bench_alloc((size_t)blocks, sizeof(double));
	for (long k = 0; k < blocks; k++)
		for (int pos = 0; pos < NMODES; pos++) {
			int m = bench_turn(k, pos, NMODES);
			fig[m][k] = block((enum mode)m, trips);
		}
	for (int m = 0; m < NMODES; m++)
		med[m] = bench_median(fig[m], (size_t)blocks);
	printf("async-roundtrip cpu=%s kevent_ns=%.1f epoll_ns=%.1f floor_ns=%.1f ratio=%.3f "
	       "floor_ratio=%.3f vs_floor=%.3f pread_ns=%.1f",
	       placement, med[M_KEVENT], med[M_EPOLL], med[M_FLOOR],
	       med[M_KEVENT] / med[M_EPOLL], med[M_FLOOR] / med[M_EPOLL],
	       med[M_KEVENT] / med[M_FLOOR], pr);
	for (int m = 0; m < NMODES; m++) {
		printf(" %s_iqr_pct=%.0f", mode_name[m], bench_iqr_pct(fig[m], (size_t)blocks));
		free(fig[m]);
	}
	printf(" blocks=%ld trips=%ld\n", blocks, trips);
	fflush(stdout);
}

struct run {
	long blocks, trips;
	double pread_ns;
};

static void measure_at(const char *placement, int headline, void *ctx)
{
	const struct run *r = ctx;
	(void)headline;
	measure(placement, r->blocks, r->trips, r->pread_ns);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, bench_parse_place, "[--cpu=cross|same|both]");
	long blocks = o.blocks ? o.blocks : o.quick ? 3 : 21;
	long trips = o.per_block ? o.per_block : o.quick ? 200 : 2000;

	bench_header("async-roundtrip", &o);
	side_setup(&sh.to_b);
	side_setup(&sh.to_a);
	if (pthread_barrier_init(&sh.start, NULL, 2) != 0 ||
	    pthread_barrier_init(&sh.done, NULL, 2) != 0)
		bench_die("pthread_barrier_init");
	double pr = pread_ns(o.quick ? 1000 : 20000);

	pthread_t b;
	int e = pthread_create(&b, NULL, thread_b, NULL);
	if (e != 0) {
		errno = e;
		bench_die("pthread_create");
	}
	struct run r = { blocks, trips, pr };
	bench_placements(b, measure_at, &r);
	sh.mode = M_QUIT;
	pthread_barrier_wait(&sh.start);
	pthread_join(b, NULL);
	return 0;
}
