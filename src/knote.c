/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Knote storage inside one kqueue (all under kq->lock): an fd-indexed slot
 * array for descriptor filters and a hash by ident for the others, as in
 * FreeBSD; and the FIFO ready queue.
 */
#include "kq.h"

#include <stdlib.h>
#include <string.h>

struct kq_fdslot *kq_fdslot_grow(struct kqueue *kq, int fd)
{
	/* Grow by a quarter, not double: the slot array is most of a socket
	 * knote's cost after the knote itself, and glibc reallocs a large
	 * (mmapped) block by mremap, without copying. */
	unsigned n = kq->nfds + kq->nfds / 4;
	if (n <= (unsigned)fd)
		n = (unsigned)fd + 1;
	n = (n + 63) & ~63u;
	struct kq_fdslot *s = realloc(kq->fds, n * sizeof *s);
	if (!s)
		return NULL;
	memset(s + kq->nfds, 0, (n - kq->nfds) * sizeof *s);
	kq->fds = s;
	kq->nfds = n;
	return &kq->fds[fd];
}

static unsigned hash_ident(uintptr_t ident, unsigned size)
{
	uint64_t h = (uint64_t)ident * 0x9e3779b97f4a7c15ull;
	return (unsigned)(h >> 32) & (size - 1);
}

struct knote *kq_find(struct kqueue *kq, uintptr_t ident, short filter, bool isfd)
{
	struct knote *kn;
	if (isfd) {
		if (ident > INT32_MAX)
			return NULL;
		struct kq_fdslot *s = kq_fdslot(kq, (int)ident, false);
		kn = s ? s->head : NULL;
	} else {
		kn = kq->hsize ? kq->hash[hash_ident(ident, kq->hsize)] : NULL;
	}
	for (; kn; kn = kn->link)
		if (kn->filter == filter && kn->ident == ident)
			return kn;
	return NULL;
}

static int hash_grow(struct kqueue *kq)
{
	unsigned n = kq->hsize ? kq->hsize * 2 : 64;
	struct knote **h = calloc(n, sizeof *h);
	if (!h)
		return -ENOMEM;
	for (unsigned i = 0; i < kq->hsize; i++) {
		struct knote *kn = kq->hash[i], *next;
		for (; kn; kn = next) {
			next = kn->link;
			unsigned b = hash_ident(kn->ident, n);
			kn->link = h[b];
			h[b] = kn;
		}
	}
	free(kq->hash);
	kq->hash = h;
	kq->hsize = n;
	return 0;
}

int kq_link(struct kqueue *kq, struct knote *kn, bool isfd)
{
	if (isfd) {
		struct kq_fdslot *s = kq_fdslot(kq, (int)kn->ident, true);
		if (!s)
			return -ENOMEM;
		if (kq_fdslot_unused(s))
			kq_fdtab_interest(kq, (int)kn->ident, 1);
		/* At the tail: knotes on one descriptor that are ready together
		 * are activated in the order they were registered, as FreeBSD
		 * activates each at its EV_ADD (kq_fd_report keeps it so). */
		struct knote **pp = &s->head;
		while (*pp)
			pp = &(*pp)->link;
		kn->link = NULL;
		*pp = kn;
		return 0;
	}
	if (kq->hcount >= kq->hsize) {
		int err = hash_grow(kq);
		if (err)
			return err;
	}
	unsigned b = hash_ident(kn->ident, kq->hsize);
	kn->link = kq->hash[b];
	kq->hash[b] = kn;
	kq->hcount++;
	return 0;
}

void kq_unlink(struct kqueue *kq, struct knote *kn, bool isfd)
{
	struct knote **pp;
	if (isfd) {
		struct kq_fdslot *s = kq_fdslot(kq, (int)kn->ident, false);
		if (!s)
			return;
		pp = &s->head;
	} else {
		if (!kq->hsize)
			return;
		pp = &kq->hash[hash_ident(kn->ident, kq->hsize)];
	}
	for (; *pp; pp = &(*pp)->link) {
		if (*pp != kn)
			continue;
		*pp = kn->link;
		kn->link = NULL;
		if (!isfd)
			kq->hcount--;
		return;
	}
}

void kq_enqueue(struct kqueue *kq, struct knote *kn)
{
	if (kn->qprevp)
		return;
	kn->qnext = NULL;
	kn->qprevp = kq->qtailp;
	*kq->qtailp = kn;
	kq->qtailp = &kn->qnext;
	kn->status |= KN_QUEUED;
	kq->qcount++;
	kq->nact++;
}

void kq_dequeue(struct kqueue *kq, struct knote *kn)
{
	if (!kn->qprevp)
		return;
	*kn->qprevp = kn->qnext;
	if (kn->qnext)
		kn->qnext->qprevp = kn->qprevp;
	else
		kq->qtailp = kn->qprevp;
	kn->qnext = NULL;
	kn->qprevp = NULL;
	kn->status &= ~KN_QUEUED;
	kq->qcount--;
}

/* An activation from the knote's source (FreeBSD's KNOTE_ACTIVATE). */
void kq_activate(struct kqueue *kq, struct knote *kn)
{
	if (kn->status & KN_DISABLED)
		return;
	/* One-shot knotes are reported as they were when they fired, without
	 * re-validation (FreeBSD), so take their data now. */
	if ((kn->flags & EV_ONESHOT) && !(kn->status & KN_SNAPSHOT)) {
		const struct filterops *fop = kq_fop(kn);
		if (fop && fop->event(kq, kn))
			kn->status |= KN_SNAPSHOT;
	}
	kq_enqueue(kq, kn);
}

/*
 * close() skips a number without interest lock-free (kq_fd_closing), so the
 * number's interest goes down only after detach has removed its epoll
 * entries.  Were it lowered at the unlink, a close() between the two would
 * run the real close while the file is still in our sets and this thread is
 * inside epoll_ctl(DEL) on the number; the kernel pins the file there (and
 * epoll_wait() pins each item it polls), so the last reference would drop
 * in another thread and the file would outlive close(): a pipe keeping its
 * reader, a write succeeding instead of EPIPE.
 */
void kq_drop(struct kqueue *kq, struct knote *kn)
{
	const struct filterops *fop = kq_fop(kn);
	kq_dequeue(kq, kn);
	kq_unlink(kq, kn, fop->isfd);
	fop->detach(kq, kn);
	if (fop->isfd) {
		struct kq_fdslot *s = kq_fdslot(kq, (int)kn->ident, false);
		if (s && kq_fdslot_unused(s))
			kq_fdtab_interest(kq, (int)kn->ident, -1);
	}
	kq_knote_free(kq, kn);
}

/* Everything on fd goes: its knotes, and a parked entry (a close, or the
 * knotes turned out stale). */
void kq_drop_fd(struct kqueue *kq, int fd)
{
	struct kq_fdslot *s = kq_fdslot(kq, fd, false);
	while (s && s->head) {
		kq_drop(kq, s->head);
		s = kq_fdslot(kq, fd, false);
	}
	if (s && !kq_fdslot_unused(s))
		kq_fd_unpark(kq, fd);
}

void kq_drop_all(struct kqueue *kq)
{
	for (unsigned fd = 0; fd < kq->nfds; fd++)
		kq_drop_fd(kq, (int)fd);
	for (unsigned b = 0; b < kq->hsize; b++)
		while (kq->hash[b])
			kq_drop(kq, kq->hash[b]);
}
