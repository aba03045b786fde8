/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * user-roundtrip: an EVFILT_USER trigger round trip between two threads,
 * against the same ping-pong over two eventfds.
 *
 * Thread A (the main thread) and thread B play ping-pong; one round trip is
 * A -> B -> A, and the i-th trip carries the value i, which each side checks:
 *
 *   kevent   kq1 holds user knote 1, kq2 user knote 2, both EV_ADD|EV_CLEAR.
 *            A: kevent(kq1, {1, NOTE_TRIGGER, data i}, 1, NULL, 0, NULL), then
 *               kevent(kq2, NULL, 0, &ev, 1, NULL) must return knote 2, data i;
 *            B: kevent(kq1, NULL, 0, &ev, 1, NULL) must return knote 1,
 *               data i; then triggers knote 2 on kq2 with data i.
 *   eventfd  efd1 in epoll set ep1, efd2 in ep2 (EPOLLIN, level).
 *            A: write(efd1, i); epoll_wait(ep2, 1, -1); read(efd2) == i;
 *            B: epoll_wait(ep1, 1, -1); read(efd1) == i; write(efd2, i).
 *
 * Waits are blocking (NULL timeout / -1).  The contenders alternate in
 * blocks of R round trips (which goes first alternates); B runs each block's
 * side after a barrier.  Each block is timed by both clocks: process CPU
 * time (both threads: the CPU the round trips cost) and the monotonic clock
 * (the latency of a round trip, idle wake-up included).  `ratio` uses the
 * clock selected by --clock (CPU by default, as every benchmark here); the
 * other clock's figures are on the same line.
 *
 * Placement (--cpu=cross|same|both):
 *   cross  A pinned to one CPU and B to another: the headline (default).
 *   same   both pinned to one CPU: every half trip is a context switch
 *          (the earlier libkqueue 2.7 comparison was measured this way).
 * The full run does cross then same; --quick does both with few trips.
 * With a single usable CPU only "same" can run; the program says so.
 *
 * Output, one line per placement:
 *   user-roundtrip cpu=<cross|same> kevent_ns=<x> eventfd_ns=<y> ratio=<x/y>
 *       clock=<cpu|wall> ratio_paired=... cpu_*=... wall_*=... headline=<0|1>
 * Target: ratio <= 1.10.
 *
 * Exit: 0 done, 1 a record was wrong (or setup failed), 2 bad usage.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/eventfd.h>

enum mode { M_KEVENT, M_EVENTFD, M_QUIT };

struct shared {
	int kq1, kq2;
	int efd1, efd2, ep1, ep2;
	pthread_barrier_t start, done;
	enum mode mode;        /* set by A before `start` */
	long trips;
};

static struct shared sh;
static char tag1, tag2;    /* the knotes' udata */

static void user_trigger(int kq, uintptr_t ident, long i, void *udata)
{
	struct kevent ch;
	EV_SET(&ch, ident, EVFILT_USER, 0, NOTE_TRIGGER, i, udata);
	int r = kevent(kq, &ch, 1, NULL, 0, NULL);
	if (__builtin_expect(r != 0, 0))
		bench_fail("kevent(NOTE_TRIGGER knote %lu) = %d: %s", (unsigned long)ident, r,
			   r < 0 ? strerror(errno) : "records returned");
}

static void user_wait(int kq, uintptr_t ident, long i, void *udata)
{
	struct kevent ev;
	int r = kevent(kq, NULL, 0, &ev, 1, NULL);
	if (__builtin_expect(r != 1 || ev.ident != ident || ev.filter != EVFILT_USER ||
			     ev.data != i || ev.fflags != 0 || ev.udata != udata ||
			     (ev.flags & EV_ERROR) || !(ev.flags & EV_CLEAR), 0)) {
		if (r < 0)
			bench_fail("kevent wait for knote %lu: %s", (unsigned long)ident,
				   strerror(errno));
		bench_fail("kevent wait returned %d: ident %lu filter %d flags %#x fflags %#x "
			   "data %lld (want 1 record: knote %lu, EVFILT_USER, EV_CLEAR, data %ld)",
			   r, (unsigned long)ev.ident, ev.filter, ev.flags, ev.fflags,
			   (long long)ev.data, (unsigned long)ident, i);
	}
}

static void efd_post(int efd, long i)
{
	uint64_t v = (uint64_t)i;
	if (__builtin_expect(write(efd, &v, sizeof v) != (ssize_t)sizeof v, 0))
		bench_die("write(eventfd)");
}

static void efd_wait(int ep, int efd, long i)
{
	struct epoll_event ee;
	int r = epoll_wait(ep, &ee, 1, -1);
	if (__builtin_expect(r != 1 || ee.data.fd != efd, 0))
		bench_fail("epoll_wait returned %d (fd %d; want 1, fd %d)", r,
			   r == 1 ? ee.data.fd : -1, efd);
	uint64_t v = 0;
	ssize_t rd = read(efd, &v, sizeof v);
	if (__builtin_expect(rd != (ssize_t)sizeof v || v != (uint64_t)i, 0))
		bench_fail("read(eventfd) = %zd, value %llu (want 8, %ld)", rd,
			   (unsigned long long)v, i);
}

static void *thread_b(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&sh.start);
		if (sh.mode == M_QUIT)
			return NULL;
		if (sh.mode == M_KEVENT) {
			for (long i = 1; i <= sh.trips; i++) {
				user_wait(sh.kq1, 1, i, &tag1);
				user_trigger(sh.kq2, 2, i, &tag2);
			}
		} else {
			for (long i = 1; i <= sh.trips; i++) {
				efd_wait(sh.ep1, sh.efd1, i);
				efd_post(sh.efd2, i);
			}
		}
		pthread_barrier_wait(&sh.done);
	}
}

struct times {
	double cpu, wall;   /* ns per round trip */
};

/* One block: B runs its side after the barrier, A times the trips. */
static struct times block(enum mode m, long trips)
{
	sh.mode = m;
	sh.trips = trips;
	pthread_barrier_wait(&sh.start);
	int64_t c0 = bench_clock_ns(), w0 = bench_now_ns();
	if (m == M_KEVENT) {
		for (long i = 1; i <= trips; i++) {
			user_trigger(sh.kq1, 1, i, &tag1);
			user_wait(sh.kq2, 2, i, &tag2);
		}
	} else {
		for (long i = 1; i <= trips; i++) {
			efd_post(sh.efd1, i);
			efd_wait(sh.ep2, sh.efd2, i);
		}
	}
	int64_t c1 = bench_clock_ns(), w1 = bench_now_ns();
	pthread_barrier_wait(&sh.done);
	struct times t = { (double)(c1 - c0) / trips, (double)(w1 - w0) / trips };
	return t;
}

static void setup(void)
{
	struct kevent ch;
	sh.kq1 = kqueue();
	sh.kq2 = kqueue();
	if (sh.kq1 < 0 || sh.kq2 < 0)
		bench_die("kqueue");
	EV_SET(&ch, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &tag1);
	if (kevent(sh.kq1, &ch, 1, NULL, 0, NULL) != 0)
		bench_die("kevent(EV_ADD EVFILT_USER 1)");
	EV_SET(&ch, 2, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, &tag2);
	if (kevent(sh.kq2, &ch, 1, NULL, 0, NULL) != 0)
		bench_die("kevent(EV_ADD EVFILT_USER 2)");

	sh.efd1 = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sh.efd2 = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sh.ep1 = epoll_create1(EPOLL_CLOEXEC);
	sh.ep2 = epoll_create1(EPOLL_CLOEXEC);
	if (sh.efd1 < 0 || sh.efd2 < 0 || sh.ep1 < 0 || sh.ep2 < 0)
		bench_die("eventfd/epoll_create1");
	struct epoll_event e1 = { .events = EPOLLIN, .data.fd = sh.efd1 };
	struct epoll_event e2 = { .events = EPOLLIN, .data.fd = sh.efd2 };
	if (epoll_ctl(sh.ep1, EPOLL_CTL_ADD, sh.efd1, &e1) != 0 ||
	    epoll_ctl(sh.ep2, EPOLL_CTL_ADD, sh.efd2, &e2) != 0)
		bench_die("epoll_ctl(ADD)");
	if (pthread_barrier_init(&sh.start, NULL, 2) != 0 ||
	    pthread_barrier_init(&sh.done, NULL, 2) != 0)
		bench_die("pthread_barrier_init");
}

/* Nothing may be left over after a block: both knotes untriggered, both
 * eventfds at 0. */
static void check_quiet(void)
{
	static const struct timespec zero = { 0, 0 };
	struct kevent ev;
	struct epoll_event ee;
	if (kevent(sh.kq1, NULL, 0, &ev, 1, &zero) != 0 ||
	    kevent(sh.kq2, NULL, 0, &ev, 1, &zero) != 0)
		bench_fail("a user knote is still triggered after a block");
	if (epoll_wait(sh.ep1, &ee, 1, 0) != 0 || epoll_wait(sh.ep2, &ee, 1, 0) != 0)
		bench_fail("an eventfd is still readable after a block");
}

static void measure(const char *placement, int headline, long blocks, long trips, int wall)
{
	size_t nb = (size_t)blocks;
	double *kc = calloc(nb, sizeof *kc), *ec = calloc(nb, sizeof *ec);
	double *kw = calloc(nb, sizeof *kw), *ew = calloc(nb, sizeof *ew);
	double *pc = calloc(nb, sizeof *pc), *pw = calloc(nb, sizeof *pw);
	if (!kc || !ec || !kw || !ew || !pc || !pw)
		bench_die("calloc");

	long warm = trips / 4 > 50 ? trips / 4 : 50;
	block(M_KEVENT, warm);
	block(M_EVENTFD, warm);
	check_quiet();
	for (size_t b = 0; b < nb; b++) {
		struct times k, e;
		if (b % 2 == 0) {
			k = block(M_KEVENT, trips);
			e = block(M_EVENTFD, trips);
		} else {
			e = block(M_EVENTFD, trips);
			k = block(M_KEVENT, trips);
		}
		kc[b] = k.cpu;
		ec[b] = e.cpu;
		kw[b] = k.wall;
		ew[b] = e.wall;
		pc[b] = k.cpu / e.cpu;
		pw[b] = k.wall / e.wall;
	}
	check_quiet();

	double kcm = bench_median(kc, nb), ecm = bench_median(ec, nb);
	double kwm = bench_median(kw, nb), ewm = bench_median(ew, nb);
	double ks = wall ? kwm : kcm, es = wall ? ewm : ecm;
	printf("user-roundtrip cpu=%s kevent_ns=%.1f eventfd_ns=%.1f ratio=%.3f clock=%s "
	       "ratio_paired=%.3f cpu_kevent_ns=%.1f cpu_eventfd_ns=%.1f cpu_ratio=%.3f "
	       "wall_kevent_ns=%.1f wall_eventfd_ns=%.1f wall_ratio=%.3f "
	       "wall_ratio_paired=%.3f kevent_iqr_pct=%.1f eventfd_iqr_pct=%.1f "
	       "headline=%d blocks=%ld trips=%ld\n",
	       placement, ks, es, ks / es, wall ? "wall" : "cpu",
	       bench_median(wall ? pw : pc, nb), kcm, ecm, kcm / ecm, kwm, ewm, kwm / ewm,
	       bench_median(pw, nb), bench_iqr_pct(wall ? kw : kc, nb),
	       bench_iqr_pct(wall ? ew : ec, nb), headline, blocks, trips);
	fflush(stdout);
	free(kc); free(ec); free(kw); free(ew); free(pc); free(pw);
}

struct run {
	long blocks, trips;
	int wall;
};

static void measure_at(const char *placement, int headline, void *ctx)
{
	const struct run *r = ctx;
	measure(placement, headline, r->blocks, r->trips, r->wall);
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, bench_parse_place, "[--cpu=cross|same|both]");
	long blocks = o.blocks ? o.blocks : o.quick ? 4 : 20;
	long trips = o.per_block ? o.per_block : o.quick ? 200 : 1000;

	/* The CPUs this process may use: the first two are the ones pinned to. */
	int cpus[2];
	bench_two_cpus(cpus);

	bench_header("user-roundtrip", &o);
	printf("# ping-pong A->B->A, %ld round trips per block, median of %ld blocks, "
	       "contenders alternating; cross = CPUs %d and %d, same = CPU %d; headline: "
	       "cross\n", trips, blocks, cpus[0], cpus[1], cpus[0]);
	fflush(stdout);

	setup();
	pthread_t b;
	int e = pthread_create(&b, NULL, thread_b, NULL);
	if (e != 0) {
		errno = e;
		bench_die("pthread_create");
	}
	struct run r = { blocks, trips, o.wall };
	bench_placements(b, measure_at, &r);
	sh.mode = M_QUIT;
	pthread_barrier_wait(&sh.start);
	pthread_join(b, NULL);
	return 0;
}
