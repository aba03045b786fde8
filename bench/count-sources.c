/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * count-sources: where can the byte counts of many readable descriptors
 * come from, and what does each way cost per descriptor?
 *
 * FreeBSD's kevent() hands out EVFILT_READ's `data` (bytes readable) from
 * the knote itself.  On Linux libkq asks each returned descriptor with one
 * ioctl(FIONREAD) (TCP sockets: SIOCINQ batched through io_uring,
 * src/mux/uring.c), and with every descriptor active (Figure 11 of the
 * kqueue paper) that one call per record is most of kevent()'s cost
 * (bench/ready-of-n, sweep=active).  This program asks the kernel for the
 * same N counts by every way we know of, on the same descriptors, in
 * alternating order, so that the cheapest source that is exact can be
 * chosen from evidence and the least cost Linux allows can be stated.
 *
 * Kinds of descriptor (kind=): N pipes, N connected TCP pairs over
 * 127.0.0.1, N AF_UNIX stream socketpairs.  The asked end of pair i holds
 * (i % 200) + 1 unread bytes, never read, so every answer is known and
 * mostly distinct; every answer of every timed pass is compared with it.
 *
 * Sources (source=), ns per descriptor for one pass over all N:
 *   fionread/siocinq  one ioctl per descriptor: today's way, the baseline
 *   tee               pipes: tee(2) into a sink pipe answers with the bytes
 *                     it duplicated and consumes nothing; the sink is
 *                     emptied by one splice to /dev/null per sink-full
 *   uring-tee         pipes: the same as N IORING_OP_TEE in one
 *                     io_uring_enter (child process, see below)
 *   fdinfo            pipes: openat+read+close of /proc/self/fdinfo/<fd>
 *                     (shows pos, flags, mnt_id, ino: no count; timed so
 *                     that its price is known)
 *   uring-siocinq     TCP: N IORING_OP_URING_CMD SOCKET_URING_OP_SIOCINQ in
 *                     one io_uring_enter; -64: in submissions of 64, as
 *                     libkq does (KQ_URING_MAX)
 *   diag-port         TCP: one NETLINK_SOCK_DIAG dump of ESTABLISHED sockets
 *                     whose local port is the listener's (our accepted
 *                     ends), idiag_rqueue matched to descriptors by inode
 *   diag-all          TCP: the same dump without the port filter (every
 *                     established TCP socket of the network namespace)
 *   udiag             AF_UNIX: one unix_diag dump with UDIAG_SHOW_RQLEN
 *   poll, epoll,      readiness only, no counts: poll(N, 0), epoll_wait()
 *   uring-poll        returning all N, N IORING_OP_POLL_ADD in one enter
 *   floor             epoll_wait() + one ioctl per returned descriptor:
 *                     bench/ready-of-n's floor, readiness and exact counts
 *   kevent            libkq's kevent() returning N EVFILT_READ records
 * Sources that cannot answer at all (io_uring commands a pipe refuses,
 * fstat's st_size, a destructive io_uring READ) are tried once and
 * reported with what the kernel said (N=na ns_per_fd=na).  Where io_uring,
 * sock_diag or /proc is missing or refused, the sources that need it are
 * left out and the refusal is reported the same way.
 *
 * io_uring's TEE is always handed to an io-wq worker thread, and once such
 * a thread exists the process's descriptor table is shared for good (the
 * last worker stays: on 6.18 it was still there 12 s later, past io-wq's
 * idle timeout): every later ioctl would pay the file reference count that
 * a single-threaded process skips.  So uring-tee is
 * timed in a forked child, alternating with the ioctl baseline measured
 * there too (source=fionread-shared, fdtable=shared); the child's workers
 * are limited to one (IORING_REGISTER_IOWQ_MAX_WORKERS), and their CPU time
 * counts, being threads of the child.
 *
 * The io_uring rings are set up by raw system calls with an SQE laid out
 * here, so that the program builds with any <linux/io_uring.h>.
 *
 * Method: bench.h's.  Per (kind, N) a block runs each source for about
 * --target-us of CPU (calibrated once), the order turning from block to
 * block; a figure is the median over the blocks.
 *
 * Output:
 *   count-sources kind= source= N= ns_per_fd= iqr_pct= vs_ioctl=
 *       syscalls_per_pass= works=<yes|no> exact=<yes|no|na> fdtable= note=
 *   count-sources-check kind=tcp case= siocinq= uring_siocinq= diag_rqueue=
 *       equal=   (where sock_diag's idiag_rqueue and SIOCINQ part ways)
 *   count-sources-summary kind= N= cheapest_exact= cheapest_exact_ns=
 *       poll_ns= epoll_ns= floor_ns= kevent_ns= bound_ns= (epoll_wait +
 *       the cheapest exact count) bound_vs_poll= floor_vs_poll=
 *       kevent_vs_poll= kevent_vs_floor= kevent_vs_bound=
 *   count-sources-marginal kind= source= from_N= to_N= per_added_fd_ns=
 *       (what each descriptor added between two N cost)
 *   count-sources-final cpu= pipe= pipe_ns_per_fd= tcp= ... unix= ...
 *       (the cheapest exact source per kind at the largest N)
 * Options: --quick (N = 100, 1000, short blocks), --n=LIST,
 * --kinds=pipe,tcp,unix, --target-us=T, and bench.h's --blocks, --clock.
 * Exit: 0 done, 1 the baseline answered wrong or setup failed, 2 usage.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425   /* the same number on every architecture */
#define SYS_io_uring_enter 426
#define SYS_io_uring_register 427
#endif
/* Opcode numbers are ABI; written out so that old headers do not matter. */
#define OP_POLL_ADD  6
#define OP_READ      22
#define OP_RECV      27
#define OP_TEE       33
#define OP_URING_CMD 46
#define SOCK_CMD_SIOCINQ 0          /* SOCKET_URING_OP_SIOCINQ, Linux 6.7 */
#define REGISTER_IOWQ_MAX_WORKERS 19 /* Linux 5.15 */

#define FD_MARGIN 64
#define MAX_NS    16
#define SINK_MAX  64
#define RING_MAX  32768u             /* IORING_MAX_ENTRIES */
#define CHUNK_LIBKQ 64               /* src/kq.h KQ_URING_MAX */
#define CHECK_BYTES 10

/* The 64-byte submission entry, with only the fields used here. */
struct sqe {
	uint8_t opcode, flags;
	uint16_t ioprio;
	int32_t fd;
	union {
		uint64_t off;
		struct {
			uint32_t cmd_op, cmd_pad;
		};
	};
	uint64_t addr;
	uint32_t len;
	uint32_t op_flags;   /* poll32_events, msg_flags, splice_flags */
	uint64_t user_data;
	uint16_t buf_index, personality;
	int32_t splice_fd_in;
	uint64_t addr3, pad2;
};
_Static_assert(sizeof(struct sqe) == 64, "io_uring SQE is 64 bytes");
_Static_assert(offsetof(struct sqe, fd) == offsetof(struct io_uring_sqe, fd), "fd");
_Static_assert(offsetof(struct sqe, off) == offsetof(struct io_uring_sqe, off), "off");
_Static_assert(offsetof(struct sqe, len) == offsetof(struct io_uring_sqe, len), "len");
_Static_assert(offsetof(struct sqe, user_data) == offsetof(struct io_uring_sqe, user_data),
	       "user_data");
_Static_assert(offsetof(struct sqe, splice_fd_in) == 44, "splice_fd_in");

struct ring {
	int fd;
	unsigned entries;
	unsigned *sq_tail, sq_mask;
	unsigned *cq_head, *cq_tail, cq_mask;
	struct sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqes_len;
};

/* 0, or -errno when the kernel gives no ring. */
static int ring_init(struct ring *r, unsigned want)
{
	memset(r, 0, sizeof *r);
	r->fd = -1;
	unsigned e = 1;
	while (e < want && e < RING_MAX)
		e <<= 1;
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	long fd = syscall(SYS_io_uring_setup, e, &p);
	if (fd < 0)
		return -errno;
	r->fd = (int)fd;
	r->entries = p.sq_entries;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	int single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
	if (single && r->cq_len > r->sq_len)
		r->sq_len = r->cq_len;
	r->sq_map = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 r->fd, IORING_OFF_SQ_RING);
	r->cq_map = single ? r->sq_map
		  : mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			 r->fd, IORING_OFF_CQ_RING);
	r->sqes_len = p.sq_entries * sizeof(struct sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sq_map == MAP_FAILED || r->cq_map == MAP_FAILED || r->sqes == MAP_FAILED)
		bench_die("mmap(io_uring)");
	char *sq = r->sq_map, *cq = r->cq_map;
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = *(unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	/* slot i always names entry i: no indirection to maintain later */
	unsigned *array = (unsigned *)(sq + p.sq_off.array);
	for (unsigned i = 0; i < p.sq_entries; i++)
		array[i] = i;
	return 0;
}

static void ring_free(struct ring *r)
{
	if (r->fd < 0)
		return;
	munmap(r->sqes, r->sqes_len);
	if (r->cq_map != r->sq_map)
		munmap(r->cq_map, r->cq_len);
	munmap(r->sq_map, r->sq_len);
	bench_raw_close(r->fd);
	r->fd = -1;
}

/* The j-th entry of the next submission, zeroed. */
static struct sqe *ring_sqe(struct ring *r, unsigned j)
{
	struct sqe *q = &r->sqes[(*r->sq_tail + j) & r->sq_mask];
	memset(q, 0, sizeof *q);
	return q;
}

static unsigned ring_reap(struct ring *r, int *res, unsigned nres)
{
	unsigned head = *r->cq_head, got = 0;
	unsigned tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
	for (; head != tail; head++) {
		const struct io_uring_cqe *c = &r->cqes[head & r->cq_mask];
		if (c->user_data < nres)
			res[c->user_data] = c->res;
		got++;
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	return got;
}

/* Submits the k entries filled with ring_sqe() in one io_uring_enter() and
 * waits for their k answers: res[user_data] = the answer. */
static void ring_run(struct ring *r, unsigned k, int *res, unsigned nres)
{
	__atomic_store_n(r->sq_tail, *r->sq_tail + k, __ATOMIC_RELEASE);
	long rc;
	do
		rc = syscall(SYS_io_uring_enter, r->fd, k, k, IORING_ENTER_GETEVENTS, NULL, 0);
	while (rc < 0 && errno == EINTR);
	if (rc != (long)k)
		bench_fail("io_uring_enter submitted %ld of %u (%s)", rc, k,
			   rc < 0 ? strerror(errno) : "short");
	unsigned got = ring_reap(r, res, nres);
	while (got < k) {
		rc = syscall(SYS_io_uring_enter, r->fd, 0, k - got, IORING_ENTER_GETEVENTS,
			     NULL, 0);
		if (rc < 0 && errno != EINTR)
			bench_die("io_uring_enter(wait)");
		got += ring_reap(r, res, nres);
	}
}

/* One request, one answer: for the probes. */
static int ring_one(struct ring *r, struct sqe *filled)
{
	struct sqe *q = ring_sqe(r, 0);
	*q = *filled;
	q->user_data = 0;
	int res = 0;
	ring_run(r, 1, &res, 1);
	return res;
}

static uint32_t poll_mask(uint32_t ev)
{
	/* the kernel swaps the halves of poll32_events on big-endian machines */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (ev << 16) | (ev >> 16);
#else
	return ev;
#endif
}

static const char *errname(int e)
{
	switch (e) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOTSOCK: return "ENOTSOCK";
	case EINVAL: return "EINVAL";
	case EAGAIN: return "EAGAIN";
	case EBADF: return "EBADF";
	case ENOTTY: return "ENOTTY";
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	default: return "errno";
	}
}

/* Inode number -> descriptor index, for the sock_diag answers, which name
 * sockets by inode.  Open addressing; key 0 is empty. */
struct inomap {
	uint32_t *key;
	int *val;
	uint32_t mask;
};

static void map_init(struct inomap *m, int n)
{
	uint32_t size = 16;
	while (size < 2u * (uint32_t)n)
		size <<= 1;
	m->key = bench_alloc(size, sizeof *m->key);
	m->val = bench_alloc(size, sizeof *m->val);
	m->mask = size - 1;
}

static void map_put(struct inomap *m, uint32_t ino, int idx)
{
	uint32_t h = (ino * 2654435761u) & m->mask;
	while (m->key[h] && m->key[h] != ino)
		h = (h + 1) & m->mask;
	m->key[h] = ino;
	m->val[h] = idx;
}

static inline int map_get(const struct inomap *m, uint32_t ino)
{
	uint32_t h = (ino * 2654435761u) & m->mask;
	for (; m->key[h]; h = (h + 1) & m->mask)
		if (m->key[h] == ino)
			return m->val[h];
	return -1;
}

static void map_free(struct inomap *m)
{
	free(m->key);
	free(m->val);
}

enum kind { K_PIPE, K_TCP, K_UNIX, NK };
static const char *const kind_name[NK] = { "pipe", "tcp", "unix" };

/* What a source's answer is: an exact count, readiness only, nothing
 * usable, or a whole harvest (readiness and counts). */
enum role { R_COUNT, R_READY, R_NONE, R_WHOLE };

enum src {
	S_IOCTL, S_TEE, S_FDINFO, S_URING_INQ, S_URING_INQ64, S_DIAG_PORT, S_DIAG_ALL,
	S_UDIAG, S_POLL, S_EPOLL, S_URING_POLL, S_FLOOR, S_KEVENT,
	S_IOCTL_SHARED, S_URING_TEE, NSRC
};

#define KP (1u << K_PIPE)
#define KT (1u << K_TCP)
#define KU (1u << K_UNIX)

static const struct srcdef {
	const char *name;
	enum role role;
	unsigned kinds;
	int uring;      /* needs io_uring */
	int child;      /* timed in the child with a shared descriptor table */
	const char *note;
} srcs[NSRC] = {
	[S_IOCTL] = { "fionread", R_COUNT, KP | KT | KU, 0, 0,
		"one ioctl(FIONREAD) (= SIOCINQ) per descriptor: the baseline; libkq's way for "
		"pipes and AF_UNIX today (TCP: batched through io_uring)" },
	[S_TEE] = { "tee", R_COUNT, KP, 0, 0,
		"tee(2) into a sink pipe returns the bytes duplicated, consuming none; plus one "
		"splice to /dev/null per sink-full; exact while the sink has a free slot per "
		"buffer of the pipe" },
	[S_FDINFO] = { "fdinfo", R_NONE, KP, 0, 0,
		"openat+read+close of /proc/self/fdinfo/<fd>: pos, flags, mnt_id, ino; no count" },
	[S_URING_INQ] = { "uring-siocinq", R_COUNT, KT, 1, 0,
		"N IORING_OP_URING_CMD SOCKET_URING_OP_SIOCINQ in one io_uring_enter" },
	[S_URING_INQ64] = { "uring-siocinq-64", R_COUNT, KT, 1, 0,
		"the same in submissions of 64 (libkq's KQ_URING_MAX)" },
	[S_DIAG_PORT] = { "diag-port", R_COUNT, KT, 0, 0,
		"one NETLINK_SOCK_DIAG dump, ESTABLISHED, bytecode sport == listener port; "
		"idiag_rqueue by inode; exact for established sockets without FIN or urgent "
		"data (see count-sources-check)" },
	[S_DIAG_ALL] = { "diag-all", R_COUNT, KT, 0, 0,
		"the same dump unfiltered: every established TCP socket of the namespace "
		"(both ends of each pair here)" },
	[S_UDIAG] = { "udiag", R_COUNT, KU, 0, 0,
		"one unix_diag dump, UDIAG_SHOW_RQLEN, every established AF_UNIX socket of the "
		"namespace (both ends here); rqueue by inode" },
	[S_POLL] = { "poll", R_READY, KP | KT | KU, 0, 0, "poll(N, 0): readiness only" },
	[S_EPOLL] = { "epoll", R_READY, KP | KT | KU, 0, 0,
		"epoll_wait returning all N: readiness only" },
	[S_URING_POLL] = { "uring-poll", R_READY, KP | KT | KU, 1, 0,
		"N IORING_OP_POLL_ADD in one io_uring_enter: a readiness mask, no count" },
	[S_FLOOR] = { "floor", R_WHOLE, KP | KT | KU, 0, 0,
		"epoll_wait + one ioctl(FIONREAD) per returned fd (bench/ready-of-n's floor)" },
	[S_KEVENT] = { "kevent", R_WHOLE, KP | KT | KU, 0, 0,
		"libkq kevent() returning N EVFILT_READ records with data" },
	[S_IOCTL_SHARED] = { "fionread-shared", R_COUNT, KP, 1, 1,
		"the ioctl baseline again, in the uring-tee child (fd table shared with its io-wq "
		"worker)" },
	[S_URING_TEE] = { "uring-tee", R_COUNT, KP, 1, 1,
		"N IORING_OP_TEE in one io_uring_enter + a splice per sink; TEE always runs on an "
		"io-wq worker (one allowed); worker CPU counted" },
};

static const char *src_name(int s, enum kind k)
{
	if (s == S_IOCTL && k == K_TCP)
		return "siocinq";
	return srcs[s].name;
}

/* What lives for the whole run. */
struct env {
	struct ring ring;
	int ring_err;        /* 0: ring usable; -errno from io_uring_setup */
	int nl;              /* NETLINK_SOCK_DIAG */
	int sink_rd[SINK_MAX], sink_wr[SINK_MAX], nsink, slots;
	int devnull;
	int fdinfo_dir;      /* -1: no /proc */
	unsigned seq;
	/* 0: the dump works; -errno: its sources are skipped (no netlink
	 * socket, inet_diag/unix_diag not loadable, ...) */
	int diag_err[NK];
};

struct set {
	enum kind kind;
	int n;
	int *fd, *peer, *want;
	int *res;                /* io_uring answers by index */
	int *got;                /* dump answers by index, -1: not seen */
	char (*name)[12];        /* decimal fd numbers, for fdinfo */
	struct pollfd *pfd;
	int ep, kq;
	struct epoll_event *evs;
	struct kevent *kev;
	struct inomap map;
	int lport;               /* TCP: the listener's port */
	int listener;
	struct env *env;
	long mism[NSRC];         /* answers that differed from the truth */
	double calls[NSRC];      /* system calls in the last pass */
};

static void linger0(int fd)
{
	struct linger l = { 1, 0 };
	/* a reset instead of TIME_WAIT: 10,000 pairs per run would otherwise
	 * pin ports and timewait entries for a minute */
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l) != 0)
		bench_die("setsockopt(SO_LINGER)");
}

static int tcp_listener(int *port)
{
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		bench_die("socket(listener)");
	struct sockaddr_in a = { .sin_family = AF_INET };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1024) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) != 0)
		bench_die("bind/listen(127.0.0.1)");
	*port = ntohs(a.sin_port);
	return l;
}

static void tcp_pair(int l, int port, int *acc, int *con)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof a) != 0)
		bench_die("connect(127.0.0.1)");
	int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		bench_die("accept4");
	bench_nodelay(c);
	linger0(c);
	linger0(s);
	*acc = s;
	*con = c;
}

/* Loopback delivers in the sender's softirq, nearly always before write()
 * returns; waits for the stragglers so that the truth is the truth. */
static void wait_counts(const struct set *s)
{
	int64_t until = bench_now_ns() + 5000000000LL;
	for (int i = 0; i < s->n; i++) {
		int v = -1;
		while (ioctl(s->fd[i], FIONREAD, &v) != 0 || v != s->want[i]) {
			if (bench_now_ns() > until)
				bench_fail("%s %d: FIONREAD %d, want %d", kind_name[s->kind], i, v,
					   s->want[i]);
			struct pollfd p = { .fd = s->fd[i], .events = POLLIN };
			poll(&p, 1, 10);
		}
	}
}

static void set_create(struct set *s, enum kind kind, int n, struct env *e)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->n = n;
	s->env = e;
	s->listener = -1;
	s->fd = bench_alloc((size_t)n, sizeof *s->fd);
	s->peer = bench_alloc((size_t)n, sizeof *s->peer);
	s->want = bench_alloc((size_t)n, sizeof *s->want);
	s->res = bench_alloc((size_t)n, sizeof *s->res);
	s->got = bench_alloc((size_t)n, sizeof *s->got);
	s->name = bench_alloc((size_t)n, sizeof *s->name);
	char data[256];
	memset(data, 'x', sizeof data);
	if (kind == K_TCP)
		s->listener = tcp_listener(&s->lport);
	for (int i = 0; i < n; i++) {
		int sv[2];
		s->want[i] = (i % 200) + 1;
		switch (kind) {
		case K_PIPE:
			if (pipe2(sv, O_CLOEXEC | O_NONBLOCK) != 0)
				bench_die("pipe2");
			break;
		case K_TCP:
			tcp_pair(s->listener, s->lport, &sv[0], &sv[1]);
			break;
		default:
			if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
				bench_die("socketpair");
			break;
		}
		s->fd[i] = sv[0];
		s->peer[i] = sv[1];
		if (write(sv[1], data, (size_t)s->want[i]) != s->want[i])
			bench_die("write (setup)");
		snprintf(s->name[i], sizeof s->name[i], "%d", sv[0]);
	}
	wait_counts(s);

	if (kind != K_PIPE) {
		map_init(&s->map, n);
		for (int i = 0; i < n; i++) {
			struct stat st;
			if (fstat(s->fd[i], &st) != 0)
				bench_die("fstat(socket)");
			map_put(&s->map, (uint32_t)st.st_ino, i);
		}
	}

	s->pfd = bench_alloc((size_t)n, sizeof *s->pfd);
	s->evs = bench_alloc((size_t)n, sizeof *s->evs);
	s->kev = bench_alloc((size_t)n, sizeof *s->kev);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->kq = kqueue();
	if (s->ep < 0 || s->kq < 0)
		bench_die("epoll_create1/kqueue");
	struct kevent chg[256];
	int k = 0;
	for (int i = 0; i < n; i++) {
		s->pfd[i].fd = s->fd[i];
		s->pfd[i].events = POLLIN;
		struct epoll_event ee = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, s->fd[i], &ee) != 0)
			bench_die("epoll_ctl(ADD)");
		EV_SET(&chg[k], s->fd[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(uintptr_t)i);
		if (++k == (int)(sizeof chg / sizeof chg[0]) || i == n - 1) {
			if (kevent(s->kq, chg, k, NULL, 0, NULL) != 0)
				bench_die("kevent(EV_ADD)");
			k = 0;
		}
	}
}

static void set_destroy(struct set *s)
{
	close(s->kq);
	bench_raw_close(s->ep);
	for (int i = 0; i < s->n; i++) {
		close(s->fd[i]);
		close(s->peer[i]);
	}
	if (s->listener >= 0)
		close(s->listener);
	if (s->kind != K_PIPE)
		map_free(&s->map);
	free(s->fd);
	free(s->peer);
	free(s->want);
	free(s->res);
	free(s->got);
	free(s->name);
	free(s->pfd);
	free(s->evs);
	free(s->kev);
}

/* ---- sock_diag ---- */

static union {
	struct nlmsghdr h;
	char b[65536];
} nlbuf;

struct tcp_req {
	struct nlmsghdr nlh;
	struct inet_diag_req_v2 r;
	struct nlattr nla;
	struct inet_diag_bc_op op[2];
};

/* A dump request for TCP sockets in `states`, those with local port
 * `sport` only when sport > 0. */
static size_t tcp_req_make(struct tcp_req *q, uint32_t states, int sport)
{
	memset(q, 0, sizeof *q);
	q->nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q->r.sdiag_family = AF_INET;
	q->r.sdiag_protocol = IPPROTO_TCP;
	q->r.idiag_states = states;
	q->r.idiag_ext = 0;   /* no extensions: the smallest record */
	size_t len = offsetof(struct tcp_req, nla);
	if (sport > 0) {
		q->nla.nla_type = INET_DIAG_REQ_BYTECODE;
		q->nla.nla_len = (uint16_t)(sizeof q->nla + sizeof q->op);
		/* accept: jump to the end (8); reject: jump past it (8 + 4) */
		q->op[0].code = INET_DIAG_BC_S_EQ;
		q->op[0].yes = sizeof q->op;
		q->op[0].no = sizeof q->op + 4;
		q->op[1].no = (uint16_t)sport;
		len = sizeof *q;
	}
	q->nlh.nlmsg_len = (uint32_t)len;
	return len;
}

struct unix_req {
	struct nlmsghdr nlh;
	struct unix_diag_req r;
};

static size_t unix_req_make(struct unix_req *q)
{
	memset(q, 0, sizeof *q);
	q->nlh.nlmsg_len = sizeof *q;
	q->nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	q->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	q->r.sdiag_family = AF_UNIX;
	q->r.udiag_states = 1u << TCP_ESTABLISHED;
	q->r.udiag_show = UDIAG_SHOW_RQLEN;
	return sizeof *q;
}

/*
 * Sends the dump request and reads the whole answer: got[i] = the receive
 * queue of the socket whose inode map names i (state too when `state` is
 * not NULL).  Returns how many of ours were seen, or -errno when the
 * kernel refused the dump; *recvs = the recvfrom() calls it took.  Sent
 * and read by raw system call (libkq wraps the C library's sendto and
 * recvfrom).
 */
static int diag_dump(struct env *e, void *req, size_t len, int family, const struct inomap *m,
		     int *got, int *state, int *recvs)
{
	struct nlmsghdr *q = req;
	q->nlmsg_seq = ++e->seq;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	if (syscall(SYS_sendto, e->nl, req, len, 0, &sa, sizeof sa) != (long)len)
		return errno ? -errno : -EIO;
	int found = 0;
	*recvs = 0;
	for (;;) {
		long n = syscall(SYS_recvfrom, e->nl, nlbuf.b, sizeof nlbuf.b, 0, NULL, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		++*recvs;
		unsigned left = (unsigned)n;
		for (struct nlmsghdr *h = &nlbuf.h; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != e->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return found;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *er = NLMSG_DATA(h);
				return er->error < 0 ? er->error : -EIO;
			}
			if (family == AF_INET) {
				const struct inet_diag_msg *d = NLMSG_DATA(h);
				int i = map_get(m, d->idiag_inode);
				if (i >= 0) {
					got[i] = (int)d->idiag_rqueue;
					if (state)
						state[i] = d->idiag_state;
					found++;
				}
				continue;
			}
			const struct unix_diag_msg *d = NLMSG_DATA(h);
			int i = map_get(m, d->udiag_ino);
			if (i < 0)
				continue;
			int alen = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof *d);
			for (struct rtattr *a = (struct rtattr *)(d + 1); RTA_OK(a, alen);
			     a = RTA_NEXT(a, alen))
				if (a->rta_type == UNIX_DIAG_RQLEN) {
					const struct unix_diag_rqlen *rq = RTA_DATA(a);
					got[i] = (int)rq->udiag_rqueue;
					found++;
				}
		}
	}
}

/* ---- the passes: every source asked for all N once ---- */

static void pass_ioctl(struct set *s, int src)
{
	long bad = 0;
	for (int i = 0; i < s->n; i++) {
		int v = -1;
		if (ioctl(s->fd[i], FIONREAD, &v) != 0 || v != s->want[i])
			bad++;
	}
	s->mism[src] += bad;
	s->calls[src] = s->n;
}

static void pass_uring_inq(struct set *s, int src, unsigned chunk)
{
	struct ring *r = &s->env->ring;
	unsigned n = (unsigned)s->n, per = chunk && chunk < r->entries ? chunk : r->entries;
	long calls = 0, bad = 0;
	for (unsigned at = 0; at < n;) {
		unsigned k = n - at < per ? n - at : per;
		for (unsigned j = 0; j < k; j++) {
			struct sqe *q = ring_sqe(r, j);
			q->opcode = OP_URING_CMD;
			q->fd = s->fd[at + j];
			q->cmd_op = SOCK_CMD_SIOCINQ;
			q->user_data = at + j;
		}
		ring_run(r, k, s->res, n);
		calls++;
		at += k;
	}
	for (unsigned i = 0; i < n; i++)
		bad += s->res[i] != s->want[i];
	s->mism[src] += bad;
	s->calls[src] = (double)calls;
}

static void pass_uring_poll(struct set *s, int src)
{
	struct ring *r = &s->env->ring;
	unsigned n = (unsigned)s->n;
	long calls = 0, bad = 0;
	for (unsigned at = 0; at < n;) {
		unsigned k = n - at < r->entries ? n - at : r->entries;
		for (unsigned j = 0; j < k; j++) {
			struct sqe *q = ring_sqe(r, j);
			q->opcode = OP_POLL_ADD;
			q->fd = s->fd[at + j];
			q->op_flags = poll_mask(POLLIN);
			q->user_data = at + j;
		}
		ring_run(r, k, s->res, n);
		calls++;
		at += k;
	}
	for (unsigned i = 0; i < n; i++)
		bad += !(s->res[i] > 0 && (s->res[i] & POLLIN));
	s->mism[src] += bad;
	s->calls[src] = (double)calls;
}

/* Empties a sink into /dev/null; `bytes` is what the tees put there. */
static void sink_drain(struct env *e, int k, long bytes)
{
	long d = syscall(SYS_splice, e->sink_rd[k], NULL, e->devnull, NULL, (size_t)1 << 30,
			 SPLICE_F_NONBLOCK);
	if (d != bytes)
		bench_fail("splice(sink -> /dev/null) moved %ld of %ld bytes (%s)", d, bytes,
			   d < 0 ? strerror(errno) : "short");
}

static void pass_tee(struct set *s, int src)
{
	struct env *e = s->env;
	long bad = 0, calls = 0, pend = 0;
	int used = 0;
	for (int i = 0; i < s->n; i++) {
		if (used == e->slots) {
			sink_drain(e, 0, pend);
			calls++;
			pend = 0;
			used = 0;
		}
		ssize_t r = tee(s->fd[i], e->sink_wr[0], (size_t)1 << 20, SPLICE_F_NONBLOCK);
		calls++;
		if (r != s->want[i])
			bad++;
		if (r > 0) {
			pend += r;
			used++;
		}
	}
	if (pend) {
		sink_drain(e, 0, pend);
		calls++;
	}
	s->mism[src] += bad;
	s->calls[src] = (double)calls;
}

static void pass_uring_tee(struct set *s, int src)
{
	struct env *e = s->env;
	struct ring *r = &e->ring;
	unsigned n = (unsigned)s->n, group = (unsigned)(e->nsink * e->slots);
	if (group > r->entries)
		group = r->entries;
	long bad = 0, calls = 0;
	for (unsigned at = 0; at < n;) {
		unsigned k = n - at < group ? n - at : group;
		for (unsigned j = 0; j < k; j++) {
			struct sqe *q = ring_sqe(r, j);
			q->opcode = OP_TEE;
			q->fd = e->sink_wr[j / (unsigned)e->slots];
			q->splice_fd_in = s->fd[at + j];
			q->len = 1u << 20;
			q->op_flags = SPLICE_F_NONBLOCK;
			q->user_data = at + j;
		}
		ring_run(r, k, s->res, n);
		calls++;
		long pend[SINK_MAX] = { 0 };
		for (unsigned j = 0; j < k; j++) {
			int v = s->res[at + j];
			bad += v != s->want[at + j];
			if (v > 0)
				pend[j / (unsigned)e->slots] += v;
		}
		for (int sk = 0; sk < e->nsink; sk++)
			if (pend[sk]) {
				sink_drain(e, sk, pend[sk]);
				calls++;
			}
		at += k;
	}
	s->mism[src] += bad;
	s->calls[src] = (double)calls;
}

static void pass_fdinfo(struct set *s, int src)
{
	char buf[512];
	long bad = 0;
	for (int i = 0; i < s->n; i++) {
		long f = syscall(SYS_openat, s->env->fdinfo_dir, s->name[i], O_RDONLY | O_CLOEXEC);
		long r = f < 0 ? -1 : syscall(SYS_read, (int)f, buf, sizeof buf);
		if (f >= 0)
			syscall(SYS_close, (int)f);
		/* nothing to compare: a failure to read is what counts here */
		if (r < 4 || memcmp(buf, "pos:", 4) != 0)
			bad++;
	}
	s->mism[src] += bad;
	s->calls[src] = 3.0 * s->n;
}

static void pass_diag(struct set *s, int src)
{
	struct env *e = s->env;
	for (int i = 0; i < s->n; i++)
		s->got[i] = -1;
	int found, recvs;
	if (src == S_UDIAG) {
		struct unix_req q;
		size_t len = unix_req_make(&q);
		found = diag_dump(e, &q, len, AF_UNIX, &s->map, s->got, NULL, &recvs);
	} else {
		struct tcp_req q;
		size_t len = tcp_req_make(&q, 1u << TCP_ESTABLISHED,
					  src == S_DIAG_PORT ? s->lport : 0);
		found = diag_dump(e, &q, len, AF_INET, &s->map, s->got, NULL, &recvs);
	}
	if (found < 0) {
		errno = -found;
		bench_die("sock_diag dump (it worked at setup)");
	}
	long bad = s->n - found;
	for (int i = 0; i < s->n; i++)
		bad += s->got[i] != s->want[i];
	s->mism[src] += bad;
	s->calls[src] = 1.0 + recvs;
}

static void pass_poll(struct set *s, int src)
{
	int r = poll(s->pfd, (nfds_t)s->n, 0);
	long bad = r != s->n;
	for (int i = 0; i < s->n; i++)
		bad += !(s->pfd[i].revents & POLLIN);
	s->mism[src] += bad;
	s->calls[src] = 1;
}

static void pass_epoll(struct set *s, int src, int count)
{
	int r = epoll_wait(s->ep, s->evs, s->n, 0);
	long bad = r != s->n;
	for (int j = 0; j < r; j++) {
		uint32_t i = s->evs[j].data.u32;
		if (i >= (uint32_t)s->n) {
			bad++;
			continue;
		}
		if (count) {
			int v = -1;
			if (ioctl(s->fd[i], FIONREAD, &v) != 0 || v != s->want[i])
				bad++;
		}
	}
	s->mism[src] += bad;
	s->calls[src] = 1.0 + (count ? r : 0);
}

static void pass_kevent(struct set *s, int src)
{
	static const struct timespec zero = { 0, 0 };
	int r = kevent(s->kq, NULL, 0, s->kev, s->n, &zero);
	long bad = r != s->n;
	for (int j = 0; j < r; j++) {
		uintptr_t i = (uintptr_t)s->kev[j].udata;
		if (i >= (uintptr_t)s->n || s->kev[j].data != s->want[i])
			bad++;
	}
	s->mism[src] += bad;
	s->calls[src] = 1;
}

static void do_pass(struct set *s, int src)
{
	switch (src) {
	case S_IOCTL:
	case S_IOCTL_SHARED:
		pass_ioctl(s, src);
		break;
	case S_TEE:
		pass_tee(s, src);
		break;
	case S_URING_TEE:
		pass_uring_tee(s, src);
		break;
	case S_FDINFO:
		pass_fdinfo(s, src);
		break;
	case S_URING_INQ:
		pass_uring_inq(s, src, 0);
		break;
	case S_URING_INQ64:
		pass_uring_inq(s, src, CHUNK_LIBKQ);
		break;
	case S_DIAG_PORT:
	case S_DIAG_ALL:
	case S_UDIAG:
		pass_diag(s, src);
		break;
	case S_POLL:
		pass_poll(s, src);
		break;
	case S_EPOLL:
	case S_FLOOR:
		pass_epoll(s, src, src == S_FLOOR);
		break;
	case S_URING_POLL:
		pass_uring_poll(s, src);
		break;
	default:
		pass_kevent(s, src);
		break;
	}
}

/* ---- timing ---- */

struct cfg {
	long blocks;
	double target_ns;
};

struct stats {
	int ran[NSRC];
	double ns[NSRC], iqr[NSRC];
	long mism[NSRC];
	double calls[NSRC];
};

static double time_passes(struct set *s, int src, long reps)
{
	int64_t t0 = bench_clock_ns();
	for (long r = 0; r < reps; r++)
		do_pass(s, src);
	return (double)(bench_clock_ns() - t0) / ((double)reps * s->n);
}

/* Times the k sources in list[] side by side into st. */
static void run_blocks(struct set *s, const int *list, int k, const struct cfg *cf,
		       struct stats *st)
{
	long reps[NSRC];
	for (int j = 0; j < k; j++) {
		int c = list[j];
		do_pass(s, c);   /* warm: first-use costs stay out of the figures */
		double est = time_passes(s, c, 1) * s->n;
		double want = cf->target_ns / (est > 1.0 ? est : 1.0);
		reps[c] = want < 1 ? 1 : want > 1000000 ? 1000000 : (long)want;
	}
	size_t nb = (size_t)cf->blocks;
	double *t[NSRC] = { 0 };
	for (int j = 0; j < k; j++)
		t[list[j]] = bench_alloc(nb, sizeof(double));
	for (size_t b = 0; b < nb; b++)
		for (int j = 0; j < k; j++) {
			int c = list[bench_turn((long)b, j, k)];
			t[c][b] = time_passes(s, c, reps[c]);
		}
	for (int j = 0; j < k; j++) {
		int c = list[j];
		st->ran[c] = 1;
		st->ns[c] = bench_median(t[c], nb);
		st->iqr[c] = bench_iqr_pct(t[c], nb);
		st->mism[c] = s->mism[c];
		st->calls[c] = s->calls[c];
		free(t[c]);
	}
}

static int thread_count(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* ---- probes: what each candidate answers, once ---- */

static void probe_line(enum kind k, const char *source, int works, const char *answer,
		       const char *note)
{
	printf("count-sources kind=%s source=%s N=na ns_per_fd=na works=%s answer=%s note=\"%s\"\n",
	       kind_name[k], source, works ? "yes" : "no", answer, note);
}

static void res_text(char *buf, size_t len, int res)
{
	if (res < 0)
		snprintf(buf, len, "%d(%s)", res, errname(-res));
	else
		snprintf(buf, len, "%d", res);
}

static int fionread(int fd)
{
	int v = -1;
	if (ioctl(fd, FIONREAD, &v) != 0)
		return -errno;
	return v;
}

static void probe_pipes(const struct set *s, struct env *e)
{
	char ans[160], note[320];
	int fd = s->fd[0], want = s->want[0];

	struct stat st;
	if (fstat(fd, &st) != 0)
		bench_die("fstat(pipe)");
	snprintf(ans, sizeof ans, "st_size=%lld", (long long)st.st_size);
	snprintf(note, sizeof note, "fstat of a pipe holding %d bytes (IORING_OP_STATX reads "
		 "the same inode)", want);
	probe_line(K_PIPE, "fstat", st.st_size == want, ans, note);

	char buf[512];
	long f = syscall(SYS_openat, e->fdinfo_dir, s->name[0], O_RDONLY | O_CLOEXEC);
	long r = f < 0 ? -1 : syscall(SYS_read, (int)f, buf, sizeof buf - 1);
	if (f >= 0)
		syscall(SYS_close, (int)f);
	if (r < 0) {
		probe_line(K_PIPE, "fdinfo", 0, "unreadable", "/proc/self/fdinfo could not be read");
		r = 0;
	}
	buf[r] = 0;
	/* the field names, comma-separated; a count would need a field for it */
	size_t o = 0;
	for (char *line = strtok(buf, "\n"); line && o < sizeof ans - 1; line = strtok(NULL, "\n")) {
		char *colon = strchr(line, ':');
		if (colon)
			*colon = 0;
		o += (size_t)snprintf(ans + o, sizeof ans - o, "%s%s", o ? "," : "", line);
	}
	if (o)
		probe_line(K_PIPE, "fdinfo", 0, ans, "the fields of /proc/self/fdinfo/<pipe>: a byte "
			   "count would be one of them");

	ssize_t t = tee(fd, e->sink_wr[0], (size_t)1 << 20, SPLICE_F_NONBLOCK);
	int after = fionread(fd);
	if (t > 0)
		sink_drain(e, 0, (long)t);
	snprintf(ans, sizeof ans, "%zd,fionread_after=%d", t, after);
	snprintf(note, sizeof note, "tee(pipe holding %d, sink, 1 MiB, NONBLOCK): the count, "
		 "pipe unchanged", want);
	probe_line(K_PIPE, "tee", t == want && after == want, ans, note);

	if (e->ring_err) {
		res_text(ans, sizeof ans, e->ring_err);
		probe_line(K_PIPE, "io_uring_setup", 0, ans, "no io_uring: its sources are skipped");
		return;
	}
	struct sqe q;
	memset(&q, 0, sizeof q);
	q.opcode = OP_URING_CMD;
	q.fd = fd;
	q.cmd_op = SOCK_CMD_SIOCINQ;
	res_text(ans, sizeof ans, ring_one(&e->ring, &q));
	probe_line(K_PIPE, "uring-cmd", 0, ans, "IORING_OP_URING_CMD SOCKET_URING_OP_SIOCINQ "
		   "on a pipe: pipes have no ->uring_cmd");

	memset(&q, 0, sizeof q);
	q.opcode = OP_RECV;
	q.fd = fd;
	q.addr = (uint64_t)(uintptr_t)buf;
	q.len = sizeof buf;
	q.op_flags = MSG_PEEK | MSG_TRUNC;
	res_text(ans, sizeof ans, ring_one(&e->ring, &q));
	probe_line(K_PIPE, "uring-recv-peek", 0, ans, "IORING_OP_RECV MSG_PEEK on a pipe: "
		   "sockets only");

	memset(&q, 0, sizeof q);
	q.opcode = OP_POLL_ADD;
	q.fd = fd;
	q.op_flags = poll_mask(POLLIN | POLLRDNORM);
	int pm = ring_one(&e->ring, &q);
	snprintf(ans, sizeof ans, "%#x", (unsigned)pm);
	probe_line(K_PIPE, "uring-poll-add", 0, ans, "IORING_OP_POLL_ADD: the ready mask, no count "
		   "(timed as uring-poll)");

	/* a scratch pipe: the read takes what it counts */
	int sp[2];
	if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) != 0 || write(sp[1], "scratch", 7) != 7)
		bench_die("pipe2/write (scratch)");
	memset(&q, 0, sizeof q);
	q.opcode = OP_READ;
	q.fd = sp[0];
	q.addr = (uint64_t)(uintptr_t)buf;
	q.len = sizeof buf;
	q.off = (uint64_t)-1;
	int rd = ring_one(&e->ring, &q);
	snprintf(ans, sizeof ans, "%d,fionread_after=%d", rd, fionread(sp[0]));
	probe_line(K_PIPE, "uring-read", 0, ans, "IORING_OP_READ on a pipe holding 7: the count, "
		   "but the bytes are gone (no peek for pipes)");
	close(sp[0]);
	close(sp[1]);
}

static void probe_sockets(const struct set *s, struct env *e)
{
	char ans[64];
	if (e->ring_err) {
		res_text(ans, sizeof ans, e->ring_err);
		probe_line(s->kind, "io_uring_setup", 0, ans, "no io_uring: its sources are skipped");
		return;
	}
	struct sqe q;
	memset(&q, 0, sizeof q);
	q.opcode = OP_URING_CMD;
	q.fd = s->fd[0];
	q.cmd_op = SOCK_CMD_SIOCINQ;
	int r = ring_one(&e->ring, &q);
	res_text(ans, sizeof ans, r);
	if (s->kind == K_UNIX)
		probe_line(K_UNIX, "uring-siocinq", r == s->want[0], ans,
			   "SOCKET_URING_OP_SIOCINQ on AF_UNIX: unix_proto has no ->ioctl");
	else
		probe_line(K_TCP, "uring-siocinq-probe", r == s->want[0], ans,
			   "SOCKET_URING_OP_SIOCINQ on an established TCP socket (timed below)");
}

/*
 * Where sock_diag's idiag_rqueue (rcv_nxt - copied_seq) and SIOCINQ
 * (tcp_inq: less a received FIN, only up to the urgent mark) part ways.
 */
static void tcp_check(struct env *e)
{
	static const char *const cases[] = { "established", "fin-received", "urgent-pending" };
	enum { NC = 3 };
	int port, l = tcp_listener(&port), a[NC], c[NC];
	char data[CHECK_BYTES];
	memset(data, 'y', sizeof data);
	for (int k = 0; k < NC; k++) {
		tcp_pair(l, port, &a[k], &c[k]);
		if (write(c[k], data, sizeof data) != (ssize_t)sizeof data)
			bench_die("write (check)");
	}
	if (shutdown(c[1], SHUT_WR) != 0 || send(c[2], "!", 1, MSG_OOB) != 1)
		bench_die("shutdown/send(MSG_OOB)");
	/* wait for each socket to show what its case needs */
	short need[NC] = { POLLIN, POLLRDHUP, POLLPRI };
	for (int k = 0; k < NC; k++) {
		struct pollfd p = { .fd = a[k], .events = need[k] };
		if (poll(&p, 1, 5000) != 1)
			bench_fail("check %s: the socket never showed it", cases[k]);
	}
	struct inomap m;
	map_init(&m, NC);
	for (int k = 0; k < NC; k++) {
		struct stat st;
		if (fstat(a[k], &st) != 0)
			bench_die("fstat(check)");
		map_put(&m, (uint32_t)st.st_ino, k);
	}
	int got[NC] = { -1, -1, -1 }, state[NC] = { -1, -1, -1 }, recvs;
	struct tcp_req q;
	size_t len = tcp_req_make(&q, ~0u, port);
	if (diag_dump(e, &q, len, AF_INET, &m, got, state, &recvs) < 0)
		bench_die("sock_diag dump (check)");
	for (int k = 0; k < NC; k++) {
		int inq = fionread(a[k]), uq = -1;
		char ub[32] = "na";
		if (!e->ring_err) {
			struct sqe u;
			memset(&u, 0, sizeof u);
			u.opcode = OP_URING_CMD;
			u.fd = a[k];
			u.cmd_op = SOCK_CMD_SIOCINQ;
			uq = ring_one(&e->ring, &u);
			res_text(ub, sizeof ub, uq);
		}
		printf("count-sources-check kind=tcp case=%s tcp_state=%d written=%d siocinq=%d "
		       "uring_siocinq=%s diag_rqueue=%d equal=%s\n",
		       cases[k], state[k], CHECK_BYTES + (k == 2), inq, ub, got[k],
		       got[k] == inq ? "yes" : "no");
	}
	map_free(&m);
	for (int k = 0; k < NC; k++) {
		close(a[k]);
		close(c[k]);
	}
	close(l);
}

/* ---- uring-tee in a child ---- */

struct child_report {
	struct stats st;
	int ok;
	int threads;
	int limit_err;   /* 0, or -errno: the worker limit was refused */
};

static void run_tee_child(struct set *s, const struct cfg *cf, struct stats *st)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		bench_die("pipe2(report)");
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		bench_die("fork");
	if (pid == 0) {
		struct child_report rep;
		memset(&rep, 0, sizeof rep);
		struct env *e = s->env;
		/* the parent's ring stays the parent's: its io-wq would be ours */
		unsigned want = (unsigned)(e->nsink * e->slots);
		if (ring_init(&e->ring, want < (unsigned)s->n ? want : (unsigned)s->n) == 0) {
			unsigned max[2] = { 1, 1 };
			if (syscall(SYS_io_uring_register, e->ring.fd, REGISTER_IOWQ_MAX_WORKERS, max,
				    2) < 0)
				rep.limit_err = -errno;
			memset(s->mism, 0, sizeof s->mism);
			static const int list[] = { S_IOCTL_SHARED, S_URING_TEE };
			run_blocks(s, list, 2, cf, &rep.st);
			rep.ok = 1;
			rep.threads = thread_count();
		}
		ssize_t w = write(p[1], &rep, sizeof rep);
		_exit(w == (ssize_t)sizeof rep ? 0 : 1);
	}
	close(p[1]);
	struct child_report rep;
	ssize_t r = read(p[0], &rep, sizeof rep);
	close(p[0]);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    r != (ssize_t)sizeof rep)
		bench_fail("the uring-tee child failed (status %#x)", status);
	if (!rep.ok) {
		probe_line(K_PIPE, "uring-tee", 0, "io_uring_setup-failed-in-child", "");
		return;
	}
	printf("# uring-tee child: %d threads after timing (io-wq worker(s) included); "
	       "worker limit: %s\n", rep.threads, rep.limit_err ? strerror(-rep.limit_err) : "1");
	for (int c = S_IOCTL_SHARED; c <= S_URING_TEE; c++) {
		st->ran[c] = rep.st.ran[c];
		st->ns[c] = rep.st.ns[c];
		st->iqr[c] = rep.st.iqr[c];
		st->mism[c] = rep.st.mism[c];
		st->calls[c] = rep.st.calls[c];
	}
}

/* ---- one point ---- */

/* Each source's figures over the N of one kind.  The cost per descriptor
 * is not constant in N (it rises at 9,000, presumably as the kernel's
 * objects outgrow the caches), so a straight-line fit would invent a negative
 * fixed cost; the cost of each added descriptor between neighbouring N is
 * reported instead.  A dump's fixed cost shows in its figure at the
 * smallest N. */
struct series {
	int np;
	double n[MAX_NS], pass_ns[MAX_NS];
};
static struct series series[NSRC];

static void marginal_lines(enum kind k)
{
	for (int c = 0; c < NSRC; c++) {
		struct series *v = &series[c];
		for (int i = 1; i < v->np; i++)
			if (v->n[i] > v->n[i - 1])
				printf("count-sources-marginal kind=%s source=%s from_N=%.0f to_N=%.0f "
				       "per_added_fd_ns=%.1f\n", kind_name[k], src_name(c, k),
				       v->n[i - 1], v->n[i],
				       (v->pass_ns[i] - v->pass_ns[i - 1]) / (v->n[i] - v->n[i - 1]));
		v->np = 0;
	}
	fflush(stdout);
}

struct best {
	int src;
	double ns;
	int n;
};

static void report_point(enum kind k, int n, const struct stats *st, struct best *best)
{
	double base = st->ns[S_IOCTL];
	for (int c = 0; c < NSRC; c++) {
		if (!st->ran[c])
			continue;
		const struct srcdef *d = &srcs[c];
		/* the shared-table figures compare with their own baseline */
		double ref = d->child ? st->ns[S_IOCTL_SHARED] : base;
		int exact = d->role == R_COUNT || d->role == R_WHOLE ? st->mism[c] == 0 : -1;
		int works = d->role == R_NONE || d->role == R_READY ? 0 : exact == 1;
		if (series[c].np < MAX_NS) {
			series[c].n[series[c].np] = n;
			series[c].pass_ns[series[c].np++] = st->ns[c] * n;
		}
		printf("count-sources kind=%s source=%s N=%d ns_per_fd=%.1f iqr_pct=%.1f "
		       "vs_ioctl=%.3f syscalls_per_pass=%.0f works=%s exact=%s mismatches=%ld "
		       "fdtable=%s note=\"%s\"\n",
		       kind_name[k], src_name(c, k), n, st->ns[c], st->iqr[c], st->ns[c] / ref,
		       st->calls[c], works ? "yes" : "no",
		       exact < 0 ? "na" : exact ? "yes" : "no", st->mism[c],
		       d->child ? "shared" : "private", d->note);
	}
	/* The cheapest exact count; a child figure enters by its ratio to the
	 * child's baseline, scaled to this process's baseline. */
	int cheap = S_IOCTL;
	double cheap_ns = base;
	for (int c = 0; c < NSRC; c++) {
		if (!st->ran[c] || srcs[c].role != R_COUNT || st->mism[c] || c == S_IOCTL_SHARED)
			continue;
		double v = srcs[c].child ? st->ns[c] / st->ns[S_IOCTL_SHARED] * base : st->ns[c];
		if (v < cheap_ns) {
			cheap = c;
			cheap_ns = v;
		}
	}
	double bound = st->ns[S_EPOLL] + cheap_ns;
	double pl = st->ns[S_POLL];
	printf("count-sources-summary kind=%s N=%d cheapest_exact=%s cheapest_exact_ns=%.1f "
	       "poll_ns=%.1f epoll_ns=%.1f floor_ns=%.1f kevent_ns=%.1f bound_ns=%.1f "
	       "bound_vs_poll=%.2f floor_vs_poll=%.2f kevent_vs_poll=%.2f kevent_vs_floor=%.3f "
	       "kevent_vs_bound=%.3f\n",
	       kind_name[k], n, src_name(cheap, k), cheap_ns, pl, st->ns[S_EPOLL],
	       st->ns[S_FLOOR], st->ns[S_KEVENT], bound, bound / pl, st->ns[S_FLOOR] / pl,
	       st->ns[S_KEVENT] / pl, st->ns[S_KEVENT] / st->ns[S_FLOOR],
	       st->ns[S_KEVENT] / bound);
	fflush(stdout);
	if (n >= best->n) {
		best->src = cheap;
		best->ns = cheap_ns;
		best->n = n;
	}
}

/* A dump walks every socket of the network namespace, other programs'
 * too (TIME_WAIT entries included): say how many there were. */
static void sockstat(enum kind k)
{
	FILE *f = fopen("/proc/net/sockstat", "r");
	char line[256];
	const char *want = k == K_TCP ? "TCP:" : "sockets:";
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, want, strlen(want)) == 0) {
			line[strcspn(line, "\n")] = 0;
			printf("# /proc/net/sockstat %s%s\n", line,
			       k == K_UNIX ? " (all families; unix_diag walks the AF_UNIX ones)" : "");
			break;
		}
	if (f)
		fclose(f);
}

/* Whether this kernel answers the dump a kind's diag sources make: one
 * that matches nothing of ours. */
static int diag_probe(struct env *e, enum kind k)
{
	if (e->nl < 0)
		return e->nl;
	struct inomap m;
	map_init(&m, 1);
	int got = -1, recvs;
	int r;
	if (k == K_TCP) {
		struct tcp_req q;
		size_t len = tcp_req_make(&q, 1u << TCP_ESTABLISHED, 0);
		r = diag_dump(e, &q, len, AF_INET, &m, &got, NULL, &recvs);
	} else {
		struct unix_req q;
		size_t len = unix_req_make(&q);
		r = diag_dump(e, &q, len, AF_UNIX, &m, &got, NULL, &recvs);
	}
	map_free(&m);
	return r < 0 ? r : 0;
}

static void point(enum kind k, int n, struct env *e, const struct cfg *cf, int first,
		  struct best *best)
{
	struct set s;
	set_create(&s, k, n, e);
	if (first) {
		if (k == K_PIPE)
			probe_pipes(&s, e);
		else
			probe_sockets(&s, e);
		if (k == K_TCP && !e->diag_err[K_TCP])
			tcp_check(e);
	}
	int list[NSRC], nl = 0;
	for (int c = 0; c < NSRC; c++)
		if ((srcs[c].kinds & (1u << k)) && !srcs[c].child && !(srcs[c].uring && e->ring_err) &&
		    !((c == S_DIAG_PORT || c == S_DIAG_ALL || c == S_UDIAG) && e->diag_err[k]) &&
		    !(c == S_FDINFO && e->fdinfo_dir < 0))
			list[nl++] = c;
	printf("# kind=%s N=%d: %d sources, threads=%d (1: the descriptor table is private)\n",
	       kind_name[k], n, nl, thread_count());
	if (k != K_PIPE)
		sockstat(k);
	fflush(stdout);
	struct stats st;
	memset(&st, 0, sizeof st);
	run_blocks(&s, list, nl, cf, &st);
	if (st.mism[S_IOCTL])
		bench_fail("kind=%s N=%d: FIONREAD disagreed with the bytes written %ld times",
			   kind_name[k], n, st.mism[S_IOCTL]);
	if (k == K_PIPE && !e->ring_err)
		run_tee_child(&s, cf, &st);
	report_point(k, n, &st, best);
	set_destroy(&s);
}

/* ---- options, setup, main ---- */

static long opt_n[MAX_NS];
static int opt_nn;
static unsigned opt_kinds;
static long opt_target_us;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--n=", 4) == 0) {
		opt_nn = bench_parse_list("--n", a + 4, 1, opt_n, MAX_NS);
	} else if (strncmp(a, "--kinds=", 8) == 0) {
		char buf[64];
		snprintf(buf, sizeof buf, "%s", a + 8);
		for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
			int k = 0;
			while (k < NK && strcmp(t, kind_name[k]) != 0)
				k++;
			if (k == NK) {
				fprintf(stderr, "unknown kind '%s'\n", t);
				exit(2);
			}
			opt_kinds |= 1u << k;
		}
	} else if (strncmp(a, "--target-us=", 12) == 0) {
		opt_target_us = bench_parse_long("--target-us", a + 12);
	} else {
		return 0;
	}
	return 1;
}

/* Sinks for tee: made before the N pipes so that the per-user pipe
 * allowance still lets them grow (a 1 MiB pipe holds 256 buffers). */
static void make_sinks(struct env *e, int maxn)
{
	int cap = 0;
	long maxsz = 1 << 20;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");
	if (f) {
		if (fscanf(f, "%ld", &maxsz) != 1)
			maxsz = 1 << 20;
		fclose(f);
	}
	e->nsink = 0;
	do {
		int p[2];
		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
			bench_die("pipe2(sink)");
		int sz = fcntl(p[1], F_SETPIPE_SZ, (int)maxsz);
		if (sz < 0)
			sz = fcntl(p[1], F_GETPIPE_SZ);
		if (sz <= 0)
			bench_die("F_GETPIPE_SZ");
		if (!cap)
			cap = sz;
		e->sink_rd[e->nsink] = p[0];
		e->sink_wr[e->nsink] = p[1];
		e->nsink++;
	} while (e->nsink < SINK_MAX && e->nsink * (cap / 4096) < maxn);
	e->slots = cap / 4096;
}

int main(int argc, char **argv)
{
	static const long full_n[] = { 100, 1000, 9000 };
	static const long quick_n[] = { 100, 1000 };
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra,
			 "[--n=N,N,...] [--kinds=pipe,tcp,unix] [--target-us=T]");
	struct cfg cf = {
		.blocks = o.blocks ? o.blocks : o.quick ? 5 : 31,
		.target_ns = 1000.0 * (opt_target_us ? opt_target_us : o.quick ? 300 : 3000),
	};
	unsigned kinds = opt_kinds ? opt_kinds : (1u << NK) - 1;
	const long *ns = opt_nn ? opt_n : o.quick ? quick_n : full_n;
	int nn = opt_nn ? opt_nn : o.quick ? 2 : 3;

	long limit = bench_raise_nofile();
	long maxn = 0;
	for (int i = 0; i < nn; i++)
		maxn = ns[i] > maxn ? ns[i] : maxn;

	struct env e;
	memset(&e, 0, sizeof e);
	make_sinks(&e, (int)maxn);
	int largest = (int)((limit - FD_MARGIN - 2 * e.nsink) / 2);
	if (maxn > largest)
		maxn = largest;
	e.ring_err = ring_init(&e.ring, (unsigned)maxn);
	e.nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (e.nl < 0)
		e.nl = -errno;
	e.diag_err[K_TCP] = diag_probe(&e, K_TCP);
	e.diag_err[K_UNIX] = diag_probe(&e, K_UNIX);
	e.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	e.fdinfo_dir = open("/proc/self/fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e.devnull < 0)
		bench_die("open(/dev/null)");

	char cpu[256];
	bench_cpu_model(cpu, sizeof cpu);
	bench_header("count-sources", &o);
	long ehash = -1;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_ehash_entries", "r");
	if (f) {
		if (fscanf(f, "%ld", &ehash) != 1)
			ehash = -1;
		fclose(f);
	}
	/* a TCP dump walks every bucket of this table, empty or not */
	printf("# tcp_ehash_entries=%ld\n", ehash);
	for (int k = K_TCP; k <= K_UNIX; k++)
		if (e.diag_err[k] && (kinds & (1u << k))) {
			char ans[64];
			res_text(ans, sizeof ans, e.diag_err[k]);
			probe_line((enum kind)k, k == K_TCP ? "diag" : "udiag", 0, ans,
				   "NETLINK_SOCK_DIAG refused: the dump sources are skipped");
		}
	printf("# N descriptors of each kind, the asked end of i holding (i %% 200) + 1 bytes; "
	       "fd limit %ld: N <= %d; median of %ld blocks, ~%.0f us of CPU per source per "
	       "block, order turning; tee sinks: %d x %d buffers; io_uring: %s (%u entries)\n",
	       limit, largest, cf.blocks, cf.target_ns / 1000.0, e.nsink, e.slots,
	       e.ring_err ? strerror(-e.ring_err) : "yes", e.ring_err ? 0 : e.ring.entries);
	fflush(stdout);

	struct best best[NK];
	memset(best, 0, sizeof best);
	for (int k = 0; k < NK; k++) {
		if (!(kinds & (1u << k)))
			continue;
		int done = 0;
		for (int i = 0; i < nn; i++) {
			int n = (int)(ns[i] > largest ? largest : ns[i]);
			if (ns[i] > largest)
				printf("# N=%ld is over the descriptor limit: N=%d\n", ns[i], n);
			point((enum kind)k, n, &e, &cf, !done, &best[k]);
			done++;
		}
		marginal_lines((enum kind)k);
	}

	printf("count-sources-final cpu=\"%s\"", cpu);
	for (int k = 0; k < NK; k++)
		if (kinds & (1u << k))
			printf(" %s=%s %s_ns_per_fd=%.1f %s_N=%d", kind_name[k],
			       src_name(best[k].src, (enum kind)k), kind_name[k], best[k].ns,
			       kind_name[k], best[k].n);
	printf("\n");
	ring_free(&e.ring);
	return 0;
}
