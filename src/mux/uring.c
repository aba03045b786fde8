/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Asking many sockets for their counts in one system call.
 *
 * A harvest that finds several TCP sockets ready needs each one's queued
 * byte count (FIONREAD) for a READ knote's data, and its send buffer size
 * and unsent bytes (SO_SNDBUF, SIOCOUTQ) for a WRITE knote's.  Linux 6.7
 * and later answer SIOCINQ, SIOCOUTQ and SOL_SOCKET getsockopt as io_uring
 * commands (IORING_OP_URING_CMD, SOCKET_URING_OP_*), so the counts of a
 * harvest can come from one io_uring_enter() instead of one call each;
 * bench/uring-queries measures where that pays.  Each kqueue gets its own small ring on first use, used
 * under the kqueue's lock only.  Where io_uring is missing, forbidden
 * (kernel.io_uring_disabled, seccomp) or too old for the command, the first
 * refusal turns the batching off for the process and every count comes from
 * its ioctl, as before.  A ring that cannot be made for want of resources
 * (EMFILE at the descriptor limit, ENFILE, ENOMEM, EAGAIN) is no refusal:
 * that call's counts come from ioctl, and no kqueue tries again for
 * 100 ms (RETRY_NS), since a failed io_uring_setup() costs some 30 us (the
 * ring is built before its descriptor is allocated).  LIBKQ_NO_IO_URING=1 in the
 * environment turns the batching off from the start, except in set-user-ID,
 * set-group-ID and capability programs (AT_SECURE), which ignore it as they
 * ignore the rest of libkq's environment.
 *
 * The command runs inside the submitting call (a socket's SIOCINQ never
 * waits), so all answers are in the completion ring when io_uring_enter()
 * returns; the call is made without asking to wait, so that a ring that
 * somehow is not ours (its descriptor closed and the number reused behind
 * our back) cannot block the caller.  Anything unexpected retires the ring.
 */
#include "kq.h"
#include "sys.h"

#include <linux/io_uring.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425   /* the same number on every architecture */
#define SYS_io_uring_enter 426
#endif
#ifndef SOCKET_URING_OP_SIOCINQ
#define SOCKET_URING_OP_SIOCINQ 0   /* Linux 6.7 uapi; older headers lack it */
#define SOCKET_URING_OP_SIOCOUTQ 1
#define SOCKET_URING_OP_GETSOCKOPT 2
#endif

#define RING_ENTRIES KQ_URING_MAX

struct kq_uring {
	int fd;
	void *map;
	size_t map_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
	_Atomic uint32_t *sq_tail, *cq_head, *cq_tail;
	struct io_uring_cqe *cqes;
	uint32_t sq_mask, cq_mask;
	int optval[RING_ENTRIES];   /* getsockopt answers, by submission slot */
};

/* 1: allowed so far; 0: refused once, for the whole process */
static atomic_int uring_allowed = 1;

/* After a shortage, no ring is made before this CLOCK_MONOTONIC time (ns;
 * 0: no wait). */
#define RETRY_NS 100000000
static _Atomic int64_t uring_retry_at;

__attribute__((constructor)) static void kq_uring_env(void)
{
	const char *v = secure_getenv("LIBKQ_NO_IO_URING");
	if (v && v[0] == '1')
		atomic_store(&uring_allowed, 0);
}

bool kq_uring_usable(void)
{
	return atomic_load_explicit(&uring_allowed, memory_order_relaxed) != 0;
}

bool kq_uring_renumber(struct kq_uring *r, int old, int new)
{
	if (!r || r->fd != old)
		return false;
	r->fd = new;
	return true;
}

void kq_uring_free(struct kq_uring *r)
{
	if (!r)
		return;
	if (r->sqes)
		munmap(r->sqes, r->sqes_len);
	if (r->map)
		munmap(r->map, r->map_len);
	kq_fd_own_close(r->fd);
	free(r);
}

static void refuse(void)
{
	atomic_store_explicit(&uring_allowed, 0, memory_order_relaxed);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether io_uring_setup() failing with err says the kernel will not give
 * this process a ring (as opposed to: not now). */
static bool refusal(int err)
{
	switch (err) {
	case -EMFILE:
	case -ENFILE:
	case -ENOMEM:
	case -EAGAIN:
		return false;
	default:   /* ENOSYS, EPERM (io_uring_disabled, seccomp), EINVAL, ... */
		return true;
	}
}

struct kq_uring *kq_uring_new(void)
{
	int64_t at = atomic_load_explicit(&uring_retry_at, memory_order_relaxed);
	if (at && mono_ns() < at)
		return NULL;
	struct kq_uring *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	struct io_uring_params p;
	memset(&p, 0, sizeof p);
	r->fd = (int)KQ_SYSCALL(SYS_io_uring_setup, RING_ENTRIES, &p);
	if (r->fd < 0 && !refusal(r->fd)) {
		atomic_store_explicit(&uring_retry_at, mono_ns() + RETRY_NS, memory_order_relaxed);
		r->fd = -1;
		kq_uring_free(r);
		return NULL;
	}
	if (r->fd < 0 || !(p.features & IORING_FEAT_SINGLE_MMAP)) {
		if (r->fd < 0)
			r->fd = -1;
		refuse();
		kq_uring_free(r);
		return NULL;
	}
	r->fd = kq_fd_own(r->fd);
	size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
	size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	r->map_len = sq_len > cq_len ? sq_len : cq_len;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		      r->fd, IORING_OFF_SQ_RING);
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->map == MAP_FAILED || r->sqes == MAP_FAILED) {
		if (r->map == MAP_FAILED)
			r->map = NULL;
		if (r->sqes == MAP_FAILED)
			r->sqes = NULL;
		kq_uring_free(r);
		/* a shortage too (ENOMEM, RLIMIT_MEMLOCK before 5.12) */
		atomic_store_explicit(&uring_retry_at, mono_ns() + RETRY_NS, memory_order_relaxed);
		return NULL;
	}
	char *b = r->map;
	r->sq_tail = (_Atomic uint32_t *)(b + p.sq_off.tail);
	r->sq_mask = *(uint32_t *)(b + p.sq_off.ring_mask);
	r->cq_head = (_Atomic uint32_t *)(b + p.cq_off.head);
	r->cq_tail = (_Atomic uint32_t *)(b + p.cq_off.tail);
	r->cq_mask = *(uint32_t *)(b + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(b + p.cq_off.cqes);
	/* submission slot i always holds entry i */
	uint32_t *array = (uint32_t *)(b + p.sq_off.array);
	for (uint32_t i = 0; i < p.sq_entries; i++)
		array[i] = i;
	return r;
}

/* A SOL_SOCKET getsockopt of an int into r->optval[i].  The 6.7 uapi
 * overlays level and optname on `addr` (level first), optlen on
 * `file_index` and optval on `addr3`; older headers have only those names. */
static void prep_getsockopt(struct kq_uring *r, struct io_uring_sqe *sqe, unsigned i, int name)
{
	uint32_t level = SOL_SOCKET, optname = (uint32_t)name;
	sqe->cmd_op = SOCKET_URING_OP_GETSOCKOPT;
	memcpy((char *)&sqe->addr, &level, sizeof level);
	memcpy((char *)&sqe->addr + sizeof level, &optname, sizeof optname);
	sqe->file_index = sizeof(int);
	sqe->addr3 = (uint64_t)(uintptr_t)&r->optval[i];
}

/*
 * out[i] = the answer to q[i] (>= 0), or -errno for that one.  Returns 0
 * when every answer came (some may be errors), -errno when the ring failed
 * (then out[] means nothing and the ring is retired: the caller frees it
 * and asks by system call).
 */
int kq_uring_ask(struct kq_uring *r, const struct kq_uring_q *q, int *out, unsigned n)
{
	if (n == 0 || n > RING_ENTRIES)
		return -EINVAL;
	uint32_t tail = atomic_load_explicit(r->sq_tail, memory_order_relaxed);
	for (unsigned i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = &r->sqes[(tail + i) & r->sq_mask];
		memset(sqe, 0, sizeof *sqe);
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = q[i].fd;
		sqe->user_data = i;
		switch (q[i].op) {
		case KQ_UQ_INQ:
			sqe->cmd_op = SOCKET_URING_OP_SIOCINQ;
			break;
		case KQ_UQ_OUTQ:
			sqe->cmd_op = SOCKET_URING_OP_SIOCOUTQ;
			break;
		default:
			prep_getsockopt(r, sqe, i, SO_SNDBUF);
			break;
		}
		out[i] = -EAGAIN;
	}
	atomic_store_explicit(r->sq_tail, tail + n, memory_order_release);
	long got;
	do
		got = KQ_SYSCALL(SYS_io_uring_enter, r->fd, n, 0, 0, NULL, 0);
	while (got == -EINTR);
	if (got != (long)n)
		return got < 0 ? (int)got : -EIO;
	uint32_t head = atomic_load_explicit(r->cq_head, memory_order_relaxed);
	uint32_t ctail = atomic_load_explicit(r->cq_tail, memory_order_acquire);
	unsigned seen = 0;
	for (; head != ctail; head++) {
		const struct io_uring_cqe *c = &r->cqes[head & r->cq_mask];
		if (c->user_data < n) {
			unsigned i = (unsigned)c->user_data;
			/* a getsockopt answers with the length; the value is in
			 * optval */
			out[i] = q[i].op == KQ_UQ_SNDBUF && c->res >= 0 ?
				 (c->res == (int)sizeof(int) ? r->optval[i] : -EIO) : c->res;
			seen++;
		}
	}
	atomic_store_explicit(r->cq_head, head, memory_order_release);
	if (seen != n)
		return -EIO;
	/* A kernel without the command (or without URING_CMD) refuses it for
	 * every socket; a TCP listener alone says EINVAL too, and taking a
	 * batch of listeners for that only costs the batching. */
	for (unsigned i = 0; i < n; i++)
		if (out[i] != -EOPNOTSUPP && out[i] != -EINVAL)
			return 0;
	refuse();
	return -EOPNOTSUPP;
}
