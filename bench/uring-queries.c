/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * uring-queries: is a harvest's per-event socket query cheaper as one
 * io_uring submission than as one ioctl per event?
 *
 * When kevent() returns k ready sockets, libkq asks each for an exact count:
 * FIONREAD (= SIOCINQ) for a READ knote, SO_SNDBUF and SIOCOUTQ for a WRITE
 * knote (filter/fdkind.c).  Linux 6.7+ offers the same queries as
 * IORING_OP_URING_CMD with cmd_op SOCKET_URING_OP_SIOCINQ / _SIOCOUTQ /
 * _GETSOCKOPT, so k queries could cost one io_uring_enter() instead of k
 * system calls.  This program measures both on the same sockets.
 *
 * Sockets: N connected pairs per kind (kind=tcp: 127.0.0.1, kind=unix:
 * AF_UNIX stream socketpair; Linux answers the io_uring SIOCINQ/SIOCOUTQ
 * there with EOPNOTSUPP, the AF_UNIX protocol having no ioctl hook for
 * io_uring to call, so for kind=unix ioctl is measured alone).  The queried end of pair i holds (i % 200) + 1
 * unread bytes and has bytes of its own stuck in its send queue (TCP: the
 * peer's receive buffer is full, so they stay unacknowledged), so every
 * query has a non-trivial, mostly distinct answer.  A batch of k queries
 * takes the next k sockets round the N (N > 64: no batch asks one socket
 * twice, and the caches see a server's spread, not one hot socket).
 *
 * Operations (op=):
 *   inq    READ knote's count: ioctl(SIOCINQ) vs SOCKET_URING_OP_SIOCINQ.
 *   outq   ioctl(SIOCOUTQ) vs SOCKET_URING_OP_SIOCOUTQ.
 *   space  WRITE knote's count as libkq computes it: getsockopt(SO_SNDBUF)
 *          + ioctl(SIOCOUTQ) per event vs two SQEs per event
 *          (SOCKET_URING_OP_GETSOCKOPT + _SIOCOUTQ).  ns per event.
 *
 * Contenders, alternating order in every block (bench_turn):
 *   ioctl  k raw system calls (the inline `syscall` instruction, as libkq's
 *          src/sys.h issues them).
 *   plain  one io_uring_enter(k, k, GETEVENTS) on a ring with no setup flags,
 *          then the k CQEs read from the ring.
 *   coop   the same on an IORING_SETUP_COOP_TASKRUN ring.
 *   defer  IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN.
 *   tuned  defer + IORING_SETUP_NO_SQARRAY + the ring's descriptor
 *          registered (IORING_ENTER_REGISTERED_RING: no fdget of the ring).
 * Each ring is set up once and reused; a ring whose flags the kernel refuses
 * is reported as "na".  Every answer, from either method, is compared with
 * the count ioctl gave at setup; a disagreement that a fresh ioctl does not
 * explain (the socket's state moved: counted as `drift`) fails the run.
 * Before timing, each socket is asked by io_uring and by ioctl side by side.
 *
 * fdtable=private|shared: a single-threaded process's ioctl skips the file
 * reference count (fdget sees an unshared descriptor table) while io_uring
 * takes a reference per SQE anyway; with a second thread alive (a threaded
 * server) both pay it.  The full run measures both.
 *
 * The probe: what a program pays once to learn whether it can use this
 * (io_uring may be compiled out, refused by kernel.io_uring_disabled or a
 * seccomp filter, or the op unknown to the kernel or unsupported by the
 * socket's protocol): wall clock, median of repeated runs.
 *
 * Output:
 *   uring-queries fdtable=<f> kind=<tcp|unix> op=<op> k=<k> ioctl_ns=<x>
 *       plain_ns= coop_ns= defer_ns= tuned_ns= (ns per query; space: per
 *       event) best=<config> best_ns= ratio=<best/ioctl> ratio_paired=...
 *   uring-queries-summary fdtable=<f> kind=<kind> supported=<0|1>
 *       config=<the one config a library would use for every k>
 *       breakeven_<op>=<k> (smallest k from which that config is cheaper
 *       than ioctl at every larger k, by the paired ratio; -1 never)
 *       ioctl_<op>_ns fixed_<op>_ns per_<op>_ns fit_breakeven_<op> (the
 *       config's cost as one fixed cost per submission plus one per query)
 *       ratio_<op>_k<k>=<paired ratio> compared=<io_uring answers checked>
 *   uring-queries-probe io_uring_disabled=<sysctl> tcp_supported=<0|1>
 *       unix_supported=<0|1> refused_us probe_ok_us probe_unsupported_us
 *       ring_setup_us ring_teardown_us (wall clock, microseconds)
 * Exit: 0 done (also when io_uring is unavailable: ioctl alone is
 * measured), 1 a count disagreed (or setup failed), 2 bad usage.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <linux/io_uring.h>
#include <linux/sockios.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/*
 * Debian 12's linux-libc-dev (6.1) predates these; values from the kernel's
 * include/uapi/linux/io_uring.h.  The uapi never renumbers, so defining them
 * here is safe on any kernel: an older one answers -EINVAL / -EOPNOTSUPP,
 * which the probe handles.
 */
#ifndef IORING_SETUP_NO_SQARRAY
#define IORING_SETUP_NO_SQARRAY (1U << 16)   /* 6.6 */
#endif
#ifndef SOCKET_URING_OP_SIOCINQ
/* enum io_uring_socket_op */
#define SOCKET_URING_OP_SIOCINQ 0
#define SOCKET_URING_OP_SIOCOUTQ 1
#define SOCKET_URING_OP_GETSOCKOPT 2
#endif

#define MAX_K 64
#define RING_ENTRIES 128        /* op=space puts 2 SQEs per event: 2 * MAX_K */
#define MAX_PAIRS 1024
#define INQ_SPREAD 200

/* ---- raw system calls ---- */

/* Both contenders enter the kernel the way libkq does (src/sys.h): the
 * instruction inline, not libc's variadic syscall(), whose argument shuffle
 * and errno handling would be charged k times to ioctl and once to io_uring. */
#if defined(__x86_64__)
static inline long rsys(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}
#else
static inline long rsys(long n, long a, long b, long c, long d, long e, long f)
{
	long r = syscall(n, a, b, c, d, e, f);
	return r < 0 ? -errno : r;
}
#endif

static inline int raw_ioctl_int(int fd, unsigned long req, int *out)
{
	return (int)rsys(SYS_ioctl, fd, (long)req, (long)out, 0, 0, 0);
}

/* getsockopt is one of the names libkq exports (interpose.c): go around it,
 * as the library itself does. */
static inline int raw_sndbuf(int fd, int *out)
{
	socklen_t len = sizeof *out;
	return (int)rsys(SYS_getsockopt, fd, SOL_SOCKET, SO_SNDBUF, (long)out, (long)&len, 0);
}

/* ---- a minimal io_uring ---- */

struct ring {
	const char *name;
	int fd;                 /* -1: not available */
	int enter_fd;           /* fd, or its registered index */
	unsigned enter_flags;
	unsigned setup_flags;
	int setup_err;          /* errno of a refused setup */
	void *map;
	size_t map_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	_Atomic uint32_t *sq_tail;
	_Atomic uint32_t *cq_head;
	_Atomic uint32_t *cq_tail;
	struct io_uring_cqe *cqes;
	uint32_t sq_mask, cq_mask;
	uint32_t tail;          /* our copy of *sq_tail: only we write it */
	uint32_t head;          /* our copy of *cq_head */
	int sndbuf[RING_ENTRIES];  /* GETSOCKOPT answers, one per SQE slot */
};

static int uring_setup(unsigned entries, struct io_uring_params *p)
{
	return (int)rsys(SYS_io_uring_setup, entries, (long)p, 0, 0, 0, 0);
}

static int uring_enter(const struct ring *r, unsigned submit, unsigned wait)
{
	return (int)rsys(SYS_io_uring_enter, r->enter_fd, submit, wait,
			 IORING_ENTER_GETEVENTS | r->enter_flags, 0, 0);
}

static void ring_close(struct ring *r)
{
	/* A registered ring descriptor holds its own reference to the ring,
	 * per thread, and a thread has only 16 such slots (EBUSY beyond):
	 * without this a closed ring would live on and slots run out. */
	if (r->fd >= 0 && (r->enter_flags & IORING_ENTER_REGISTERED_RING)) {
		struct io_uring_rsrc_update up = { .offset = (uint32_t)r->enter_fd };
		rsys(SYS_io_uring_register, r->fd, IORING_UNREGISTER_RING_FDS, (long)&up, 1, 0, 0);
	}
	if (r->map && r->map != MAP_FAILED)
		munmap(r->map, r->map_len);
	if (r->sqes && (void *)r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->fd >= 0)
		bench_raw_close(r->fd);
	r->map = NULL;
	r->sqes = NULL;
	r->fd = -1;
}

/* Sets up a ring; 0 or -errno (r->fd stays -1).  register_fd: also register
 * the ring's descriptor, so io_uring_enter() skips the fd table. */
static int ring_open(struct ring *r, const char *name, unsigned flags, int register_fd)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->fd = -1;
	r->setup_flags = flags;
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	p.flags = flags;
	int fd = uring_setup(RING_ENTRIES, &p);
	if (fd < 0)
		return r->setup_err = -fd, fd;
	r->fd = fd;
	/* One mmap for both rings (5.4+); a kernel without it is too old for
	 * the socket commands anyway. */
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		ring_close(r);
		return r->setup_err = ENOSYS, -ENOSYS;
	}
	size_t cq_len = p.cq_off.cqes + (size_t)p.cq_entries * sizeof(struct io_uring_cqe);
	size_t sq_len = (flags & IORING_SETUP_NO_SQARRAY)
		? 0 : p.sq_off.array + (size_t)p.sq_entries * sizeof(uint32_t);
	r->map_len = cq_len > sq_len ? cq_len : sq_len;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		      fd, IORING_OFF_SQ_RING);
	if (r->map == MAP_FAILED) {
		int e = errno;
		ring_close(r);
		return r->setup_err = e, -e;
	}
	r->sqes_len = (size_t)p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       fd, IORING_OFF_SQES);
	if ((void *)r->sqes == MAP_FAILED) {
		int e = errno;
		ring_close(r);
		return r->setup_err = e, -e;
	}
	char *base = r->map;
	r->sq_tail = (_Atomic uint32_t *)(base + p.sq_off.tail);
	r->sq_mask = *(uint32_t *)(base + p.sq_off.ring_mask);
	r->cq_head = (_Atomic uint32_t *)(base + p.cq_off.head);
	r->cq_tail = (_Atomic uint32_t *)(base + p.cq_off.tail);
	r->cq_mask = *(uint32_t *)(base + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(base + p.cq_off.cqes);
	r->tail = atomic_load_explicit(r->sq_tail, memory_order_relaxed);
	r->head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
	if (!(flags & IORING_SETUP_NO_SQARRAY)) {
		/* Slot i always holds SQE i: the indirection is filled once. */
		uint32_t *array = (uint32_t *)(base + p.sq_off.array);
		for (uint32_t i = 0; i < p.sq_entries; i++)
			array[i] = i;
	}
	r->enter_fd = fd;
	if (register_fd) {
		struct io_uring_rsrc_update up = { .offset = UINT32_MAX, .data = (uint64_t)fd };
		long rr = rsys(SYS_io_uring_register, fd, IORING_REGISTER_RING_FDS, (long)&up, 1,
			       0, 0);
		if (rr != 1) {
			ring_close(r);
			return r->setup_err = rr < 0 ? (int)-rr : EINVAL, rr < 0 ? (int)rr : -EINVAL;
		}
		r->enter_fd = (int)up.offset;
		r->enter_flags = IORING_ENTER_REGISTERED_RING;
	}
	return 0;
}

static inline struct io_uring_sqe *ring_sqe(struct ring *r)
{
	struct io_uring_sqe *sqe = &r->sqes[r->tail & r->sq_mask];
	r->tail++;
	/* Every field written each time, as a real harvest would have to. */
	memset(sqe, 0, sizeof *sqe);
	return sqe;
}

static inline void prep_sock_cmd(struct io_uring_sqe *sqe, int fd, uint32_t op, uint64_t ud)
{
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	sqe->user_data = ud;
}

/* SOL_SOCKET/SO_SNDBUF into r->sndbuf[slot].  The 6.7 uapi overlays
 * level/optname on `addr` (level first), optlen on `splice_fd_in` and
 * optval on `addr3`; the 6.1 struct here has only the old names. */
static inline void prep_sndbuf(struct ring *r, struct io_uring_sqe *sqe, int fd, uint64_t ud,
			       unsigned slot)
{
	uint32_t level = SOL_SOCKET, optname = SO_SNDBUF;
	prep_sock_cmd(sqe, fd, SOCKET_URING_OP_GETSOCKOPT, ud);
	memcpy((char *)&sqe->addr, &level, sizeof level);
	memcpy((char *)&sqe->addr + sizeof level, &optname, sizeof optname);
	sqe->file_index = sizeof(int);
	sqe->addr3 = (uint64_t)(uintptr_t)&r->sndbuf[slot];
}

/* Submits what was prepared (all of it: a batch never exceeds the ring, and
 * each one is drained before the next) and waits for as many completions.
 * The call fails with EINTR only when it submitted nothing, so repeating it
 * whole is right. */
static inline int ring_submit_wait(struct ring *r, unsigned n)
{
	atomic_store_explicit(r->sq_tail, r->tail, memory_order_release);
	int got;
	do
		got = uring_enter(r, n, n);
	while (got == -EINTR);
	return got;
}

/* The next completion, or NULL if the kernel has posted none. */
static inline struct io_uring_cqe *ring_cqe(struct ring *r)
{
	uint32_t tail = atomic_load_explicit(r->cq_tail, memory_order_acquire);
	if (__builtin_expect(r->head == tail, 0))
		return NULL;
	return &r->cqes[r->head & r->cq_mask];
}

/* The next completion, waiting for it if it is not there yet.  The socket
 * commands complete inside the submitting call, so this never waits in
 * practice; but a wait cut short by a signal returns the submitted count
 * all the same, and the ring must not be read past its tail. */
static inline struct io_uring_cqe *ring_cqe_wait(struct ring *r)
{
	struct io_uring_cqe *c;
	while (!(c = ring_cqe(r))) {
		int e = uring_enter(r, 0, 1);
		if (e < 0 && e != -EINTR)
			return NULL;
	}
	return c;
}

static inline void ring_cqe_seen(struct ring *r)
{
	r->head++;
	atomic_store_explicit(r->cq_head, r->head, memory_order_release);
}

/* ---- sockets ---- */

enum kind { K_TCP, K_UNIX, K_COUNT };
static const char *const kind_name[] = { "tcp", "unix" };
enum op { OP_INQ, OP_OUTQ, OP_SPACE, OP_COUNT };
static const char *const op_name[] = { "inq", "outq", "space" };

struct target {
	int fd;          /* the queried end */
	int peer;
	int inq, outq, sndbuf;   /* what ioctl/getsockopt said (kept current) */
};

struct sockset {
	enum kind kind;
	int n;
	struct target *t;
	long drift;      /* answers that changed under us, confirmed by ioctl */
	long compared;   /* io_uring answers checked against the ioctl counts */
};

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
		bench_die("fcntl(O_NONBLOCK)");
}

static void write_all(int fd, size_t len)
{
	static const char buf[4096];
	while (len > 0) {
		ssize_t w = write(fd, buf, len < sizeof buf ? len : sizeof buf);
		if (w <= 0)
			bench_die("write (setup)");
		len -= (size_t)w;
	}
}

/* Writes until the kernel refuses more (fd non-blocking). */
static void write_until_full(int fd)
{
	static const char buf[4096];
	for (;;) {
		ssize_t w = write(fd, buf, sizeof buf);
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0)
			bench_die("write (fill)");
	}
}

static int read_counts(struct target *t)
{
	int err = raw_ioctl_int(t->fd, SIOCINQ, &t->inq);
	if (!err)
		err = raw_ioctl_int(t->fd, SIOCOUTQ, &t->outq);
	if (!err)
		err = raw_sndbuf(t->fd, &t->sndbuf);
	return err;
}

static void sockset_create(struct sockset *s, enum kind kind, int n)
{
	s->kind = kind;
	s->n = n;
	s->drift = 0;
	s->compared = 0;
	s->t = bench_alloc((size_t)n, sizeof *s->t);
	int lfd = -1;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t slen = sizeof sin;
	if (kind == K_TCP) {
		lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
		    listen(lfd, 128) != 0 || getsockname(lfd, (struct sockaddr *)&sin, &slen) != 0)
			bench_die("TCP listener");
	}
	for (int i = 0; i < n; i++) {
		struct target *t = &s->t[i];
		if (kind == K_TCP) {
			int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			/* A small receive buffer on the peer, set before the
			 * handshake fixes its window: the queried end's sends
			 * then stall after a few KiB, which keeps SIOCOUTQ
			 * non-zero (loopback acknowledges everything else at
			 * once) without megabytes of queued data per pair. */
			int small = 4096;
			if (c < 0 || setsockopt(c, SOL_SOCKET, SO_RCVBUF, &small, sizeof small) != 0 ||
			    connect(c, (struct sockaddr *)&sin, sizeof sin) != 0)
				bench_die("TCP connect");
			int a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (a < 0)
				bench_die("accept4");
			if (setsockopt(a, SOL_SOCKET, SO_SNDBUF, &small, sizeof small) != 0)
				bench_die("setsockopt(SO_SNDBUF)");
			t->fd = a;
			t->peer = c;
			set_nonblock(a);
			write_until_full(a);
		} else {
			int sv[2];
			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
				bench_die("socketpair");
			t->fd = sv[0];
			t->peer = sv[1];
			/* Unread by the peer, so charged to the sender's
			 * SIOCOUTQ (AF_UNIX counts what it has in flight). */
			write_all(t->fd, 512 + (size_t)i);
		}
		write_all(t->peer, (size_t)(i % INQ_SPREAD) + 1);
	}
	if (lfd >= 0)
		bench_raw_close(lfd);

	/* Let loopback settle (delayed ACKs, window updates), then take the
	 * counts once they hold still across a pause. */
	for (int tries = 0;; tries++) {
		struct timespec ms20 = { 0, 20 * 1000 * 1000 };
		nanosleep(&ms20, NULL);
		int moved = 0;
		for (int i = 0; i < n; i++) {
			struct target before = s->t[i];
			if (read_counts(&s->t[i]) != 0)
				bench_die("ioctl (setup)");
			if (tries == 0 || before.inq != s->t[i].inq || before.outq != s->t[i].outq ||
			    before.sndbuf != s->t[i].sndbuf)
				moved++;
		}
		if (!moved)
			break;
		if (tries == 50)
			bench_fail("kind=%s: %d sockets' counts still moving after 1 s", kind_name[kind],
				   moved);
	}
	for (int i = 0; i < n; i++) {
		struct target *t = &s->t[i];
		if (t->inq != i % INQ_SPREAD + 1 || t->outq <= 0 || t->sndbuf <= 0)
			bench_fail("kind=%s socket %d: inq %d (want %d) outq %d sndbuf %d",
				   kind_name[kind], i, t->inq, i % INQ_SPREAD + 1, t->outq, t->sndbuf);
	}
}

static void sockset_destroy(struct sockset *s)
{
	for (int i = 0; i < s->n; i++) {
		bench_raw_close(s->t[i].fd);
		bench_raw_close(s->t[i].peer);
	}
	free(s->t);
	s->t = NULL;
}

/* An answer differed from the recorded count: either the socket's state
 * moved (a fresh ioctl agrees with the answer: take it) or the method
 * answered wrongly (fail). */
__attribute__((cold, noinline))
static void mismatch(struct sockset *s, struct target *t, enum op op, int which, int got,
		     const char *method)
{
	int now = 0, err;
	if (which == OP_INQ)
		err = raw_ioctl_int(t->fd, SIOCINQ, &now);
	else if (which == OP_OUTQ)
		err = raw_ioctl_int(t->fd, SIOCOUTQ, &now);
	else
		err = raw_sndbuf(t->fd, &now);
	/* TCP may grow a send buffer by itself (tcp_sndbuf_expand), and a
	 * window probe may let a few queued bytes out: both are real changes,
	 * seen by ioctl too, not a wrong answer. */
	if (err == 0 && now == got) {
		if (which == OP_INQ)
			t->inq = now;
		else if (which == OP_OUTQ)
			t->outq = now;
		else
			t->sndbuf = now;
		s->drift++;
		return;
	}
	bench_fail("kind=%s op=%s: %s answered %d for fd %d; ioctl says %d%s%s", kind_name[s->kind],
		   op_name[op], method, got, t->fd, now, err ? ": " : "",
		   err ? strerror(-err) : "");
}

/* ---- the contenders: `events` events in batches of k, from *pos on ---- */

static void run_ioctl(struct sockset *s, enum op op, int k, long events, int *pos)
{
	int p = *pos;
	for (long done = 0; done < events; done += k) {
		for (int j = 0; j < k; j++) {
			struct target *t = &s->t[p];
			int v = 0, err;
			if (op == OP_INQ) {
				err = raw_ioctl_int(t->fd, SIOCINQ, &v);
				if (__builtin_expect(err || v != t->inq, 0))
					mismatch(s, t, op, OP_INQ, err ? err : v, "ioctl");
			} else if (op == OP_OUTQ) {
				err = raw_ioctl_int(t->fd, SIOCOUTQ, &v);
				if (__builtin_expect(err || v != t->outq, 0))
					mismatch(s, t, op, OP_OUTQ, err ? err : v, "ioctl");
			} else {
				int q = 0;
				err = raw_sndbuf(t->fd, &v);
				if (__builtin_expect(err || v != t->sndbuf, 0))
					mismatch(s, t, op, OP_SPACE, err ? err : v, "getsockopt");
				err = raw_ioctl_int(t->fd, SIOCOUTQ, &q);
				if (__builtin_expect(err || q != t->outq, 0))
					mismatch(s, t, op, OP_OUTQ, err ? err : q, "ioctl");
			}
			if (++p == s->n)
				p = 0;
		}
	}
	*pos = p;
}

/* user_data: the target's index, times 2, + 1 for the SO_SNDBUF half. */
static void run_uring(struct ring *r, struct sockset *s, enum op op, int k, long events,
		      int *pos)
{
	int p = *pos;
	for (long done = 0; done < events; done += k) {
		unsigned nsqe = 0;
		int q = p;
		for (int j = 0; j < k; j++) {
			int fd = s->t[q].fd;
			uint64_t ud = (uint64_t)q * 2;
			if (op == OP_INQ) {
				prep_sock_cmd(ring_sqe(r), fd, SOCKET_URING_OP_SIOCINQ, ud);
				nsqe++;
			} else if (op == OP_OUTQ) {
				prep_sock_cmd(ring_sqe(r), fd, SOCKET_URING_OP_SIOCOUTQ, ud);
				nsqe++;
			} else {
				unsigned slot = r->tail & r->sq_mask;
				struct io_uring_sqe *sqe = ring_sqe(r);
				prep_sndbuf(r, sqe, fd, ud + 1, slot);
				prep_sock_cmd(ring_sqe(r), fd, SOCKET_URING_OP_SIOCOUTQ, ud);
				nsqe += 2;
			}
			if (++q == s->n)
				q = 0;
		}
		int got = ring_submit_wait(r, nsqe);
		if (__builtin_expect(got != (int)nsqe, 0))
			bench_fail("io_uring_enter(%s, %u) = %d%s%s", r->name, nsqe, got,
				   got < 0 ? ": " : "", got < 0 ? strerror(-got) : "");
		for (unsigned j = 0; j < nsqe; j++) {
			struct io_uring_cqe *c = ring_cqe_wait(r);
			if (__builtin_expect(!c, 0))
				bench_fail("%s: %u of %u completions missing", r->name, nsqe - j, nsqe);
			uint64_t ud = c->user_data;
			struct target *t = &s->t[ud / 2];
			int res = c->res;
			if (ud & 1) {
				/* GETSOCKOPT answers with optlen; the value itself
				 * is checked below, from its SQE slot's buffer. */
				if (__builtin_expect(res != (int)sizeof(int), 0))
					mismatch(s, t, op, OP_SPACE, res, "GETSOCKOPT");
			} else if (op == OP_INQ) {
				if (__builtin_expect(res != t->inq, 0))
					mismatch(s, t, op, OP_INQ, res, "SIOCINQ");
			} else {
				if (__builtin_expect(res != t->outq, 0))
					mismatch(s, t, op, OP_OUTQ, res, "SIOCOUTQ");
			}
			ring_cqe_seen(r);
		}
		if (op == OP_SPACE) {
			/* The SO_SNDBUF values, from the slots this batch used. */
			uint32_t first = r->tail - nsqe;
			for (unsigned j = 0; j < nsqe; j += 2) {
				unsigned slot = (first + j) & r->sq_mask;
				struct target *t = &s->t[(p + (int)(j / 2)) % s->n];
				if (__builtin_expect(r->sndbuf[slot] != t->sndbuf, 0))
					mismatch(s, t, op, OP_SPACE, r->sndbuf[slot], "GETSOCKOPT");
			}
		}
		s->compared += k;
		p = q;
	}
	*pos = p;
}

/* ---- support ---- */

/* One query of `op` on t through ring r, compared with ioctl: 0 when the
 * kernel answers it correctly, else the -errno it answered with (-EINVAL: a
 * kernel without the socket commands; -EOPNOTSUPP: the protocol has no
 * ioctl hook, as AF_UNIX). */
static int op_supported(struct ring *r, struct target *t, enum op op)
{
	unsigned slot = r->tail & r->sq_mask;
	struct io_uring_sqe *sqe = ring_sqe(r);
	if (op == OP_SPACE)
		prep_sndbuf(r, sqe, t->fd, 1, slot);
	else
		prep_sock_cmd(sqe, t->fd,
			      op == OP_INQ ? SOCKET_URING_OP_SIOCINQ : SOCKET_URING_OP_SIOCOUTQ, 0);
	int got = ring_submit_wait(r, 1);
	if (got != 1)
		return got < 0 ? got : -EIO;
	struct io_uring_cqe *c = ring_cqe_wait(r);
	if (!c)
		return -EIO;
	int res = c->res;
	ring_cqe_seen(r);
	if (res < 0)
		return res;
	int want = op == OP_INQ ? t->inq : op == OP_OUTQ ? t->outq : (int)sizeof(int);
	if (res != want || (op == OP_SPACE && r->sndbuf[slot] != t->sndbuf))
		bench_fail("op=%s on fd %d: io_uring answered %d (value %d), ioctl %d", op_name[op],
			   t->fd, res, op == OP_SPACE ? r->sndbuf[slot] : res,
			   op == OP_SPACE ? t->sndbuf : want);
	return 0;
}

static const char *errname(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EIO: return "EIO";
	default: return "other";
	}
}

/* ---- measurement ---- */

enum { C_IOCTL, C_PLAIN, C_COOP, C_DEFER, C_TUNED, C_COUNT };
static const char *const cname[] = { "ioctl", "plain", "coop", "defer", "tuned" };
static struct ring rings[C_COUNT];   /* [C_IOCTL] unused */

static const int ks[] = { 1, 2, 4, 8, 16, 32, 64 };
#define NK ((int)(sizeof ks / sizeof ks[0]))

struct cell {
	int measured;
	double ns[C_COUNT];       /* median ns per query (per event for space); <0: na */
	double paired[C_COUNT];   /* median of per-block config/ioctl */
};

static void measure(struct sockset *s, enum op op, int ki, const int *avail, long blocks,
		    long events, const char *fdtable, struct cell *cell)
{
	int k = ks[ki];
	int who[C_COUNT], n = 0;
	for (int c = 0; c < C_COUNT; c++)
		if (c == C_IOCTL || avail[c])
			who[n++] = c;
	double *v[C_COUNT];
	for (int c = 0; c < C_COUNT; c++)
		v[c] = bench_alloc((size_t)blocks, sizeof(double));
	double *pr = bench_alloc((size_t)blocks, sizeof(double));
	int pos = 0;

	/* Warm-up: caches, the rings' first use at this batch size. */
	for (int i = 0; i < n; i++) {
		if (who[i] == C_IOCTL)
			run_ioctl(s, op, k, events / 4, &pos);
		else
			run_uring(&rings[who[i]], s, op, k, events / 4, &pos);
	}
	for (long b = 0; b < blocks; b++) {
		for (int turn = 0; turn < n; turn++) {
			int c = who[bench_turn(b, turn, n)];
			int64_t t0 = bench_clock_ns();
			if (c == C_IOCTL)
				run_ioctl(s, op, k, events, &pos);
			else
				run_uring(&rings[c], s, op, k, events, &pos);
			v[c][b] = (double)(bench_clock_ns() - t0) / (double)events;
		}
	}

	cell->measured = 1;
	int best = C_IOCTL;
	for (int c = 0; c < C_COUNT; c++) {
		cell->ns[c] = -1.0;
		cell->paired[c] = -1.0;
		if (c != C_IOCTL && !avail[c])
			continue;
		cell->ns[c] = bench_median(v[c], (size_t)blocks);
		for (long b = 0; b < blocks; b++)
			pr[b] = v[c][b] / v[C_IOCTL][b];
		cell->paired[c] = bench_median(pr, (size_t)blocks);
		if (c != C_IOCTL && (best == C_IOCTL || cell->ns[c] < cell->ns[best]))
			best = c;
	}

	printf("uring-queries fdtable=%s kind=%s op=%s k=%d", fdtable, kind_name[s->kind],
	       op_name[op], k);
	for (int c = 0; c < C_COUNT; c++) {
		if (cell->ns[c] < 0)
			printf(" %s_ns=na", cname[c]);
		else
			printf(" %s_ns=%.1f", cname[c], cell->ns[c]);
	}
	if (best == C_IOCTL)
		printf(" best=na best_ns=na ratio=na ratio_paired=na");
	else
		printf(" best=%s best_ns=%.1f ratio=%.3f ratio_paired=%.3f", cname[best],
		       cell->ns[best], cell->ns[best] / cell->ns[C_IOCTL], cell->paired[best]);
	printf(" ioctl_iqr_pct=%.1f", bench_iqr_pct(v[C_IOCTL], (size_t)blocks));
	if (best != C_IOCTL)
		printf(" best_iqr_pct=%.1f", bench_iqr_pct(v[best], (size_t)blocks));
	printf(" blocks=%ld events=%ld\n", blocks, events);
	fflush(stdout);
	for (int c = 0; c < C_COUNT; c++)
		free(v[c]);
	free(pr);
}

/* The one configuration a library would pick for a kind: the lowest mean
 * of the paired ratios over every op and k measured. */
static int pick_config(struct cell cells[OP_COUNT][NK], const int *avail)
{
	int best = -1;
	double best_g = 0.0;
	for (int c = C_PLAIN; c < C_COUNT; c++) {
		if (!avail[c])
			continue;
		double sum = 0.0;
		int m = 0;
		for (int op = 0; op < OP_COUNT; op++)
			for (int ki = 0; ki < NK; ki++)
				if (cells[op][ki].measured && cells[op][ki].paired[c] > 0) {
					sum += cells[op][ki].paired[c];
					m++;
				}
		if (m == 0)
			continue;
		double g = sum / m;
		if (best < 0 || g < best_g) {
			best = c;
			best_g = g;
		}
	}
	return best;
}

/* Config c's cost per query as a fixed cost per submission spread over
 * the batch plus a cost per query: ratio(k) = per + fixed / k, both counted
 * in ioctl calls (the paired ratio: the machine's drift between cells
 * measured at different times cancels), fitted by least squares over k.
 * Batching pays from k = fixed / (1 - per) on. */
static void fit(const struct cell *row, int c, double *fixed, double *per)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int n = 0;
	for (int ki = 0; ki < NK; ki++) {
		if (!row[ki].measured || row[ki].paired[c] <= 0)
			continue;
		double x = 1.0 / ks[ki], y = row[ki].paired[c];
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	double d = n * sxx - sx * sx;
	*fixed = n > 1 && d != 0 ? (n * sxy - sx * sy) / d : 0.0;
	*per = n > 0 ? (sy - *fixed * sx) / n : 0.0;
}

/* Median over k of ioctl's ns per query (it does not depend on k). */
static double ioctl_ns(const struct cell *row)
{
	double v[NK];
	int n = 0;
	for (int ki = 0; ki < NK; ki++)
		if (row[ki].measured)
			v[n++] = row[ki].ns[C_IOCTL];
	return bench_median(v, (size_t)n);
}

/* Smallest k from which config c is cheaper at every larger k; -1 never. */
static int breakeven(const struct cell *row, int c)
{
	int from = -1;
	for (int ki = NK - 1; ki >= 0; ki--) {
		if (!row[ki].measured || row[ki].paired[c] <= 0 || row[ki].paired[c] >= 1.0)
			break;
		from = ks[ki];
	}
	return from;
}

static void run_kind(enum kind kind, int npairs, long blocks, long events, const char *fdtable)
{
	struct sockset s;
	sockset_create(&s, kind, npairs);

	/* Which ops this kernel and this protocol answer, asked once. */
	int first = -1;
	for (int c = C_PLAIN; c < C_COUNT; c++)
		if (rings[c].fd >= 0) {
			first = c;
			break;
		}
	int op_ok[OP_COUNT], op_err[OP_COUNT];
	for (int op = 0; op < OP_COUNT; op++) {
		op_err[op] = first < 0 ? rings[C_PLAIN].setup_err
				       : -op_supported(&rings[first], &s.t[0], (enum op)op);
		/* space needs SIOCOUTQ as well as GETSOCKOPT, which the kernel
		 * may grant on its own (it does not need the protocol's ioctl) */
		if (op == OP_SPACE && !op_err[op])
			op_err[op] = op_err[OP_OUTQ];
		op_ok[op] = op_err[op] == 0;
		if (!op_ok[op])
			printf("# fdtable=%s kind=%s op=%s: io_uring %s (%s); ioctl measured alone\n",
			       fdtable, kind_name[kind], op_name[op],
			       first < 0 ? "unavailable" : "refuses the command",
			       errname(op_err[op]));
	}

	/* Each socket asked by io_uring and by ioctl side by side, before any
	 * timing: a wrong answer fails here rather than in a timed block. */
	for (int op = 0; op < OP_COUNT; op++) {
		if (!op_ok[op])
			continue;
		for (int c = C_PLAIN; c < C_COUNT; c++) {
			if (rings[c].fd < 0)
				continue;
			int pos = 0;
			run_ioctl(&s, (enum op)op, MAX_K, s.n - s.n % MAX_K, &pos);
			pos = 0;
			run_uring(&rings[c], &s, (enum op)op, MAX_K, s.n - s.n % MAX_K, &pos);
		}
	}

	static struct cell cells[OP_COUNT][NK];
	memset(cells, 0, sizeof cells);
	for (int op = 0; op < OP_COUNT; op++) {
		int avail[C_COUNT] = { 0 };
		for (int c = C_PLAIN; c < C_COUNT; c++)
			avail[c] = op_ok[op] && rings[c].fd >= 0;
		for (int ki = 0; ki < NK; ki++)
			measure(&s, (enum op)op, ki, avail, blocks, events, fdtable, &cells[op][ki]);
	}

	int avail_any[C_COUNT] = { 0 };
	int supported = 0;
	for (int c = C_PLAIN; c < C_COUNT; c++) {
		avail_any[c] = rings[c].fd >= 0 && op_ok[OP_INQ];
		supported |= avail_any[c];
	}
	int cfg = supported ? pick_config(cells, avail_any) : -1;
	printf("uring-queries-summary fdtable=%s kind=%s supported=%d", fdtable, kind_name[kind],
	       supported);
	if (cfg < 0) {
		printf(" config=na reason=%s", errname(op_err[OP_INQ]));
		for (int op = 0; op < OP_COUNT; op++)
			printf(" ioctl_%s_ns=%.1f", op_name[op], ioctl_ns(cells[op]));
	} else {
		printf(" config=%s", cname[cfg]);
		for (int op = 0; op < OP_COUNT; op++)
			if (op_ok[op])
				printf(" breakeven_%s=%d", op_name[op], breakeven(cells[op], cfg));
			else
				printf(" breakeven_%s=na", op_name[op]);
		for (int op = 0; op < OP_COUNT; op++) {
			if (!op_ok[op])
				continue;
			double fixed, per, io = ioctl_ns(cells[op]);
			fit(cells[op], cfg, &fixed, &per);
			printf(" ioctl_%s_ns=%.1f fixed_%s_ns=%.1f per_%s_ns=%.1f fit_breakeven_%s=%.1f",
			       op_name[op], io, op_name[op], fixed * io, op_name[op], per * io,
			       op_name[op], per < 1.0 ? fixed / (1.0 - per) : -1.0);
		}
		static const int show[] = { 0, 2, 3, 6 };   /* k = 1, 4, 8, 64 */
		for (int op = 0; op < OP_COUNT; op++)
			for (int i = 0; i < 4; i++)
				if (op_ok[op])
					printf(" ratio_%s_k%d=%.3f", op_name[op], ks[show[i]],
					       cells[op][show[i]].paired[cfg]);
	}
	printf(" compared=%ld drift=%ld mismatches=0 pairs=%d\n", s.compared, s.drift, s.n);
	fflush(stdout);
	sockset_destroy(&s);
}

/* ---- the probe ---- */

/* Everything a library does once to decide: set a ring up and ask one
 * socket.  A ring that answered is left in *r (kept, as a library would keep
 * it); one that did not is torn down, which is part of falling back.
 * Returns 0 or -errno. */
static int probe_once(struct ring *r, int fd, unsigned flags, int regfd)
{
	int err = ring_open(r, "probe", flags, regfd);
	if (err)
		return err;
	prep_sock_cmd(ring_sqe(r), fd, SOCKET_URING_OP_SIOCINQ, 0);
	int got = ring_submit_wait(r, 1);
	struct io_uring_cqe *c = got == 1 ? ring_cqe_wait(r) : NULL;
	err = got < 0 ? got : !c ? -EIO : c->res < 0 ? c->res : 0;
	if (c)
		ring_cqe_seen(r);
	if (err)
		ring_close(r);
	return err;
}

static double median_us(double *v, int n)
{
	return bench_median(v, (size_t)n) / 1000.0;
}

static void run_probe(int reps)
{
	struct sockset tcp, ux;
	sockset_create(&tcp, K_TCP, 1);
	sockset_create(&ux, K_UNIX, 1);
	const struct ring *cfg = NULL;
	for (int c = C_TUNED; c >= C_PLAIN; c--)
		if (rings[c].fd >= 0) {
			cfg = &rings[c];
			break;
		}
	unsigned flags = cfg ? cfg->setup_flags : 0;
	int regfd = cfg ? cfg->enter_flags != 0 : 0;

	double *refused = bench_alloc((size_t)reps, sizeof(double));
	double *ok = bench_alloc((size_t)reps, sizeof(double));
	double *setup = bench_alloc((size_t)reps, sizeof(double));
	double *teardown = bench_alloc((size_t)reps, sizeof(double));
	double *unsup = bench_alloc((size_t)reps, sizeof(double));
	int ok_err = 0, unsup_err = 0;
	for (int i = 0; i < reps; i++) {
		/* entries = 0 is refused at the door, before any allocation:
		 * what io_uring_disabled=2 (EPERM), a seccomp filter or a kernel
		 * without io_uring (ENOSYS) cost. */
		struct io_uring_params p;
		memset(&p, 0, sizeof p);
		int64_t t0 = bench_now_ns();
		int r0 = uring_setup(0, &p);
		refused[i] = (double)(bench_now_ns() - t0);
		if (r0 >= 0)
			bench_raw_close(r0);

		struct ring r;
		t0 = bench_now_ns();
		int e = probe_once(&r, tcp.t[0].fd, flags, regfd);
		ok[i] = (double)(bench_now_ns() - t0);
		if (e)
			ok_err = -e;
		else
			ring_close(&r);

		t0 = bench_now_ns();
		e = probe_once(&r, ux.t[0].fd, flags, regfd);
		unsup[i] = (double)(bench_now_ns() - t0);
		if (e)
			unsup_err = -e;
		else
			ring_close(&r);

		t0 = bench_now_ns();
		if (ring_open(&r, "probe", flags, regfd) == 0) {
			int64_t t1 = bench_now_ns();
			setup[i] = (double)(t1 - t0);
			ring_close(&r);
			teardown[i] = (double)(bench_now_ns() - t1);
		}
	}
	int disabled = -1;
	FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
	if (f) {
		if (fscanf(f, "%d", &disabled) != 1)
			disabled = -1;
		fclose(f);
	}
	printf("uring-queries-probe io_uring_disabled=%d config=%s tcp_supported=%d tcp_err=%s "
	       "unix_supported=%d unix_err=%s refused_us=%.2f",
	       disabled, cfg ? cfg->name : "none", cfg && !ok_err, ok_err ? errname(ok_err) : "none",
	       cfg && !unsup_err, unsup_err ? errname(unsup_err) : "none", median_us(refused, reps));
	if (!ok_err)
		printf(" probe_ok_us=%.2f", median_us(ok, reps));
	else
		printf(" probe_ok_us=na probe_failed_us=%.2f", median_us(ok, reps));
	printf(" probe_unsupported_us=%.2f", median_us(unsup, reps));
	if (cfg)
		printf(" ring_setup_us=%.2f ring_teardown_us=%.2f", median_us(setup, reps),
		       median_us(teardown, reps));
	else
		printf(" ring_setup_us=na ring_teardown_us=na");
	printf(" reps=%d\n", reps);
	fflush(stdout);
	free(refused);
	free(ok);
	free(setup);
	free(teardown);
	free(unsup);
	sockset_destroy(&tcp);
	sockset_destroy(&ux);
}

/* ---- a second thread, to share the descriptor table ---- */

static int park_pipe[2];

static void *parked(void *arg)
{
	(void)arg;
	char c;
	while (read(park_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* ---- main ---- */

static int opt_fdtable = -1;   /* bit 0 private, bit 1 shared; -1 default */
static long opt_pairs;

static int parse_extra(const char *a)
{
	if (strcmp(a, "--fdtable=private") == 0)
		opt_fdtable = 1;
	else if (strcmp(a, "--fdtable=shared") == 0)
		opt_fdtable = 2;
	else if (strcmp(a, "--fdtable=both") == 0)
		opt_fdtable = 3;
	else if (strncmp(a, "--pairs=", 8) == 0)
		opt_pairs = bench_parse_long("--pairs", a + 8);
	else
		return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra,
			 "[--fdtable=private|shared|both] [--pairs=N]");
	long blocks = o.blocks ? o.blocks : o.quick ? 9 : 101;
	long events = o.per_block ? o.per_block : o.quick ? 256 : 2048;
	events = (events + MAX_K - 1) / MAX_K * MAX_K;   /* whole batches at every k */
	int npairs = opt_pairs ? (int)opt_pairs : o.quick ? 128 : 256;
	if (npairs < MAX_K + 1 || npairs > MAX_PAIRS) {
		fprintf(stderr, "--pairs: %d..%d\n", MAX_K + 1, MAX_PAIRS);
		return 2;
	}
	int fdt = opt_fdtable > 0 ? opt_fdtable : o.quick ? 1 : 3;
	bench_raise_nofile();

	bench_header("uring-queries", &o);
	printf("# %d socket pairs per kind; k = 1..%d queries per batch; median of %ld blocks "
	       "of %ld events per contender, order rotating; ns per query (op=space: per event, "
	       "two queries)\n", npairs, MAX_K, blocks, events);

	static const struct { int c; unsigned flags; int regfd; } cfgs[] = {
		{ C_PLAIN, 0, 0 },
		{ C_COOP, IORING_SETUP_COOP_TASKRUN, 0 },
		{ C_DEFER, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, 0 },
		{ C_TUNED, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			   IORING_SETUP_NO_SQARRAY, 1 },
	};
	for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
		struct ring *r = &rings[cfgs[i].c];
		int err = ring_open(r, cname[cfgs[i].c], cfgs[i].flags, cfgs[i].regfd);
		if (err)
			printf("# ring %s (setup flags %#x%s): %s (%s); reported as na\n",
			       cname[cfgs[i].c], cfgs[i].flags, cfgs[i].regfd ? ", registered fd" : "",
			       strerror(-err), errname(-err));
	}
	fflush(stdout);

	run_probe(o.quick ? 20 : 200);

	for (int phase = 0; phase < 2; phase++) {
		if (!(fdt & (1 << phase)))
			continue;
		pthread_t th;
		if (phase == 1) {
			if (pipe2(park_pipe, O_CLOEXEC) != 0)
				bench_die("pipe2");
			if (pthread_create(&th, NULL, parked, NULL) != 0)
				bench_fail("pthread_create failed");
		}
		const char *name = phase ? "shared" : "private";
		for (int kind = 0; kind < K_COUNT; kind++)
			run_kind((enum kind)kind, npairs, blocks, events, name);
		if (phase == 1) {
			if (write(park_pipe[1], "x", 1) != 1)
				bench_die("write (park pipe)");
			pthread_join(th, NULL);
			bench_raw_close(park_pipe[0]);
			bench_raw_close(park_pipe[1]);
		}
	}
	for (int c = C_PLAIN; c < C_COUNT; c++)
		ring_close(&rings[c]);
	return 0;
}
