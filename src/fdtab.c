/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-process facts about descriptor numbers, read without locks on the hot
 * paths of close() and kevent(): which kqueue (if any) a number is, how many
 * kqueue fd slots hold knotes on it, and a socket error libkq consumed on the
 * program's behalf.
 *
 * Two levels of 4096 entries cover 2^24 descriptors; second-level pages are
 * allocated on first use and never freed, so a reader holding a page pointer
 * is always safe.
 */
#include "kq.h"

#include <stdlib.h>

#define PAGE_BITS 12
#define PAGE_SIZE_ENTRIES (1u << PAGE_BITS)
#define NPAGES 4096u

/* 8 bytes per descriptor number: this table has an entry for every number
 * that ever had a knote, so it counts in the memory a knote costs. */
struct fdent {
	atomic_int interest;
	atomic_int sockerr;
};

static _Atomic(struct fdent *) pages[NPAGES];
/* Which numbers are kqueues: few, so a separate table, by the same pages. */
static _Atomic(_Atomic(struct kqueue *) *) kqpages[NPAGES];

static struct fdent *ent(int fd, bool create)
{
	if (fd < 0)
		return NULL;
	unsigned p = (unsigned)fd >> PAGE_BITS;
	if (p >= NPAGES)
		return NULL;
	struct fdent *pg = atomic_load_explicit(&pages[p], memory_order_acquire);
	if (!pg) {
		if (!create)
			return NULL;
		struct fdent *n = calloc(PAGE_SIZE_ENTRIES, sizeof *n);
		if (!n)
			return NULL;
		struct fdent *expect = NULL;
		if (atomic_compare_exchange_strong(&pages[p], &expect, n))
			pg = n;
		else {
			free(n);
			pg = expect;
		}
	}
	return &pg[(unsigned)fd & (PAGE_SIZE_ENTRIES - 1)];
}

static _Atomic(struct kqueue *) *kqent(int fd, bool create)
{
	if (fd < 0)
		return NULL;
	unsigned p = (unsigned)fd >> PAGE_BITS;
	if (p >= NPAGES)
		return NULL;
	_Atomic(struct kqueue *) *pg = atomic_load_explicit(&kqpages[p], memory_order_acquire);
	if (!pg) {
		if (!create)
			return NULL;
		_Atomic(struct kqueue *) *n = calloc(PAGE_SIZE_ENTRIES, sizeof *n);
		if (!n)
			return NULL;
		_Atomic(struct kqueue *) *expect = NULL;
		if (atomic_compare_exchange_strong(&kqpages[p], &expect, n))
			pg = n;
		else {
			free(n);
			pg = expect;
		}
	}
	return &pg[(unsigned)fd & (PAGE_SIZE_ENTRIES - 1)];
}

struct kqueue *kq_fdtab_kq(int fd)
{
	_Atomic(struct kqueue *) *e = kqent(fd, false);
	return e ? atomic_load_explicit(e, memory_order_acquire) : NULL;
}

void kq_fdtab_set_kq(int fd, struct kqueue *kq)
{
	_Atomic(struct kqueue *) *e = kqent(fd, kq != NULL);
	if (e)
		atomic_store_explicit(e, kq, memory_order_release);
}

void kq_fdtab_interest(int fd, int delta)
{
	struct fdent *e = ent(fd, true);
	if (e)
		atomic_fetch_add(&e->interest, delta);
}

int kq_fdtab_interest_of(int fd)
{
	struct fdent *e = ent(fd, false);
	return e ? atomic_load_explicit(&e->interest, memory_order_acquire) : 0;
}

void kq_fdtab_stash_error(int fd, int err)
{
	struct fdent *e = ent(fd, true);
	if (e)
		atomic_store(&e->sockerr, err);
}

int kq_fdtab_peek_error(int fd)
{
	struct fdent *e = ent(fd, false);
	return e ? atomic_load(&e->sockerr) : 0;
}

int kq_fdtab_take_error(int fd)
{
	struct fdent *e = ent(fd, false);
	return e ? atomic_exchange(&e->sockerr, 0) : 0;
}

void kq_fdtab_clear(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e)
		atomic_store(&e->sockerr, 0);
}

/* Whether anything in libkq cares about fd at all: the close() fast path. */
bool kq_fdtab_busy(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e && (atomic_load_explicit(&e->interest, memory_order_acquire) != 0 ||
		  atomic_load_explicit(&e->sockerr, memory_order_relaxed) != 0))
		return true;
	return kq_fdtab_kq(fd) != NULL;
}

/* The first number in [from, to] that kq_fdtab_busy() would report, or -1;
 * skips pages never allocated, so a range up to INT_MAX costs little. */
int kq_fdtab_next_busy(int from, int to)
{
	if (from < 0)
		from = 0;
	for (long fd = from; fd <= to;) {
		unsigned p = (unsigned)fd >> PAGE_BITS;
		if (p >= NPAGES)
			return -1;
		if (!atomic_load_explicit(&pages[p], memory_order_acquire) &&
		    !atomic_load_explicit(&kqpages[p], memory_order_acquire)) {
			fd = (long)(p + 1) << PAGE_BITS;
			continue;
		}
		if (kq_fdtab_busy((int)fd))
			return (int)fd;
		fd++;
	}
	return -1;
}

/* Fork child: no descriptor is a kqueue or has knotes any more. */
void kq_fdtab_forget_all(void)
{
	for (unsigned p = 0; p < NPAGES; p++) {
		struct fdent *pg = atomic_load(&pages[p]);
		if (!pg)
			continue;
		for (unsigned i = 0; i < PAGE_SIZE_ENTRIES; i++) {
			atomic_store(&pg[i].interest, 0);
			atomic_store(&pg[i].sockerr, 0);
		}
	}
	for (unsigned p = 0; p < NPAGES; p++) {
		_Atomic(struct kqueue *) *pg = atomic_load(&kqpages[p]);
		for (unsigned i = 0; pg && i < PAGE_SIZE_ENTRIES; i++)
			atomic_store(&pg[i], NULL);
	}
}
