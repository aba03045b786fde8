/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Knote storage: a per-kqueue slab allocator (all under kq->lock).
 *
 * malloc() rounds an 88-byte knote up to a 96-byte chunk (8 bytes of header,
 * 16-byte granularity), a tenth of a socket knote's whole cost.  Knotes are
 * instead carved out of slabs of up to SLAB_MAX of them; a knote keeps its
 * index in the slab (kn->slot) so freeing finds the slab without a search
 * and without address alignment tricks (memalign fragments glibc's heap).
 *
 * A slab that becomes empty goes back to malloc unless it is the only one
 * with free room, so a kqueue that shrinks gives its memory back and one
 * that churns around a slab boundary does not call malloc for every knote.
 * Being per kqueue, the allocator needs no lock of its own; teardown drops
 * every knote, which frees every slab but the last cached one, freed here.
 */
#include "kq.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SLAB_MIN 8
#define SLAB_MAX 64

struct kq_slab {
	struct kq_slab  *next;    /* kq->slabs: slabs with free room */
	struct kq_slab **prevp;   /* NULL when full (on no list) */
	struct knote    *free;    /* free knotes, linked through qnext */
	uint16_t         nfree;
	uint16_t         cap;
	struct knote     kn[];
};

static void slab_unlist(struct kq_slab *s)
{
	*s->prevp = s->next;
	if (s->next)
		s->next->prevp = s->prevp;
	s->prevp = NULL;
}

static void slab_list(struct kqueue *kq, struct kq_slab *s)
{
	s->next = kq->slabs;
	if (s->next)
		s->next->prevp = &s->next;
	s->prevp = &kq->slabs;
	kq->slabs = s;
}

/* Sizes grow with the kqueue: a kqueue with a handful of knotes keeps a
 * small slab, a large one amortizes the slab header over SLAB_MAX. */
static struct kq_slab *slab_new(struct kqueue *kq)
{
	unsigned cap = SLAB_MIN;
	while (cap < SLAB_MAX && cap <= kq->nknotes / 4)
		cap *= 2;
	struct kq_slab *s = malloc(sizeof *s + cap * sizeof(struct knote));
	if (!s)
		return NULL;
	s->cap = (uint16_t)cap;
	s->nfree = (uint16_t)cap;
	s->free = NULL;
	for (unsigned i = cap; i-- > 0;) {
		s->kn[i].slot = (uint16_t)i;
		s->kn[i].qnext = s->free;
		s->free = &s->kn[i];
	}
	slab_list(kq, s);
	return s;
}

struct knote *kq_knote_alloc(struct kqueue *kq)
{
	struct kq_slab *s = kq->slabs;
	if (!s && !(s = slab_new(kq)))
		return NULL;
	struct knote *kn = s->free;
	s->free = kn->qnext;
	if (--s->nfree == 0)
		slab_unlist(s);
	uint16_t slot = kn->slot;
	memset(kn, 0, sizeof *kn);
	kn->slot = slot;
	kq->nknotes++;
	return kn;
}

/* While close() drops knotes (kq->no_free) nothing goes back to malloc:
 * the close may be a signal handler's that interrupted malloc() in its own
 * thread.  A block freed then is chained through its first word and freed
 * by the next kq_release(). */
void kq_free(struct kqueue *kq, void *p)
{
	if (!p)
		return;
	if (!kq->no_free) {
		free(p);
		return;
	}
	*(void **)p = kq->graveyard;
	kq->graveyard = p;
}

void kq_graveyard_empty(struct kqueue *kq)
{
	while (kq->graveyard) {
		void *p = kq->graveyard;
		kq->graveyard = *(void **)p;
		free(p);
	}
}

void kq_knote_free(struct kqueue *kq, struct knote *kn)
{
	kq_free(kq, kn->ext);
	struct kq_slab *s = (struct kq_slab *)((char *)(kn - kn->slot) -
					       offsetof(struct kq_slab, kn));
	kn->qnext = s->free;
	s->free = kn;
	if (s->nfree++ == 0)
		slab_list(kq, s);
	kq->nknotes--;
	/* keep one slab with room; free the others as they empty (an
	 * empty one is kept while freeing waits: kq_free) */
	if (s->nfree == s->cap && (s->next || kq->slabs != s) && !kq->no_free) {
		slab_unlist(s);
		free(s);
	}
}

/* After kq_drop_all(): every slab is empty, at most one is left. */
void kq_slabs_fini(struct kqueue *kq)
{
	while (kq->slabs) {
		struct kq_slab *s = kq->slabs;
		slab_unlist(s);
		free(s);
	}
}
