/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The way into and out of a kqueue, and the wake-up protocol: one home for
 * what every kevent() call does around its work (acquire, the held-lock
 * record, deferred closes, sleeping, the wake write, release).  The inline
 * fast paths are here; wake.c has the rest.  A change to any of it is
 * checked against the rules below, and the wake-up torture test
 * (test/stress/wake-torture.c) runs on it.
 *
 * LOCKS (the order and the global locks: kq.h, docs/design.md section 2)
 *   kq->lock is held by a kevent() call from kq_acquire() to kq_release(),
 *   changes and collection alike, and let go only while the call sleeps
 *   (kq_sleep) and around the wake write of kq_release_slow().  Every
 *   field below is under it unless said otherwise.
 *
 * THE OBJECTS
 *   kq->epfd     the epoll set (a private copy of the program's number).
 *   kq->wakefd   the process's wake eventfd (always readable) in epfd: its
 *                entry is edge-triggered while the kqueue lives, and a
 *                "write" below is an EPOLL_CTL_MOD that enables it
 *                (kq_wake_poke): one report, taken by the harvest that
 *                finds it; "read back" is a MOD that disables it.  Level-
 *                triggered once the kqueue is dead.
 *   kq->wake_on  a write of wakefd has been made (or is being made by the
 *                thread that set it) whose report no harvest has taken yet.
 *   kq->consumer one thread sleeps in epoll_wait() on epfd itself and takes
 *                reports out of it (into kq->hbuf).
 *   kq->quiescers threads waiting, on kq->cond, for the consumer to hand
 *                over what it took.
 *   kq->waitfd   an epoll set holding epfd, level-triggered: every other
 *                sleeper waits there; it takes nothing out of epfd.
 *
 * THE RULES
 *   W1 Queue and wake descriptor agree.  Whenever kq->lock is let go
 *      (kq_release, kq_sleep), kq_sync_wake*() makes wake_on equal to
 *      "knotes are queued": a queue that became non-empty is written
 *      (after the unlock, by the same thread, still counted in users so
 *      wakefd stays open); a harvest that takes the report clears wake_on
 *      (wake_report), so a queue still non-empty at the end of that call
 *      is written again; an empty queue with wake_on set is read back to
 *      0, so the set does not stay readable with nothing in it, except
 *      while a quiescer waits (W4): its write shares the count, and
 *      reading it back would take it from the consumer.  A write that
 *      lands after its knote was taken leaves one spurious report, never
 *      a missing one.  Nothing else reads wakefd.
 *   W2 When a thread may sleep.  Only from kq_scan() or kq_wait_locked(),
 *      with kq->lock held, deferred closes applied, the ready queue empty
 *      (a source's sleep hook may queue knotes: W1 then writes), and the
 *      kqueue alive.  It consumes iff no other thread consumes and no
 *      quiescer waits; a consumer first removes the parked entries that
 *      would report at once (kq_fd_park_flush: a DEL of an entry no knote
 *      holds, no report the consumer owes anyone); it sets consumer,
 *      applies W1 and unlocks, and only then calls epoll_wait().
 *      Anything that becomes ready after the unlock puts a report on
 *      epfd's ready list (a descriptor, a pidfd, the timerfd, the signal
 *      descriptors, inotify, the nested WRITE set, or wakefd for a queued
 *      knote), and epoll_wait() returns for a report on the list whether
 *      it came before or after the call.
 *   W3 No record is queued while every waiter sleeps.  Knotes are queued
 *      only under kq->lock.  The thread that queued one lets the lock go
 *      through W1, so epfd holds a report (its write's, or one still
 *      waiting).  The consumer sleeps on epfd and returns; a sleeper on
 *      waitfd wakes through epfd's readiness (epoll wakes one waiter of a
 *      set per new report, and each one that returns from a level entry
 *      that is still ready wakes the next).  A woken sleeper that finds
 *      nothing sleeps again under W2.
 *   W4 Reports are handled in order.  A thread that would harvest, deliver
 *      or change a descriptor's epoll entry while a consumer sleeps
 *      (kq_quiesce) counts itself in quiescers, writes wakefd and waits on
 *      kq->cond; the consumer processes what it took under the lock, then
 *      clears consumer and broadcasts.  A sleeper that sees a quiescer does
 *      not consume, so a quiescer is never starved.  Changes that touch no
 *      epoll entry (triggers, timers) do not quiesce, nor does the first
 *      knote of a socket by birth on a slot with no entry
 *      (kq_fd_add_fresh): no report the consumer holds is of an entry
 *      made after it slept, and the number's older entries' reports
 *      carry an older generation.
 *   W5 close() reaches every sleeper.  A kqueue marked dead (its number
 *      closed, at once or deferred from a signal handler) gets a
 *      level-triggered wake entry and a write (kq_wake_dead), and its count
 *      is never read back: epfd stays ready, every epoll_wait() on it or on
 *      waitfd returns at once and wakes the next waiter, and each thread
 *      returns EBADF once it holds the lock.  The last user tears it down.
 *   W6 Cancellation.  The sleep is kevent()'s cancellation point (with
 *      changes in the call or without; api.c), and a cancelled sleeper
 *      holds no lock: its cleanup takes the lock, gives back the consumer
 *      role (broadcast) and releases through W1.  Asynchronous
 *      cancellation is turned deferred for the call (api.c), so it never
 *      lands while the lock is held.
 *   W7 Signal handlers.  The kqueues a thread is inside kevent() on are in
 *      its held-lock record (lock.h) from before the lock is tried to after
 *      it is let go.  A handler never waits for a lock its own thread may
 *      hold.  Its close() on such a kqueue does what cannot wait (epoll
 *      entries, the number) and leaves the knotes in kq->deferred[]
 *      (kq_defer_close); its kevent() leaves its changes in
 *      kq->hq[] (reentry.c), in order.  Whoever holds the lock next
 *      applies them (kq_deferred(): at acquire, before a sleep, at
 *      release) before the kqueue is let go; a close's removal applies
 *      the closes and wakes a sleeper for the changes (they may
 *      allocate, and a close may be a handler's).  A sleep that finds
 *      changes left returns to its caller's rounds instead
 *      (KQ_SLEEP_AGAIN), and the consumer, which may hold
 *      unprocessed reports, applies only closes after its sleep.  So a
 *      change is never applied before earlier ones, nor left while a
 *      thread sleeps: the handler pokes the wake entry when its frame is
 *      inside kq_sleep() (kq_held asleep: counted in users, so epfd is
 *      open),
 *      and every other frame meets a kq_deferred() before it sleeps or
 *      returns.
 *   W8 Nested kqueues.  An outer kqueue hears of this one through epfd's
 *      readiness, and an edge reaches it only when a report is linked onto
 *      epfd's ready list.  An enable whose entry is already on the list (a
 *      level entry still ready for a knote a dispatch disabled) links
 *      nothing, so a kqueue another one watches (kq->watched) writes
 *      wakefd at every enable of a descriptor knote (register.c): an
 *      eventfd write always wakes epfd's pollers.
 *   W9 Numbers used without the lock.  epfd, waitfd and wakefd may move
 *      to other numbers (move.c: the program's dup2() onto one).  A thread
 *      that uses one after letting the lock go (a sleep's epoll_wait(), a
 *      poke after the unlock) reads it under the lock inside a window
 *      counted in win[] by the parity of wgen (kq_win_enter), and closes
 *      the window after taking the lock again; a signal handler counts
 *      itself in hwin[] (kq_hwin_enter).  A move changes the numbers and
 *      wgen under every kqueue's lock, then, without the locks (a handler
 *      on a sleeping thread may need them), kicks the wake entry (W8's
 *      DEL+ADD) until the old parity's windows are all closed: every
 *      sleeper wakes and comes back on the new numbers.  Only then do the
 *      entries keyed by the old number go and the number stop being
 *      libkq's.  So no epoll call ever names a number libkq gave up, and
 *      a move costs the sleepers a spurious wake-up, never a lost one.
 */
#ifndef KQ_WAKE_H
#define KQ_WAKE_H

/* Included at the end of kq.h: struct kqueue and the fd table are known. */

/* wake.c */
struct kqueue *kq_acquire_failed(struct kqueue *kq, bool locked)
	__attribute__((noinline, cold));
struct kqueue *kq_acquire_deferred(struct kqueue *kq) __attribute__((noinline, cold));
struct kqueue *kq_acquire_table(int fd, int *err) __attribute__((noinline));
void kq_release_slow(struct kqueue *kq);
bool kq_sync_wake_deferred(struct kqueue *kq);
int  kq_quiesce_wait(struct kqueue *kq);
/* Waits out a consuming sleeper (W4); -EBADF if the kqueue died. */
static inline int kq_quiesce(struct kqueue *kq)
{
	if (kq->consumer)
		return kq_quiesce_wait(kq);
	return kq->dead ? -EBADF : 0;
}
bool kq_deferred_apply(struct kqueue *kq, bool changes);
/* Applies the closes and changes signal handlers left for this kqueue
 * (W7); called with kq->lock held, before it is used or let go, never by
 * a consumer holding reports it has not processed. */
static inline void kq_deferred(struct kqueue *kq)
{
	if (__builtin_expect(atomic_load_explicit(&kq->deferred_any, memory_order_acquire), 0))
		kq_deferred_apply(kq, true);
}
/* kq_sleep()'s return when it applied handlers' changes instead of
 * sleeping (W7): the caller goes round again, as after reports that came
 * to nothing. */
#define KQ_SLEEP_AGAIN (-EAGAIN)
void kq_sync_wake(struct kqueue *kq);
/* One report of the wake entry, as an eventfd write would make: the
 * entry (edge-triggered) is enabled again, and the process's wake
 * eventfd is always readable.  Async-signal-safe. */
static inline void kq_wake_poke_fds(int epfd, int wakefd)
{
	sys_epoll_ctl(epfd, EPOLL_CTL_MOD, wakefd, EPOLLIN | EPOLLET, KQ_TAG_WAKE);
}

static inline void kq_wake_poke(struct kqueue *kq)
{
	kq_wake_poke_fds(kq->epfd, kq->wakefd);
}

/*
 * A use of epfd, waitfd or wakefd after the lock is let go (rule W9): the
 * numbers are read under the lock, inside the window, and the window
 * closes once the system call is done and the lock taken again.  A
 * descriptor's move (move.c) waits until every window opened before it
 * changed the numbers has closed: until then the old number stays its.
 */
static inline unsigned kq_win_enter(struct kqueue *kq)
{
	unsigned g = atomic_load_explicit(&kq->wgen, memory_order_relaxed) & 1;
	kq->win[g]++;
	return g;
}

static inline void kq_win_leave(struct kqueue *kq, unsigned g)
{
	kq->win[g]--;
}

/* The same for a signal handler, which may not take the lock: counted
 * first, then the parity read again, so that a move that changed it in
 * between sees the count, or this handler sees the new numbers. */
static inline unsigned kq_win_enter_atomic(atomic_uint *gen, atomic_uint win[2])
{
	for (;;) {
		unsigned g = atomic_load(gen) & 1;
		atomic_fetch_add(&win[g], 1);
		if ((atomic_load(gen) & 1) == g)
			return g;
		atomic_fetch_sub(&win[g], 1);
	}
}

static inline unsigned kq_hwin_enter(struct kqueue *kq)
{
	return kq_win_enter_atomic(&kq->wgen, kq->hwin);
}

static inline void kq_hwin_leave(struct kqueue *kq, unsigned g)
{
	atomic_fetch_sub_explicit(&kq->hwin[g], 1, memory_order_release);
}
void kq_wake_kick(struct kqueue *kq);
void kq_wake_sleepers(struct kqueue *kq);
void kq_looks_set(struct kqueue *kq, uint8_t bit, bool on);
void kq_wake_add(struct kqueue *kq, int fd);
void kq_wake_dead(struct kqueue *kq);
void kq_defer_close(struct kqueue *kq, int fd, bool self);
/* Sleeps without kq->lock (W2): the only cancellation point of kevent()
 * after its entry (W6).  Returns the reports consumed into kq->hbuf (0
 * when not consuming), KQ_SLEEP_AGAIN (W7), or -errno. */
int  kq_sleep(struct kqueue *kq, int maxev, int64_t rem, bool consume);

/* kq_acquire() once the object is known: locked, users++, or NULL with
 * *err set.  `guessed`: kq came from the thread's last kevent() rather than
 * the table, so any refusal is asked of the table again. */
static inline __attribute__((always_inline))
struct kqueue *kq_acquire_obj(struct kqueue *kq, int fd, int *err, bool guessed)
{
	/* A signal handler that interrupted this thread inside a kevent() on
	 * the same kqueue: waiting would wait for itself, and the interrupted
	 * call may be half-way through a change.  -EDEADLK sends the call to
	 * kq_reentry(), which leaves its changes to that call (W7). */
	if (__builtin_expect(!kq_held_enter(&kq->lock), 0)) {
		if (guessed)
			return kq_acquire_table(fd, err);
		return kq_acquire_reentry(kq, fd, err);
	}
	/* recorded before the lock is ours: see lock.h */
	kq_mutex_lock(&kq->lock);
	/* A live kqueue whose number is fd is the one the table names: both
	 * change together under this lock.  A recycled object (free list) now
	 * serving the same number is that number's kqueue as well.  Objects
	 * are never freed, so a stale guess is only a kqueue to let go. */
	if (__builtin_expect(kq->dead || kq->ufd != fd, 0)) {
		kq_acquire_failed(kq, true);
		if (guessed)
			return kq_acquire_table(fd, err);
		*err = -EBADF;
		return NULL;
	}
	/* Counted at once, so a consumer that wakes up sees another thread
	 * inside and does not become the consumer again (kq_quiesce). */
	kq->users++;
	*err = 0;
	if (__builtin_expect(atomic_load_explicit(&kq->deferred_any, memory_order_acquire), 0)) {
		kq = kq_acquire_deferred(kq);
		if (!kq)
			*err = -EBADF;
	}
	return kq;
}

/* Locked, users++; NULL: *err is -EBADF, or -EDEADLK (a signal handler
 * re-entering a kevent() its thread is inside: kq_reentry()).  Inline: every kevent()
 * starts here; a number other than the last two this thread entered goes
 * through the table (wake.c). */
static inline struct kqueue *kq_acquire(int fd, int *err)
{
	struct kq_held *h = kq_held_self();
	struct kqueue *kq;
	if (__builtin_expect(h->last_fd[0] == fd, 1))
		kq = h->last_kq[0];
	else if (h->last_fd[1] == fd)
		kq = h->last_kq[1];
	else
		kq = NULL;
	if (__builtin_expect(!kq, 0))
		return kq_acquire_table(fd, err);
	return kq_acquire_obj(kq, fd, err, true);
}

/* users--, unlock, maybe teardown.  The common case inline: nothing
 * deferred, nothing to free, the wake eventfd already as the ready queue
 * wants it, the kqueue alive. */
static inline void kq_release(struct kqueue *kq)
{
	if (__builtin_expect(atomic_load_explicit(&kq->deferred_any, memory_order_acquire) ||
			     kq->graveyard || kq->dead ||
			     (kq->qhead != NULL) != kq->wake_on, 0)) {
		kq_release_slow(kq);
		return;
	}
	kq->users--;
	kq_mutex_unlock(&kq->lock);
	kq_held_pop(&kq->lock);
}

#endif /* KQ_WAKE_H */
