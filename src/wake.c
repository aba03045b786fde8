/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wake-up protocol's slow paths (its rules and fast paths: wake.h):
 * the held-lock record, acquisition through the table, the consumer and
 * its quiescers, the wake descriptor, sleeping, release, and the closes a
 * signal handler defers.
 */
#include "kq.h"
#include "sys.h"

#include <pthread.h>
#include <sched.h>

__thread struct kq_held kq_held __attribute__((tls_model("initial-exec")));

/* lock.h: kq_held_pop() when m is not the top entry.  Async-signal-safe,
 * as the rest of the record. */
__attribute__((noinline, cold))
void kq_held_pop_search(struct kq_mutex *m, unsigned n)
{
	if (n > KQ_HELD_MAX) {
		kq_held.n = n - 1;
		return;
	}
	for (unsigned i = n; i-- > 0;) {
		if (kq_held.m[i] != m)
			continue;
		kq_held.m[i] = kq_held.m[n - 1];
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		kq_held.n = n - 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		kq_held.m[n - 1] = NULL;
		break;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

__attribute__((noinline, cold))
bool kq_held_find(const struct kq_mutex *m, unsigned n)
{
	for (unsigned i = 0; i < n && i < KQ_HELD_MAX; i++)
		if (kq_held.m[i] == m)
			return true;
	return false;
}

/* The rare ways out of kq_acquire(), kept out of its path. */
struct kqueue *kq_acquire_failed(struct kqueue *kq, bool locked)
{
	if (locked) {
		kq_mutex_unlock(&kq->lock);
		kq_held_pop(&kq->lock);
	}
	return NULL;
}

/* kq_acquire() by the table, which then becomes the thread's latest guess
 * (the previous latest one moves down, unless it named the same number).
 * A signal handler may run between the stores and see a mixed pair: the
 * check under the lock refuses it like any stale guess. */
struct kqueue *kq_acquire_table(int fd, int *err)
{
	struct kqueue *kq = kq_fdtab_kq(fd);
	*err = -EBADF;
	if (!kq)
		return NULL;
	kq = kq_acquire_obj(kq, fd, err, false);
	if (kq) {
		struct kq_held *h = &kq_held;
		if (h->last_fd[0] != fd) {
			h->last_fd[1] = h->last_fd[0];
			h->last_kq[1] = h->last_kq[0];
		}
		h->last_fd[0] = fd;
		h->last_kq[0] = kq;
	}
	return kq;
}

struct kqueue *kq_acquire_deferred(struct kqueue *kq)
{
	kq_deferred_apply(kq, true);
	if (!kq->dead)
		return kq;
	kq_release(kq);   /* its number was closed in a signal handler */
	return NULL;
}

/*
 * Another thread may sleep in a consuming epoll_wait() (kq_sleep): reports it
 * took are not processed yet.  Before this thread harvests, delivers or
 * changes a descriptor's epoll entry, it wakes that thread and waits until
 * it has processed them, so no report is handled out of order.  Changes that
 * touch no epoll entry (user triggers, timers) need not wait.  Returns
 * -EBADF if the kqueue was closed meanwhile.
 */
int kq_quiesce_wait(struct kqueue *kq)
{
	/* A signal handler on the consumer's own thread, inside the
	 * kqueue's lock while that thread sleeps (reentry.c): it processed
	 * what the consumer took, and waiting would wait for itself. */
	if (kq->consumer_h == kq_held_self())
		return kq->dead ? -EBADF : 0;
	/* counted, so the woken consumer does not go back to consuming
	 * before this thread had its turn (kq_scan) */
	kq->quiescers++;
	while (kq->consumer && !kq->dead) {
		kq_wake_poke(kq);
		kq_cond_wait(&kq->cond, &kq->lock);
	}
	kq->quiescers--;
	return kq->dead ? -EBADF : 0;
}

/*
 * The ready queue is mirrored into the epoll set's readiness through
 * wakefd, so that poll(), select() and outer kqueues see a kqueue with
 * queued knotes as readable, and so that threads sleeping in epoll_wait()
 * wake for knotes another thread queued.  wakefd's entry is edge-triggered:
 * each write puts one report on the set's ready list, where it stays until
 * a harvest takes it (wake_report), and the count need not be read back.
 * So a hand-off between threads costs the writer's write and the waiter's
 * epoll_wait(), and no read to drain the count once the queue is empty.
 * wake_on says a write's report may still be waiting.  A knote queued
 * while it is false needs a write, and so does one left queued by a call
 * whose harvest took the report.  A report still waiting once the queue is
 * empty (a delete of a queued knote, a call answered from the queue
 * without a harvest) would leave the kqueue readable with nothing in it:
 * the count is then read back to 0, and epoll, which asks an edge-triggered
 * entry again before reporting it, drops the report.  A write that lands
 * after its knote was taken leaves such a report behind all the same; the
 * next waiter takes it, and finds nothing.
 *
 * Returns true when the caller must write wakefd: that write is best done
 * after kq->lock is released (kq_release), or the thread it wakes
 * immediately blocks on the lock.
 */
bool kq_sync_wake_deferred(struct kqueue *kq)
{
	bool want = kq->qhead != NULL || kq->dead;
	if (want == kq->wake_on)
		return false;
	/* A quiescer's write (W4) shares the count, and the consumer may not
	 * have taken its report yet: read back, the report would be dropped,
	 * the consumer would sleep on and the quiescer wait for it for good.
	 * The report stays, and the consumer's harvest clears wake_on. */
	if (!want && kq->quiescers)
		return false;
	kq->wake_on = want;
	if (want)
		return true;
	/* muted: a report still on the ready list is dropped, as epoll
	 * asks an entry again before it reports it */
	sys_epoll_ctl(kq->epfd, EPOLL_CTL_MOD, kq->wakefd, EPOLLET, KQ_TAG_WAKE);
	return false;
}

void kq_sync_wake(struct kqueue *kq)
{
	if (kq_sync_wake_deferred(kq))
		kq_wake_poke(kq);
}

/*
 * The process's wake eventfd: written once and never read, so always
 * readable.  A kqueue's wake entry names it, edge-triggered, and each
 * EPOLL_CTL_MOD that enables the entry puts one report on the kqueue's
 * ready list (kq_wake_poke), as a write of an eventfd of its own would:
 * one descriptor for all kqueues, where each used to cost one.  Counted
 * by the live kqueues, and closed with the last, so that a program that
 * closed its kqueues holds no descriptor of libkq's.  wake_users is -1
 * while the descriptor is being made or closed (a few system calls).
 */
static atomic_int wake_fd = -1;
static atomic_int wake_users;

/*
 * Where eventfd2 is refused (a sandbox: EPERM, EACCES; a kernel built
 * without eventfds: ENOSYS), a pipe with one byte in it stands in: nobody
 * reads it, so its read end is readable for good, as the eventfd is.  Its
 * write end stays open beside it (wake_spare), out of the program's way
 * and marked the same: with no writer left the read end would also poll
 * EPOLLHUP, which epoll reports whatever an entry asks for, and a muted
 * wake entry (W1) must report nothing.  Nothing uses the write end; it
 * only moves (kq_wake_spare_move) and closes with the read end.
 */
static atomic_int wake_spare = -1;

static int wake_pipe(void)
{
	int p[2];
	int err = sys_pipe(p);
	if (err)
		return err;
	char one = 1;
	long r = sys_write(p[1], &one, 1);
	if (r != 1) {
		sys_close(p[0]);
		sys_close(p[1]);
		return r < 0 ? (int)r : -EIO;
	}
	int w = kq_fd_hide(p[1]);
	kq_fdtab_hide(w);
	atomic_store(&wake_spare, w);
	return p[0];
}

static void wake_spare_close(void)
{
	int w = atomic_exchange(&wake_spare, -1);
	if (w >= 0) {
		kq_fdtab_unhide(w);
		sys_close(w);
	}
}

int kq_wake_shared(void)
{
	for (;;) {
		int n = atomic_load(&wake_users);
		if (n > 0) {
			if (atomic_compare_exchange_weak(&wake_users, &n, n + 1))
				return atomic_load(&wake_fd);
			continue;
		}
		if (n < 0 || !atomic_compare_exchange_weak(&wake_users, &n, -1)) {
			sched_yield();
			continue;
		}
		int e = sys_eventfd();
		if (e >= 0)
			sys_eventfd_add(e, 1);
		else if (sys_refused(e))
			e = wake_pipe();
		if (e >= 0) {
			e = kq_fd_hide(e);
			kq_fdtab_hide(e);
			atomic_store(&wake_fd, e);
		}
		atomic_store(&wake_users, e >= 0 ? 1 : 0);
		return e;
	}
}

void kq_wake_shared_put(void)
{
	for (;;) {
		int n = atomic_load(&wake_users);
		if (n > 1) {
			if (atomic_compare_exchange_weak(&wake_users, &n, n - 1))
				return;
			continue;
		}
		if (n != 1 || !atomic_compare_exchange_weak(&wake_users, &n, -1)) {
			sched_yield();
			continue;
		}
		int fd = atomic_exchange(&wake_fd, -1);
		kq_fdtab_unhide(fd);
		sys_close(fd);
		wake_spare_close();
		atomic_store(&wake_users, 0);
		return;
	}
}

int kq_wake_shared_fd(void)
{
	return atomic_load(&wake_fd);
}

/* A reference taken for a move (move.c) of fd, if fd is the wake
 * eventfd; it cannot then be closed under the move. */
bool kq_wake_shared_hold(int fd)
{
	for (;;) {
		int n = atomic_load(&wake_users);
		if (n < 0) {
			sched_yield();   /* being made or closed: a few calls */
			continue;
		}
		if (n == 0 || atomic_load(&wake_fd) != fd)
			return false;
		if (!atomic_compare_exchange_weak(&wake_users, &n, n + 1))
			continue;
		if (atomic_load(&wake_fd) == fd)
			return true;
		kq_wake_shared_put();
		return false;
	}
}

void kq_wake_shared_moved(int fd)
{
	atomic_store(&wake_fd, fd);
}

/* dup2() onto the wake pipe's write end (move.c, one move at a time): it
 * goes to another number, which no epoll set or sleeper names, and fd
 * stays open for the program's dup2() to replace, as after any move.  1
 * if fd was it, 0 if not, -EBUSY when no number is free. */
int kq_wake_spare_move(int fd)
{
	if (atomic_load(&wake_spare) != fd || !kq_wake_shared_hold(atomic_load(&wake_fd)))
		return 0;
	int r = 0;
	if (atomic_load(&wake_spare) == fd) {
		int high = kq_fd_dup_high(fd);
		if (high >= 0) {
			atomic_store(&wake_spare, high);
			kq_fdtab_unhide(fd);
			r = 1;
		} else {
			r = -EBUSY;
		}
	}
	kq_wake_shared_put();
	return r;
}

/* A fork child has no kqueue, and FreeBSD's has no descriptor of its
 * parent's kqueues: the copy goes, and the child's first kqueue makes
 * its own. */
void kq_wake_shared_forget(void)
{
	int fd = atomic_exchange(&wake_fd, -1);
	if (fd >= 0)
		sys_close(fd);
	fd = atomic_exchange(&wake_spare, -1);
	if (fd >= 0)
		sys_close(fd);
	atomic_store(&wake_users, 0);
}

/*
 * A report that reaches whoever polls the kqueue's epoll set even when the
 * wake entry is already on its ready list, where an EPOLL_CTL_MOD links
 * nothing and wakes nobody (rule W8): the entry is made anew, and an
 * insertion of a ready entry always links it and wakes the set's pollers.
 * Under kq->lock, so that kq_wake_dead() cannot fall between the two.
 */
void kq_wake_kick(struct kqueue *kq)
{
	sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, kq->wakefd, 0, 0);
	kq_wake_add(kq, kq->wakefd);
}

/*
 * Threads asleep in the kqueue bounded their sleep with what the sources
 * said before it (kq_sources_sleep, kq->looks): when a source starts
 * looking, or its next look must come sooner, they are sent round again
 * by a report of the wake entry, which the woken thread's harvest takes
 * (wake_report), finding nothing.  wake_on is left as it is: set, a
 * release finding the queue empty would mute the entry (W1), and epoll
 * would drop the report before the sleeper took it.  A spare report costs
 * one round.  Under kq->lock.
 */
void kq_wake_sleepers(struct kqueue *kq)
{
	/* users counts this call too */
	if (kq->users > 1 && !kq->dead)
		kq_wake_poke(kq);
}

void kq_looks_set(struct kqueue *kq, uint8_t bit, bool on)
{
	uint8_t was = kq->looks;
	kq->looks = on ? was | bit : was & (uint8_t)~bit;
	if (on && !(was & bit))
		kq_wake_sleepers(kq);
}

/* A wake entry for the wake eventfd at number fd, ready at once:
 * edge-triggered while the kqueue lives, level once it is dead (W5). */
void kq_wake_add(struct kqueue *kq, int fd)
{
	sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLIN | (kq->dead ? 0 : EPOLLET),
		      KQ_TAG_WAKE);
}

/*
 * A kqueue that died under its sleepers must wake every one of them, and
 * every thread that goes to sleep on it afterwards.  One write is one
 * report of the edge-triggered entry, and epoll wakes one of the threads
 * waiting on a set per report (its waits are exclusive): the others would
 * sleep on.  So the entry becomes level-triggered first: while the count
 * is not zero (nobody reads it back once the kqueue is dead) the set stays
 * ready, every epoll_wait() on it returns at once, and each one that
 * returns wakes the next waiter, on the set itself and, through the set's
 * readiness, on the waitset (kq_sleep).
 */
void kq_wake_dead(struct kqueue *kq)
{
	kq->wake_on = true;
	sys_epoll_ctl(kq->epfd, EPOLL_CTL_MOD, kq->wakefd, EPOLLIN, KQ_TAG_WAKE);
}

/* A harvest took wakefd's report: a knote still queued at the end of the
 * call, or queued later, needs another write. */
static void wake_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	kq->wake_on = false;
}

const struct kq_source kq_wake_source = { .report = wake_report };

void kq_release_slow(struct kqueue *kq)
{
	kq_deferred(kq);
	/* A signal handler leaving while its thread sleeps as the consumer
	 * (reentry.c): whatever its own harvests put in the buffer is
	 * zeroed again, so that the count of what the sleep's system call
	 * takes still shows to a later handler. */
	if (__builtin_expect(kq->consumer && kq->consumer_h == kq_held_self(), 0))
		memset(kq->hbuf, 0, (size_t)kq->consumer_maxev * sizeof *kq->hbuf);
	if (kq->graveyard)
		kq_graveyard_empty(kq);
	if (!kq->dead && kq_sync_wake_deferred(kq)) {
		/* Still counted in users, so epfd stays open while we poke,
		 * and in a window (W9), so it stays at its number. */
		unsigned g = kq_win_enter(kq);
		int epfd = kq->epfd, wakefd = kq->wakefd;
		kq_mutex_unlock(&kq->lock);
		kq_wake_poke_fds(epfd, wakefd);
		kq_mutex_lock(&kq->lock);
		kq_win_leave(kq, g);
	}
	kq->users--;
	if (kq->dead && kq->users == 0 && (!kq->gprevp || kq_unlist_dead(kq))) {
		kq_teardown(kq);
	} else {
		kq_mutex_unlock(&kq->lock);
	}
	/* the object stays (free list), so its lock's address is still the
	 * entry to take out */
	kq_held_pop(&kq->lock);
}

/*
 * A signal handler closes fd while its own thread holds kq->lock, or waits
 * for it: waiting for the lock would wait for itself.  What cannot wait is
 * done now: the descriptor's epoll entries go before the real close (the
 * kernel could not name them afterwards), and a closed kqueue number stops
 * naming the kqueue.  The knotes are dropped by whoever holds the lock next
 * (kq_deferred()), before the kqueue is used or let go, so no other thread
 * ever sees them.  Called with signals blocked.
 */
void kq_defer_close(struct kqueue *kq, int fd, bool self)
{
	unsigned g = kq_hwin_enter(kq);
	if (self) {
		kq_fdtab_set_kq(fd, NULL);
		/* a thread of ours asleep in it wakes and finds it dead (the
		 * others, once kq_deferred_apply() marks it: kq_wake_dead) */
		kq_wake_poke(kq);
	} else {
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, fd, 0, 0);
		int wrfd = __atomic_load_n(&kq->wrfd, __ATOMIC_RELAXED);
		if (wrfd >= 0)
			sys_epoll_ctl(wrfd, EPOLL_CTL_DEL, fd, 0, 0);
	}
	kq_hwin_leave(kq, g);
	int v = (fd + 1) | (self ? KQ_DEFER_SELF : 0);
	for (unsigned i = 0; i < KQ_DEFER_MAX; i++) {
		int free = 0;
		if (atomic_compare_exchange_strong(&kq->deferred[i], &free, v))
			break;
	}
	/* More than KQ_DEFER_MAX closes in one handler's run: the rest keep
	 * their knotes as after a close libkq never saw (their entries are
	 * gone, so they report nothing). */
	atomic_store_explicit(&kq->deferred_any, true, memory_order_release);
}

/* Applies what signal handlers left (W7): the closes, and the changes
 * when `changes` (else they stay, and so does deferred_any).  Returns
 * whether changes were applied. */
bool kq_deferred_apply(struct kqueue *kq, bool changes)
{
	atomic_store_explicit(&kq->deferred_any, false, memory_order_seq_cst);
	for (unsigned i = 0; i < KQ_DEFER_MAX; i++) {
		int v = atomic_exchange(&kq->deferred[i], 0);
		if (!v)
			continue;
		int fd = (v & ~KQ_DEFER_SELF) - 1;
		if (!(v & KQ_DEFER_SELF)) {
			/* its entries went before the close */
			kq->entries_die = true;
			kq_drop_fd(kq, fd);
			kq->entries_die = false;
		} else if (!kq->dead && kq->ufd == fd) {
			kq->dead = true;
			kq->ufd = -1;
			kq_wake_dead(kq);
		}
	}
	if (changes)
		return kq_hchanges_apply(kq);
	if (kq_hchanges_pending(kq))
		atomic_store_explicit(&kq->deferred_any, true, memory_order_release);
	return false;
}

/* A cancelled waiter holds no lock; it must give back its kevent() use
 * (and its consumer role: what it took is lost with it, as a cancelled
 * FreeBSD kevent() loses nothing it had not yet copied out). */
struct sleeper {
	struct kqueue *kq;
	bool           consume;
	unsigned       bit;      /* kq_held_sleeping() */
	unsigned       win;      /* kq_win_enter() */
};

static void sleep_cancelled(void *arg)
{
	struct sleeper *sl = arg;
	struct kqueue *kq = sl->kq;
	kq_held_unlocked(sl->bit, false);
	kq_mutex_lock(&kq->lock);
	kq_win_leave(kq, sl->win);
	kq_held_awake(sl->bit);
	if (sl->consume) {
		kq->consumer_h = NULL;
		kq->robbed = false;
		/* the system call may have written reports nobody counted
		 * (kq->hdirty): the next sleep zeroes all its room again */
		kq_hbuf_taken(kq, kq->consumer_maxev);
	}
	/* only its own role: a waitset sleeper leaves the consumer be */
	if (sl->consume) {
		kq->consumer = false;
		kq_cond_broadcast(&kq->cond);
	}
	kq_release(kq);
}

/* A set holding only the kqueue's epoll fd: sleeping on it waits for the
 * kqueue to have something, without taking any report out of it. */
static int waitset(struct kqueue *kq)
{
	if (kq->waitfd >= 0)
		return kq->waitfd;
	int fd = sys_epoll_create();
	if (fd < 0)
		return fd;
	fd = kq_fd_hide(fd);
	int err = sys_epoll_ctl(fd, EPOLL_CTL_ADD, kq->epfd, EPOLLIN, 0);
	if (err) {
		sys_close(fd);
		return err;
	}
	kq_fdtab_hide(fd);
	kq->waitfd = fd;
	return fd;
}

/*
 * Sleeps without kq->lock until the kqueue may have something; the only
 * cancellation point of kevent() after its entry (api.c, kevent_call).
 *
 * Reports of edge-triggered entries exist once.  A thread that took one in
 * epoll_wait() and has not processed it yet must not be overtaken by another
 * thread's harvest or EV_ENABLE, or one activation is delivered twice (an
 * older report processed after a newer one, or after the re-poll of an
 * enable).  So one thread at a time sleeps in a consuming epoll_wait() on
 * the set itself (one system call), marked as the consumer; a thread about
 * to harvest, deliver or change a descriptor's entry meanwhile wakes it and
 * waits until it has processed its reports (kq_quiesce).  Other sleepers
 * wait on the waitset, which consumes nothing (epoll still wakes one waiter
 * at a time), and take reports under the lock after quiescing.
 * Returns the number of reports consumed into kq->hbuf, or -errno.
 */
int kq_sleep(struct kqueue *kq, int maxev, int64_t rem, bool consume)
{
	int r;
	int fd = kq->epfd;   /* under the lock, and used in a window (W9) */
	struct epoll_event one, *evs = kq->hbuf;
	/* entries that would report at once (filter/fd.c, park_quiet); a
	 * consumer owns every report, so none is taken from under it */
	if (consume && __builtin_expect(kq->nparked != 0, 0))
		kq_fd_park_flush(kq);
	if (!consume) {
		fd = waitset(kq);
		if (fd < 0)
			return fd;
		evs = &one;   /* kq->hbuf belongs to the consumer now */
	}
	/* Marked before the changes are looked for: a handler that comes
	 * after the look writes wakefd, one before it is seen (W7). */
	unsigned bit = kq_held_sleeping(&kq->lock);
	if (__builtin_expect(atomic_load_explicit(&kq->deferred_any, memory_order_seq_cst), 0) &&
	    kq_deferred_apply(kq, true)) {
		kq_held_awake(bit);
		return KQ_SLEEP_AGAIN;
	}
	kq->consumer = consume;
	if (consume) {
		/* Zeroed, so that a handler on this thread can tell how many
		 * reports the system call took (reentry.c): epoll reports no
		 * entry with no events.  Entries from kq->hdirty on hold no
		 * report already (every epoll call into the buffer raises it
		 * to its count: scan.c), so only those below it are. */
		int dirty = kq->hdirty;
		memset(evs, 0, (size_t)(dirty < maxev ? dirty : maxev) * sizeof *evs);
		if (dirty <= maxev)
			kq->hdirty = 0;
		kq->consumer_h = kq_held_self();
		kq->consumer_maxev = maxev;
	}
	kq_sync_wake(kq);
	struct sleeper sl = { kq, consume, bit, kq_win_enter(kq) };
	kq_mutex_unlock(&kq->lock);
	kq_held_unlocked(bit, true);
	pthread_cleanup_push(sleep_cancelled, &sl);
	r = kq_epoll_wait(fd, evs, consume ? maxev : 1, rem);
	pthread_cleanup_pop(0);
	kq_held_unlocked(bit, false);
	kq_prefetch_hint(kq);
	kq_mutex_lock(&kq->lock);
	kq_win_leave(kq, sl.win);
	if (consume) {
		kq_hbuf_taken(kq, r);
		kq->consumer_h = NULL;
		if (__builtin_expect(kq->robbed, 0)) {
			/* a handler processed what the call took */
			kq->robbed = false;
			kq->consumer = false;
			kq_cond_broadcast(&kq->cond);
			r = KQ_SLEEP_AGAIN;
		}
	}
	/* a consumer's reports are not processed yet: closes only */
	if (__builtin_expect(atomic_load_explicit(&kq->deferred_any, memory_order_acquire), 0))
		kq_deferred_apply(kq, !consume || r == KQ_SLEEP_AGAIN);
	kq_held_awake(bit);
	if (!consume)
		return r < 0 ? r : 0;
	return r;
}
