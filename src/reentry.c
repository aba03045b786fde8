/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kevent() from a signal handler on a kqueue its own thread is inside (a
 * kevent() on it, or a close() removing knotes from it): the wake-up
 * protocol's rule W7 (wake.h).
 *
 * FreeBSD's kevent() is one system call, so a handler's kevent() always
 * finds the kqueue whole.  Here it does too while the interrupted call
 * sleeps, its lock let go (kq_acquire_reentry).  Anywhere else the
 * interrupted call may hold kq->lock and be half-way through a change,
 * and a handler cannot wait for its own thread.  So the handler's changes are checked as far as they can be
 * without the lock (the filter, the flags, an open descriptor) and queued
 * in kq->hq[], a bounded queue with a sequence number per slot (many
 * handlers, on their own threads, may queue at once; the lock's holder
 * takes them in order).  Whoever holds the lock next applies them, before
 * the kqueue is let go or slept on, so a trigger a handler makes wakes the
 * loop its thread was sleeping in.  Everything here is async-signal-safe:
 * atomics, a copy, fcntl(), mmap() and an eventfd write.
 */
#include "kq.h"
#include "sys.h"

#include <fcntl.h>
#include <sys/mman.h>

/* An empty queue: slot i waits for position i. */
static void hq_reset(struct kq_hchange *q)
{
	for (unsigned i = 0; i < KQ_HCHANGES; i++)
		atomic_store_explicit(&q[i].seq, i, memory_order_relaxed);
}

/* A reused object keeps its queue's memory; no handler can be queueing on
 * a kqueue that is being made. */
void kq_hchanges_init(struct kqueue *kq)
{
	struct kq_hchange *q = atomic_load_explicit(&kq->hq, memory_order_relaxed);
	if (q)
		hq_reset(q);
	atomic_store_explicit(&kq->htail, 0, memory_order_relaxed);
	kq->hhead = 0;
	kq->happlying = false;
}

/* The queue, mapped by the first handler that needs it: a raw mmap() is
 * async-signal-safe where malloc() is not.  Handlers of several threads
 * may race here; the loser unmaps its copy.  Nothing was queued before, so
 * it starts empty at position 0. */
static struct kq_hchange *hq_get(struct kqueue *kq)
{
	struct kq_hchange *q = atomic_load_explicit(&kq->hq, memory_order_acquire);
	if (q)
		return q;
	size_t size = KQ_HCHANGES * sizeof *q;
	long p = KQ_SYSCALL(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p < 0 && p > -4096)
		return NULL;
	struct kq_hchange *mine = (struct kq_hchange *)p;
	hq_reset(mine);
	if (atomic_compare_exchange_strong_explicit(&kq->hq, &q, mine,
						    memory_order_acq_rel,
						    memory_order_acquire))
		return mine;
	KQ_SYSCALL(SYS_munmap, mine, size);
	return q;
}

/* Queues one change; -ENOMEM when the queue is full or cannot be mapped
 * (FreeBSD's kevent() may fail so when it cannot allocate a knote). */
static int hchange_push(struct kqueue *kq, const struct kevent *kev)
{
	struct kq_hchange *q = hq_get(kq);
	if (!q)
		return -ENOMEM;
	unsigned pos = atomic_load_explicit(&kq->htail, memory_order_relaxed);
	struct kq_hchange *s;
	for (;;) {
		s = &q[pos % KQ_HCHANGES];
		unsigned seq = atomic_load_explicit(&s->seq, memory_order_acquire);
		int dif = (int)(seq - pos);
		if (dif < 0)
			return -ENOMEM;
		if (dif == 0 &&
		    atomic_compare_exchange_weak_explicit(&kq->htail, &pos, pos + 1,
							  memory_order_relaxed,
							  memory_order_relaxed))
			break;
		if (dif > 0)
			pos = atomic_load_explicit(&kq->htail, memory_order_relaxed);
	}
	s->kev = *kev;
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
	return 0;
}

bool kq_hchanges_pending(struct kqueue *kq)
{
	struct kq_hchange *q = atomic_load_explicit(&kq->hq, memory_order_acquire);
	if (!q)
		return false;
	struct kq_hchange *s = &q[kq->hhead % KQ_HCHANGES];
	return atomic_load_explicit(&s->seq, memory_order_acquire) == kq->hhead + 1;
}

/*
 * Applies the queued changes in order, under kq->lock.  A change may wait
 * for a consumer (kq_quiesce), letting the lock go: another thread that
 * takes it meanwhile leaves the queue to this one (happlying), so a later
 * change never overtakes an earlier one.  A slot still being filled by a
 * handler ends the round; that handler sets deferred_any once it is full.
 * The changes' errors have nobody to go to: the handler's call returned.
 * Returns whether any change was applied.
 */
bool kq_hchanges_apply(struct kqueue *kq)
{
	struct kq_hchange *q = atomic_load_explicit(&kq->hq, memory_order_acquire);
	if (kq->happlying || !q)
		return false;
	kq->happlying = true;
	bool any = false;
	for (;;) {
		unsigned pos = kq->hhead;
		struct kq_hchange *s = &q[pos % KQ_HCHANGES];
		if (atomic_load_explicit(&s->seq, memory_order_acquire) != pos + 1)
			break;
		struct kevent kev = s->kev;
		atomic_store_explicit(&s->seq, pos + KQ_HCHANGES, memory_order_release);
		kq->hhead = pos + 1;
		any = true;
		if (!kq->dead)
			(void)kq_register(kq, &kev);
	}
	kq->happlying = false;
	return any;
}

/*
 * kq_acquire() for a signal handler whose thread is inside a kevent() on
 * kq (its held-lock record has an entry for it).  When that call has let
 * the lock go for its sleep's system call, the handler takes the lock as
 * any other call: the kqueue is whole.  If the sleeper is the consumer, its
 * system call may have returned reports it has not processed (the handler
 * runs on the way back from it); this thread processes them now, as the
 * consumer would have (kq_sleep zeroed every slot that held a report, so
 * their number shows), and the sleeper, told so (robbed), takes nothing
 * from the buffer.  The consumer role stays with the sleeper: a system
 * call it has yet to make takes only reports that come after this
 * handler's changes.  Otherwise
 * (the lock may be held, or its taking half done) -EDEADLK sends the call
 * to kq_reentry().
 */
struct kqueue *kq_acquire_reentry(struct kqueue *kq, int fd, int *err)
{
	struct kq_held *h = kq_held_self();
	int top = kq_held_top(&kq->lock);
	if (top < 0 || !(h->unlocked & (1u << top))) {
		*err = -EDEADLK;
		return NULL;
	}
	unsigned n = h->n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	kq_held_push(&kq->lock, n);
	kq_mutex_lock(&kq->lock);
	if (kq->dead || kq->ufd != fd) {
		*err = -EBADF;
		return kq_acquire_failed(kq, true);
	}
	kq->users++;
	if (kq->consumer && kq->consumer_h == h) {
		struct epoll_event *evs = kq->hbuf;
		int taken = 0;
		while (taken < kq->consumer_maxev && evs[taken].events)
			taken++;
		if (taken) {
			kq_scan_reports(kq, evs, taken);
			memset(evs, 0, (size_t)taken * sizeof *evs);
			kq->robbed = true;
		}
	}
	*err = 0;
	if (atomic_load_explicit(&kq->deferred_any, memory_order_acquire)) {
		kq = kq_acquire_deferred(kq);
		if (!kq) {
			*err = -EBADF;
			return NULL;
		}
	}
	/* The way out is then kq_release_slow(), which zeroes the buffer
	 * again after this call's own harvests.  (A call that sleeps may
	 * clear the flag first: a later handler then takes a stale report
	 * or two again, which only costs it their processing.) */
	if (kq->consumer && kq->consumer_h == h)
		atomic_store_explicit(&kq->deferred_any, true, memory_order_relaxed);
	return kq;
}

/* What can be known of a change without the kqueue: the checks every
 * change passes first, and that a descriptor is open. */
static int precheck(const struct kevent *kev)
{
	const struct filterops *fop;
	int err = kq_change_check(kev, &fop);
	if (!err && fop->isfd && sys_fcntl((int)kev->ident, F_GETFD, 0) < 0)
		err = -EBADF;
	return err;
}

static int fail(int err)
{
	errno = -err;
	return -1;
}

/*
 * The whole of such a kevent() (its arguments as the caller got them).
 * Records: an EV_ERROR record for a change refused by the checks above, a
 * receipt (data 0) for a queued one, with FreeBSD's rules when the event
 * list has no room.  No event can be collected while the interrupted call
 * holds the kqueue: a zero timeout returns 0, any other returns EINTR,
 * which is what FreeBSD's kevent() returns when a signal comes during its
 * wait.
 */
int kq_reentry(int kqfd, const struct kevent *changes, int nchanges,
	       struct kevent *events, int nevents, const struct timespec *timeout)
{
	struct kqueue *kq = kq_fdtab_kq(kqfd);
	if (!kq)
		return fail(-EBADF);
	if (nchanges < 0)
		return fail(-EINVAL);
	if ((nchanges > 0 && !changes) || (nevents > 0 && !events))
		return fail(-EFAULT);
	int room = nevents > 0 ? nevents : 0, nrec = 0, stop = 0;
	bool queued = false;
	for (int i = 0; i < nchanges; i++) {
		struct kevent kev = changes[i];   /* events may alias changes */
		if (kev.filter == 0)
			continue;
		kev.flags &= ~EV_SYSFLAGS;
		int err = precheck(&kev);
		if (!err)
			err = hchange_push(kq, &kev);
		if (!err)
			queued = true;
		if (!err && !(kev.flags & EV_RECEIPT))
			continue;
		if (room - nrec <= 0) {
			stop = err ? err : 1;   /* a receipt without room is dropped */
			break;
		}
		kev.flags = EV_ERROR;
		kev.data = -err;
		events[nrec++] = kev;
	}
	if (queued) {
		atomic_store_explicit(&kq->deferred_any, true, memory_order_seq_cst);
		/* A frame asleep on the kqueue is counted in its users, so
		 * epfd is open; any other frame meets kq_deferred() before it
		 * sleeps or returns (wake.h, W7). */
		int top = kq_held_top(&kq->lock);
		if (top >= 0 && (kq_held_self()->asleep & (1u << top))) {
			unsigned g = kq_hwin_enter(kq);
			kq_wake_poke(kq);
			kq_hwin_leave(kq, g);
		}
	}
	if (stop)   /* as apply_changes() (api.c) */
		return stop < 0 ? fail(stop) : 0;
	if (nrec > 0)
		return nrec;
	if (nevents < 0)
		return fail(-EINVAL);
	if (nevents == 0)
		return 0;
	if (timeout && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
			timeout->tv_nsec >= 1000000000))
		return fail(-EINVAL);
	if (timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0)
		return 0;
	return fail(-EINTR);
}
