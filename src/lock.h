/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kqueue lock and its condition variable, built on futexes.
 *
 * Two reasons not to use pthread's:
 *  - pthread_cond_wait() is a cancellation point.  A kevent() call that
 *    makes only changes is not one (FreeBSD), yet it may have to wait on
 *    kq->cond for another thread (kq_quiesce); a cancelled thread would
 *    leave the library there holding kq->lock, and every other user of the
 *    kqueue would hang.  A futex wait issued as a raw system call is never
 *    a cancellation point.
 *  - Every kevent() takes and drops kq->lock.  Uncontended, this lock is one
 *    inlined atomic instruction each way; glibc's generic mutex is an
 *    out-of-line call that first dispatches on the mutex kind.
 *
 * The mutex is the classic three-state futex lock: 0 free, 1 held, 2 held
 * and a thread may sleep on it, so only an unlock that finds 2 makes a
 * system call.  The condition variable is a sequence number: a waiter
 * samples it under the mutex and sleeps only while it is unchanged, so a
 * broadcast made (under the mutex) after the waiter let go is never missed.
 * Spurious wake-ups are possible, as with pthread; callers loop on their
 * predicate.  All of it is process-private: a fork child does not share it.
 */
#ifndef KQ_LOCK_H
#define KQ_LOCK_H

#include <limits.h>
#include <stdbool.h>
#include <linux/futex.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>

#include "sys.h"

/* 32-bit architectures born with 64-bit time have only the _time64 call;
 * without a timeout the two are the same. */
#if !defined(SYS_futex) && defined(SYS_futex_time64)
#define SYS_futex SYS_futex_time64
#endif

struct kq_mutex {
	int state;                 /* 0 free, 1 held, 2 held, maybe sleepers,
				    * KQ_MUTEX_ALONE held while single-threaded */
};
#define KQ_MUTEX_ALONE 3

/*
 * The kqueue locks this thread may hold, or wait for, with signals
 * deliverable: the kqueues it is inside kevent() on (kq_acquire() to
 * kq_release()), so that a signal handler that interrupted it can tell that
 * a lock it needs may not be let go until it returns (kqueue.c: a close()
 * from a handler defers its work on such a kqueue instead of waiting for
 * itself; api.c: kevent() on it fails).  Recorded once per kevent() rather
 * than per lock operation: the deferred work is applied whenever the lock is
 * next held, so a record that also covers the unlocked sleep costs nothing.
 * Written before the lock is tried and cleared after it is let go, with
 * signal fences, so a handler never misses one; a handler's own entries are
 * gone again when it returns.  Other sections taking these locks run with
 * signals blocked.  Initial-exec TLS: no lazy allocation on the first
 * access, which a handler could not afford.
 */
#define KQ_HELD_MAX 8
struct kqueue;
struct kq_held {
	unsigned         n;      /* first, and aligned: n, the first entries */
	/* Bit i: entry i's kevent() is in kq_sleep() (wake.c), counted in
	 * the kqueue's users, so a handler may write its wake descriptor
	 * (reentry.c).  Set and cleared by that frame alone; a handler's own
	 * bits are clear again when it returns. */
	unsigned         asleep;
	/* The two kqueues this thread entered last and their numbers, the
	 * latest first (kq.h, kq_acquire): guesses, checked under the
	 * kqueue's lock, that save the table look-up in the line every
	 * kevent() touches anyway.  Two, because a thread often alternates
	 * between its own kqueue and another thread's (a trigger, then a
	 * wait). */
	int              last_fd[2];
	struct kqueue   *last_kq[2];
	struct kq_mutex *m[KQ_HELD_MAX];   /* and the guesses share a line */
	/* Bit i: entry i's kevent() has let its lock go for the sleep's
	 * system call (within asleep), so a handler may take the lock as
	 * any other call would (reentry.c). */
	unsigned         unlocked;
} __attribute__((aligned(64)));
extern __thread struct kq_held kq_held
	__attribute__((tls_model("initial-exec"), visibility("hidden")));


/* This thread's record through a register.  Named directly, initial-exec
 * TLS in a shared object is an offset loaded from the GOT, and the signal
 * fences below make the compiler load it again at every access (seven
 * loads in a kevent() that waits for nothing); the empty asm turns the
 * address into a value computed once. */
static inline struct kq_held *kq_held_self(void)
{
	struct kq_held *h = &kq_held;
	__asm__("" : "+r"(h));
	return h;
}

/* Entries go in the reverse order of coming (a kevent() on a nested
 * kqueue inside one on its outer kqueue), so the search stops at the top.
 * The top entry moves into the freed slot before the count drops, and the
 * old top slot is cleared once it is beyond the count. */
void kq_held_pop_search(struct kq_mutex *m, unsigned n);
static inline void kq_held_pop(struct kq_mutex *m)
{
	struct kq_held *h = kq_held_self();
	unsigned n = h->n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* the common case: m is the top entry (no nesting, or the inner one) */
	if (__builtin_expect(n - 1 < KQ_HELD_MAX && h->m[n - 1] == m, 1)) {
		h->n = n - 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		h->m[n - 1] = NULL;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		return;
	}
	kq_held_pop_search(m, n);
}

/* Whether this thread holds m or waits for it (see above).  The search
 * is out of line: most calls find no entry at all. */
bool kq_held_find(const struct kq_mutex *m, unsigned n);
static inline bool kq_held_mine(const struct kq_mutex *m)
{
	unsigned n = kq_held.n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return __builtin_expect(n != 0, 0) && kq_held_find(m, n);
}

/*
 * Records m as held by this thread, unless it already is (kq_held_mine()):
 * false then.  A handler may run between any two steps here, and pushes
 * and pops entries of its own above ours before it returns, so the count
 * read once stays right.  The push first claims its slot (the count), then
 * fills it; a slot beyond the count is always NULL, so a handler that reads
 * a claimed slot before it is filled finds nothing rather than an older
 * entry.
 */
static inline void kq_held_push(struct kq_mutex *m, unsigned n)
{
	struct kq_held *h = kq_held_self();
	h->n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (n < KQ_HELD_MAX)
		h->m[n] = m;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline bool kq_held_enter(struct kq_mutex *m)
{
	struct kq_held *h = kq_held_self();
	unsigned n = h->n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(n != 0, 0) && kq_held_find(m, n))
		return false;
	h->n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (n < KQ_HELD_MAX)
		h->m[n] = m;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

/* The index of this thread's topmost entry for m, or -1 (none, or beyond
 * KQ_HELD_MAX). */
static inline int kq_held_top(const struct kq_mutex *m)
{
	struct kq_held *h = kq_held_self();
	unsigned n = h->n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (unsigned i = n < KQ_HELD_MAX ? n : KQ_HELD_MAX; i-- > 0;)
		if (h->m[i] == m)
			return (int)i;
	return -1;
}

/* Marks the entry for m as sleeping (asleep, above); returns the bit to
 * give kq_held_awake(), 0 when m has no entry. */
static inline unsigned kq_held_sleeping(const struct kq_mutex *m)
{
	struct kq_held *h = kq_held_self();
	unsigned i = h->n - 1;
	if (__builtin_expect(i >= KQ_HELD_MAX || h->m[i] != m, 0)) {
		int t = kq_held_top(m);
		if (t < 0)
			return 0;
		i = (unsigned)t;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h->asleep |= 1u << i;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1u << i;
}

static inline void kq_held_awake(unsigned bit)
{
	struct kq_held *h = kq_held_self();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h->asleep &= ~bit;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Says whether the sleeping entry `bit` has let its lock go (unlocked,
 * above). */
static inline void kq_held_unlocked(unsigned bit, bool unlocked)
{
	struct kq_held *h = kq_held_self();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlocked)
		h->unlocked |= bit;
	else
		h->unlocked &= ~bit;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

struct kq_cond {
	unsigned seq;              /* changes on every broadcast */
	unsigned waiters;          /* threads in kq_cond_wait(), under the mutex */
};

static inline void kq_futex_wait(void *word, int val)
{
	KQ_SYSCALL(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL);
}

static inline void kq_futex_wake(void *word, int n)
{
	KQ_SYSCALL(SYS_futex, word, FUTEX_WAKE_PRIVATE, n);
}

/* Contended: announce a sleeper (2) and sleep until the holder lets go. */
static inline void kq_mutex_lock_slow(struct kq_mutex *m)
{
	while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
		kq_futex_wait(&m->state, 2);
}

/*
 * While the process has one thread, nobody else can hold or wait for a
 * lock: glibc's __libc_single_threaded is true until the first
 * pthread_create() and never becomes true again while threads may exist
 * (glibc and libstdc++ skip their own atomics the same way).  The lock is
 * then taken and let go with plain stores: the locked instructions cost
 * about 30 ns per kevent() next to a system call on some processors.  No
 * thread can be created inside a critical section (the holder is in
 * libkq), so a lock taken plainly is let go before a second thread exists,
 * and pthread_create() orders the two.  A signal handler that interrupts
 * the holder is kept out as before (kq_held_mine()): the lock never kept a
 * thread's own handler out.  A lock taken so says it (KQ_MUTEX_ALONE), and
 * its unlock reads that from the lock's own line, already in the cache,
 * rather than glibc's flag a second time.
 */
static inline bool kq_alone(void)
{
	return __atomic_load_n(&__libc_single_threaded, __ATOMIC_RELAXED);
}

static inline bool kq_mutex_trylock(struct kq_mutex *m)
{
	/* laid out straight for one thread: with more, the locked
	 * instruction costs far more than the jump */
	if (__builtin_expect(kq_alone(), 1)) {
		if (__builtin_expect(__atomic_load_n(&m->state, __ATOMIC_RELAXED) != 0, 0))
			return false;
		__atomic_store_n(&m->state, KQ_MUTEX_ALONE, __ATOMIC_RELAXED);
		return true;
	}
	int free = 0;
	return __atomic_compare_exchange_n(&m->state, &free, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void kq_mutex_lock(struct kq_mutex *m)
{
	if (!kq_mutex_trylock(m))
		kq_mutex_lock_slow(m);
}

static inline void kq_mutex_unlock(struct kq_mutex *m)
{
	if (__builtin_expect(__atomic_load_n(&m->state, __ATOMIC_RELAXED) == KQ_MUTEX_ALONE, 1)) {
		__atomic_store_n(&m->state, 0, __ATOMIC_RELAXED);
		return;
	}
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) == 2)
		kq_futex_wake(&m->state, 1);
}

/* Called with m held; returns with m held. */
static inline void kq_cond_wait(struct kq_cond *c, struct kq_mutex *m)
{
	unsigned seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	c->waiters++;
	kq_mutex_unlock(m);
	kq_futex_wait(&c->seq, (int)seq);
	/* Other woken waiters may be queued on m as well: take it as
	 * contended, so that our unlock wakes the next one. */
	kq_mutex_lock_slow(m);
	c->waiters--;
}

/* Called with the waiters' mutex held. */
static inline void kq_cond_broadcast(struct kq_cond *c)
{
	if (c->waiters == 0)
		return;
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_RELAXED);
	kq_futex_wake(&c->seq, INT_MAX);
}

#endif
