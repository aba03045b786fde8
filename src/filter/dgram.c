/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ | EV_CLEAR on a datagram socket.
 *
 * FreeBSD's `data` is every payload byte queued.  Linux tells only the size
 * of the first datagram (FIONREAD), and the edge-triggered entry of an
 * EV_CLEAR knote reports arrivals, not what is left.  A program that reads
 * `data` bytes' worth and waits for the next record (a common UDP loop)
 * would strand the datagrams behind the first.  So a knote delivered with a
 * datagram count is remembered here, and the next kevent() call on the
 * kqueue looks at its socket again before it waits (dgram_begin):
 *   queue empty         forgotten (so is a number that names no socket
 *                       now: a close libkq did not see);
 *   queue not empty     a record, once; after that again only when the
 *                       program has received from the socket since the
 *                       last look (it read what a record said and waits
 *                       for the next: the libc layer's receive calls count,
 *                       fdtab.c) or the queue has grown (its memory,
 *                       SO_MEMINFO), so a program that leaves datagrams
 *                       unread on purpose is reminded once, not flooded.
 * The queue's memory alone cannot tell a datagram taken: UDP gives receive
 * memory back lazily, not while datagrams remain queued.  A program whose
 * receives libkq does not see (raw system calls, a build without the libc
 * replacements) gets the once-and-on-growth reminders only.
 * Cost: one FIONREAD per kevent() call after such a delivery, and one
 * getsockopt while datagrams stay queued.
 */
#include "kq.h"
#include "sys.h"
#include "filter/fdkind.h"

#include <stdlib.h>

#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif
#define MEMINFO_RMEM_ALLOC 0   /* SK_MEMINFO_RMEM_ALLOC */
#define MEMINFO_VARS       9

/* kn->fpriv of a READ knote on a datagram socket: it is in the list */
#define FPRIV_RECHECK 0x01

struct recheck {
	struct knote *kn;
	int           fd;     /* kn's ident */
	uint32_t      rmem;   /* queue memory when last reported by us */
	unsigned      rx;     /* the socket's receive count at the last look */
	bool          told;   /* a recheck record was made for this state */
};

struct kq_rechecks {          /* all under kq->lock */
	unsigned       n, cap;
	struct recheck v[];
};

/* -errno when not told (a kernel before 4.12 knows no SO_MEMINFO) */
static int64_t queue_memory(int fd)
{
	uint32_t m[MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof m;
	int err = sys_getsockopt(fd, SOL_SOCKET, SO_MEMINFO, m, &len);
	return err ? err : (int64_t)m[MEMINFO_RMEM_ALLOC];
}

/* A READ knote was just copied out. */
void kq_dgram_delivered(struct kqueue *kq, struct knote *kn)
{
	if (!(kn->flags & EV_CLEAR) || (kn->fpriv & FPRIV_RECHECK))
		return;
	struct kq_fdslot *s = kq_fdslot(kq, (int)kn->ident, false);
	if (!s || s->kind != KQ_FD_DGRAM)
		return;
	struct kq_rechecks *r = kq->rechecks;
	if (!r || r->n == r->cap) {
		unsigned cap = r ? r->cap * 2 : 8;
		r = realloc(r, sizeof *r + cap * sizeof r->v[0]);
		if (!r)
			return;   /* as without this: the next arrival reports */
		if (!kq->rechecks)
			r->n = 0;
		r->cap = cap;
		kq->rechecks = r;
	}
	kq_fdtab_rx_watch((int)kn->ident, 1);
	r->v[r->n++] = (struct recheck){ kn, (int)kn->ident, 0, kq_fdtab_rx((int)kn->ident), false };
	kn->fpriv |= FPRIV_RECHECK;
}

static void drop_entry(struct kq_rechecks *r, unsigned i)
{
	kq_fdtab_rx_watch(r->v[i].fd, -1);
	r->v[i].kn->fpriv &= ~FPRIV_RECHECK;
	r->v[i] = r->v[--r->n];
}

/* The knote is going away. */
void kq_dgram_forget(struct kqueue *kq, struct knote *kn)
{
	struct kq_rechecks *r = kq->rechecks;
	if (!(kn->fpriv & FPRIV_RECHECK) || !r)
		return;
	for (unsigned i = 0; i < r->n; i++)
		if (r->v[i].kn == kn) {
			drop_entry(r, i);
			return;
		}
}

/* Start of a kevent() call (the source's begin hook). */
static void dgram_begin(struct kqueue *kq)
{
	struct kq_rechecks *r = kq->rechecks;
	for (unsigned i = 0; r && i < r->n;) {
		struct recheck *e = &r->v[i];
		int fd = (int)e->kn->ident;
		int64_t n = 0;
		if (kq_fd_inq(fd, &n) != 0 || n <= 0) {
			drop_entry(r, i);
			continue;
		}
		int64_t mem = queue_memory(fd);
		if (mem == -ENOTSOCK) {
			/* the number names another file now (a close libkq
			 * did not see): FIONREAD counted that file's bytes */
			drop_entry(r, i);
			continue;
		}
		unsigned rx = kq_fdtab_rx(fd);
		if (!e->told || mem != (int64_t)e->rmem || rx != e->rx) {
			e->told = true;
			e->rmem = (uint32_t)mem;
			kq_activate(kq, e->kn);
		}
		e->rx = rx;
		i++;
	}
}

void kq_dgram_fini(struct kqueue *kq)
{
	/* normally empty: every knote was forgotten as it was dropped */
	struct kq_rechecks *r = kq->rechecks;
	for (unsigned i = 0; r && i < r->n; i++)
		kq_fdtab_rx_watch(r->v[i].fd, -1);
	free(kq->rechecks);
	kq->rechecks = NULL;
}

const struct kq_source kq_dgram_source = { .begin = dgram_begin };
