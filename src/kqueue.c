/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kqueue object: creation, the lookup that every kevent() starts with,
 * and teardown when the user closes the descriptor.
 *
 * The descriptor handed to the user IS an epoll fd, so poll/select/epoll on it
 * work and it nests in other kqueues.  The library itself works on a private
 * dup of it (kq->epfd): when the user closes the number while another thread
 * is still inside kevent(), that thread must never issue epoll calls on a
 * number that may already name someone else's file.
 */
#include "kq.h"
#include "sys.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Both global locks are only ever held with signals blocked
 * (kq_signals_block): close() from a signal handler takes them too. */
pthread_mutex_t kq_glock = PTHREAD_MUTEX_INITIALIZER;
struct kqueue *kq_live;              /* kq_glock */
/* A leaf lock: teardown may run while an outer kqueue's lock is held (a
 * nested kqueue's last user), where taking kq_glock would invert the order. */
static pthread_mutex_t kq_freelock = PTHREAD_MUTEX_INITIALIZER;
static struct kqueue *kq_freelist;   /* kq_freelock */

/*
 * Kqueue ids: a close() looks up which kqueues hold the number it closes
 * (fdtab.c keeps a bit per id) and visits those alone, so a thread closing
 * its own sockets never takes, or waits for, the lock of a kqueue another
 * thread is harvesting.  An id stays taken from creation to teardown, after
 * the kqueue's knotes (and so its bits) are gone; a kqueue made while all
 * are taken has none, and closes of numbers it holds visit every kqueue.
 * The objects are never freed (free list), so a lookup that races with a
 * teardown locks a kqueue that is dead or reborn, which is harmless.
 */
static _Atomic(struct kqueue *) kq_byid[KQ_IDS];
static atomic_ullong kq_ids_used;

static void id_take(struct kqueue *kq)
{
	unsigned long long m = atomic_load(&kq_ids_used);
	do {
		if (~m == 0) {
			kq->id = -1;
			return;
		}
		kq->id = __builtin_ctzll(~m);
	} while (!atomic_compare_exchange_weak(&kq_ids_used, &m, m | 1ull << kq->id));
	atomic_store(&kq_byid[kq->id], kq);
}

static void id_give(struct kqueue *kq)
{
	if (kq->id < 0)
		return;
	atomic_store(&kq_byid[kq->id], NULL);
	atomic_fetch_and(&kq_ids_used, ~(1ull << kq->id));
	kq->id = -1;
}

static void list_insert(struct kqueue **head, struct kqueue *kq)
{
	kq->gnext = *head;
	if (*head)
		(*head)->gprevp = &kq->gnext;
	*head = kq;
	kq->gprevp = head;
}

static void list_remove(struct kqueue *kq)
{
	if (!kq->gprevp)
		return;
	*kq->gprevp = kq->gnext;
	if (kq->gnext)
		kq->gnext->gprevp = kq->gprevp;
	kq->gnext = NULL;
	kq->gprevp = NULL;
}

/* kq.h: what every change reads stays in the struct's first cache line */
_Static_assert(offsetof(struct kqueue, qhead) + sizeof(struct knote *) <= 64,
	       "struct kqueue: the fields every change reads outgrew one cache line");

static void free_list_put(struct kqueue *kq)
{
	sigset_t old;
	kq_signals_block(&old);
	pthread_mutex_lock(&kq_freelock);
	list_insert(&kq_freelist, kq);
	pthread_mutex_unlock(&kq_freelock);
	kq_signals_restore(&old);
}

static struct kqueue *kq_obtain(void)
{
	sigset_t old;
	kq_signals_block(&old);
	pthread_mutex_lock(&kq_freelock);
	struct kqueue *kq = kq_freelist;
	if (kq)
		list_remove(kq);
	pthread_mutex_unlock(&kq_freelock);
	kq_signals_restore(&old);
	if (kq)
		return kq;
	/* aligned, so the first line of the struct is one cache line */
	size_t size = (sizeof *kq + 63) & ~(size_t)63;
	kq = aligned_alloc(64, size);
	if (kq)
		memset(kq, 0, size);   /* all zero: lock free, no waiters */
	return kq;
}

/* Pulls the libc replacements (libc/) out of libkq.a together with this
 * file (libc/close.c).  A build without them (KQ_LIBC_REPLACEMENTS=OFF)
 * has no such objects to pull. */
#if KQ_LIBC_REPLACEMENTS
__attribute__((used)) static const char *const kq_interpose_ref[] = {
	&kq_close_anchor, &kq_vfork_anchor, &kq_sockio_anchor, &kq_births_anchor,
	&kq_spawn_anchor, &kq_signal_anchor,
};
#endif

int kq_create(int flags)
{
	(void)flags;   /* every kqueue is close-on-exec; O_NONBLOCK has no effect */
	int ufd = -1, epfd = -1, wakefd = -1, err;

	ufd = sys_epoll_create();
	if (ufd < 0)
		return ufd;
	/* The kernel has just given out this number, so whatever libkq still
	 * records for it (a kqueue, knotes, a socket's birth or kept error)
	 * outlived a close it did not see: a raw system call, or any close
	 * in a build without the libc replacements.  Release it now, as
	 * that close would have (see kq_fd_closing); otherwise the old
	 * kqueue's descriptors and memory would stay behind for good. */
	kq_fd_reborn(ufd);
	epfd = kq_fd_dup_high(ufd);
	if (epfd < 0) {
		err = epfd;
		goto fail;
	}
	wakefd = kq_wake_shared();
	if (wakefd < 0) {
		err = wakefd;
		goto fail;
	}
	/* muted until the first wake (wake.c, kq_wake_poke) */
	err = sys_epoll_ctl(epfd, EPOLL_CTL_ADD, wakefd, EPOLLET, KQ_TAG_WAKE);
	if (err < 0)
		goto fail;

	struct kqueue *kq = kq_obtain();
	if (!kq) {
		err = -ENOMEM;
		goto fail;
	}
	kq_mutex_lock(&kq->lock);
	kq->id = -1;
	if (kq_harvest_init(kq) < 0) {
		kq_mutex_unlock(&kq->lock);
		free_list_put(kq);
		err = -ENOMEM;
		goto fail;
	}
	kq->epfd = epfd;
	kq->ufd = ufd;
	kq->wakefd = wakefd;
	kq->dead = false;
	kq->wake_on = false;
	kq->users = 0;
	kq->consumer = false;
	kq->consumer_h = NULL;
	kq->robbed = false;
	kq->quiescers = 0;
	kq->waitfd = -1;
	kq->win[0] = kq->win[1] = 0;
	atomic_store_explicit(&kq->hwin[0], 0, memory_order_relaxed);
	atomic_store_explicit(&kq->hwin[1], 0, memory_order_relaxed);
	kq->mnext = NULL;
	kq->deliverer = NULL;
	kq->shared = false;
	__atomic_store_n(&kq->watched, false, __ATOMIC_RELAXED);
	kq->qhead = NULL;
	kq->qtailp = &kq->qhead;
	kq->qcount = 0;
	kq->fds = NULL;
	kq->nfds = 0;
	kq->hash = NULL;
	kq->hsize = 0;
	kq->hcount = 0;
	kq->slabs = NULL;
	kq->nknotes = 0;
	kq->skips = 0;
	kq->defer_arm = false;
	kq->vnodes = NULL;
	kq->mounts = NULL;
	kq->ring = NULL;
	kq->efdinfo = NULL;
	kq->fd_oneshot = false;
	kq->wrfd = -1;
	kq->diagfd = -1;
	kq->timers = NULL;
	kq->sigs = NULL;
	kq->procs = NULL;
	kq->rechecks = NULL;
	kq->no_free = false;
	kq->graveyard = NULL;
	kq->exact_eof = kq_fd_exact_eof();
	kq->looks = 0;
	id_take(kq);
	for (unsigned i = 0; i < KQ_DEFER_MAX; i++)
		atomic_store_explicit(&kq->deferred[i], 0, memory_order_relaxed);
	kq_hchanges_init(kq);
	atomic_store_explicit(&kq->deferred_any, false, memory_order_relaxed);
	kq_mutex_unlock(&kq->lock);

	sigset_t old;
	kq_signals_block(&old);
	pthread_mutex_lock(&kq_glock);
	list_insert(&kq_live, kq);
	/* The wake eventfd moved (move.c) after this kqueue took its number,
	 * and the move did not see this kqueue: it follows here.  The old
	 * number may be the program's file by now, and the DEL then finds
	 * no entry or takes away the one the ADD above made for that file. */
	int w = kq_wake_shared_fd();
	if (__builtin_expect(w != wakefd, 0)) {
		kq_mutex_lock(&kq->lock);
		kq_entry_rekey(kq, wakefd, w, EPOLLIN | EPOLLET, KQ_TAG_WAKE);
		kq->wakefd = w;
		kq_mutex_unlock(&kq->lock);
	}
	pthread_mutex_unlock(&kq_glock);
	kq_signals_restore(&old);
	kq_fdtab_set_kq(ufd, kq);
	return ufd;
fail:
	if (wakefd >= 0)
		kq_wake_shared_put();
	if (epfd >= 0)
		kq_fdtab_unhide(epfd);
	if (epfd >= 0)
		sys_close(epfd);
	sys_close(ufd);
	return err;
}

/*
 * A close libkq does not see (a raw system call, or any close in a build
 * without the libc replacements) leaves a kqueue recorded at a number the
 * kernel may since have given to another file.  kcmp() tells exactly
 * whether the number still names the kqueue's epoll set (its private copy,
 * epfd, is the same open file).  Where kcmp() is missing (a kernel without
 * it, a seccomp filter) an anonymous inode (no file type in st_mode) is
 * taken for the kqueue: the sockets, pipes, ttys and files a number usually
 * goes to next are not, but an eventfd, a timerfd or another epoll set
 * would be.  One system call, only for a number recorded as a kqueue.
 */
static bool anon_inode(int fd)
{
	struct stat st;
	return sys_fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) == 0;
}

static bool names_kqueue(const struct kqueue *kq, int fd)
{
	long r;
	int epfd;
	/* Read without the kqueue's lock: epfd may move (move.c), and the
	 * old number then go to the program's file.  The number changes
	 * before that happens, so a comparison made with the old number
	 * after it did is caught by the second look. */
	do {
		epfd = __atomic_load_n(&kq->epfd, __ATOMIC_ACQUIRE);
		if (epfd < 0)
			return false;
		r = sys_same_file(fd, epfd);
	} while (r != 0 && __atomic_load_n(&kq->epfd, __ATOMIC_ACQUIRE) != epfd);
	if (r >= 0)
		return r == 0;
	if (r == -EBADF)
		return false;
	return anon_inode(fd);
}

bool kq_is_kqueue_fd(int fd)
{
	struct kqueue *kq = kq_fdtab_kq(fd);
	return kq != NULL && names_kqueue(kq, fd);
}

/* Called locked with dead set, users == 0 and kq off the live list. */
void kq_teardown(struct kqueue *kq)
{
	kq_drop_all(kq);
	id_give(kq);
	kq_graveyard_empty(kq);
	kq_slabs_fini(kq);
	kq_filters_fini(kq);
	kq_sources_fini(kq);
	free(kq->fds);
	free(kq->hash);
	free(kq->hbuf);
	kq->hbuf = NULL;
	kq->hbufcap = 0;
	kq->fds = NULL;
	kq->hash = NULL;
	kq->nfds = kq->hsize = kq->hcount = 0;
	kq_uring_free(kq->ring);
	kq->ring = NULL;
	if (kq->waitfd >= 0) {
		kq_fdtab_unhide(kq->waitfd);
		sys_close(kq->waitfd);
	}
	kq_fdtab_unhide(kq->epfd);
	sys_close(kq->epfd);
	kq_wake_shared_put();
	kq->wakefd = kq->epfd = kq->waitfd = -1;
	kq_mutex_unlock(&kq->lock);
	free_list_put(kq);
}

/* A kqueue whose number was closed by a signal handler (kq_deferred_apply)
 * is still on the live list when its last user leaves: kq_glock comes
 * before kq->lock, so let go and take both in order.  The user count held
 * meanwhile keeps anyone else from tearing it down.  Returns with kq->lock
 * held; true if this thread is still its last user. */
bool kq_unlist_dead(struct kqueue *kq)
{
	kq->users++;
	kq_mutex_unlock(&kq->lock);
	sigset_t old;
	kq_signals_block(&old);
	pthread_mutex_lock(&kq_glock);
	kq_mutex_lock(&kq->lock);
	list_remove(kq);
	pthread_mutex_unlock(&kq_glock);
	kq_signals_restore(&old);
	return --kq->users == 0;
}

/*
 * Drops fd's knotes in kq.  A kevent() harvesting kq in another thread is
 * waited for, as FreeBSD's close waits for a knote in flux: its queries
 * and epoll changes on fd must see the file they were made for.
 */
static void close_in(struct kqueue *kq, int fd, bool entries_die)
{
	/* Recorded as held before it is tried (lock.h), so that a signal
	 * handler interrupting this close defers its own close on kq rather
	 * than wait for us: no signal mask, which would cost two system calls
	 * per close. */
	if (!kq_held_enter(&kq->lock)) {
		kq_defer_close(kq, fd, false);
		return;
	}
	kq_mutex_lock(&kq->lock);
	if (!kq->dead) {
		kq->entries_die = entries_die;
		kq->no_free = true;
		kq_drop_fd(kq, fd);
		kq->entries_die = false;
		/* What a handler that interrupted this close left (wake.h,
		 * W7): its closes now, still freeing nothing (this close may
		 * be a handler's itself).  Its changes may allocate: they
		 * wait for a kevent(), and a sleeper is woken to make them. */
		if (atomic_load_explicit(&kq->deferred_any, memory_order_acquire)) {
			kq_deferred_apply(kq, false);
			if (kq_hchanges_pending(kq))
				kq_wake_poke(kq);
		}
		kq->no_free = false;
		kq_sync_wake(kq);
	}
	kq_mutex_unlock(&kq->lock);
	kq_held_pop(&kq->lock);
}

/*
 * The user is about to close fd (close, dup2 onto it, close_range...).
 * BSD removes every knote keyed by that number in every kqueue, and a kqueue
 * whose descriptor is closed is destroyed.  Runs before the real close so the
 * epoll entries can still be removed while the number names the file --
 * unless this descriptor is known to be its file's only one (fdtab.c,
 * births): the close then frees the file, and the kernel removes its epoll
 * entries itself, so the EPOLL_CTL_DELs are skipped (reports already
 * queued for them die with the slot's generation).  Only the kqueues that
 * hold the number are visited (kqueue ids, above), so a thread's closes
 * never wait for a harvest of a kqueue that does not watch the number.
 */
static void closing(int fd, bool reborn)
{
	if (!kq_fdtab_busy(fd))
		return;
	/* a number of libkq's own, closed behind its back and given out
	 * again: it is the program's now */
	if (reborn)
		kq_fdtab_unhide(fd);
	/* a vfork() child closing the number closes its own copy only */
	if (kq_foreign_process())
		return;
	bool entries_die = reborn || kq_fdtab_private(fd);
	kq_fdtab_clear(fd);
	unsigned long long ids;
	int holders = kq_fdtab_holders(fd, &ids);
	bool interest = holders > 0;
	struct kqueue *self = kq_fdtab_kq(fd);
	if (!interest && !self)
		return;   /* a socket's birth, nothing else: no lock taken */

	if (interest && holders == __builtin_popcountll(ids)) {
		for (; ids; ids &= ids - 1) {
			struct kqueue *kq = atomic_load(&kq_byid[__builtin_ctzll(ids)]);
			if (kq)
				close_in(kq, fd, entries_die);
		}
		interest = false;
		if (!self)
			return;
	}
	/* kq_glock is held with signals blocked (kq.h) */
	sigset_t old;
	kq_signals_block(&old);
	pthread_mutex_lock(&kq_glock);
	if (interest)
		for (struct kqueue *kq = kq_live; kq; kq = kq->gnext)
			close_in(kq, fd, entries_die);
	self = kq_fdtab_kq(fd);
	if (self && kq_held_mine(&self->lock)) {
		kq_defer_close(self, fd, true);
	} else if (self) {
		kq_mutex_lock(&self->lock);
		if (!self->dead && self->ufd == fd) {
			self->dead = true;
			self->ufd = -1;
			kq_fdtab_set_kq(fd, NULL);
			list_remove(self);
			if (self->users == 0) {
				kq_teardown(self);
				self = NULL;
			} else {
				/* waiters in epoll_wait() wake and return EBADF */
				kq_wake_dead(self);
			}
		}
		if (self)
			kq_mutex_unlock(&self->lock);
	}
	pthread_mutex_unlock(&kq_glock);
	kq_signals_restore(&old);
}

/* -EBADF for a number libkq holds for itself, which the program's close
 * must leave open, as it would find it free on FreeBSD. */
int kq_fd_closing(int fd)
{
	if (__builtin_expect(kq_fdtab_busy(fd), 0) && kq_fd_hidden_live(fd))
		return -EBADF;
	closing(fd, false);
	return 0;
}

/*
 * The kernel has just given out fd (a socket, an accepted connection, a
 * kqueue), so whatever libkq still holds for the number outlived a close it
 * did not see (a raw system call; libuv closes that way): release it as
 * that close would have.  The old file's epoll entries cannot be named any
 * more (the number is the new file's), so no EPOLL_CTL_DEL is tried: the
 * new file's first knote then costs one ADD, not failed MODs and a DEL.
 */
void kq_fd_reborn(int fd)
{
	closing(fd, true);
}

/* ---- fork (see fork.c) ---- */

/* Before fork(): hold every lock, so the child sees consistent state.
 * Kqueue locks are only ordered outer-before-inner for nested kqueues,
 * which the live list does not follow, so they are taken all-or-nothing:
 * after a failed round, wait for the contended lock while holding no other
 * (which cannot deadlock, and cannot be starved by a thread that keeps
 * re-taking it), then try the rest again.  kq_glock keeps the list fixed. */
void kq_fork_prepare_kqueues(void)
{
	pthread_mutex_lock(&kq_glock);
	kq_lock_all();
	pthread_mutex_lock(&kq_freelock);
}

void kq_fork_parent_kqueues(void)
{
	pthread_mutex_unlock(&kq_freelock);
	kq_unlock_all();
	pthread_mutex_unlock(&kq_glock);
}

void kq_lock_all(void)
{
	struct kqueue *held = NULL;
	for (;;) {
		struct kqueue *kq, *failed = NULL;
		if (held)
			kq_mutex_lock(&held->lock);
		for (kq = kq_live; kq; kq = kq->gnext) {
			if (kq != held && !kq_mutex_trylock(&kq->lock)) {
				failed = kq;
				break;
			}
		}
		if (!failed)
			break;
		for (kq = kq_live; kq != failed; kq = kq->gnext)
			if (kq != held)
				kq_mutex_unlock(&kq->lock);
		if (held)
			kq_mutex_unlock(&held->lock);
		held = failed;
	}
}

void kq_unlock_all(void)
{
	for (struct kqueue *kq = kq_live; kq; kq = kq->gnext)
		kq_mutex_unlock(&kq->lock);
}

/* In the child: every kqueue is gone (BSD).  Their descriptors are closed,
 * including the number the program held, which is free again; their memory
 * is abandoned rather than freed (threads that were using it do not exist
 * here, and freeing it buys nothing before exec or exit). */
void kq_fork_child_kqueues(void)
{
	for (struct kqueue *kq = kq_live; kq; kq = kq->gnext) {
		kq_filters_forget(kq);
		kq_sources_forget(kq);
		kq_uring_free(kq->ring);
		kq->ring = NULL;
		if (kq->waitfd >= 0)
			sys_close(kq->waitfd);
		/* not a file that has the number since a close libkq did not
		 * see: the child keeps that (names_kqueue, before epfd goes) */
		if (kq->ufd >= 0 && names_kqueue(kq, kq->ufd))
			sys_close(kq->ufd);
		sys_close(kq->epfd);   /* the wake eventfd is the process's */
		kq->dead = true;
		kq->ufd = -1;
	}
	kq_live = NULL;
	kq_wake_shared_forget();
	for (unsigned i = 0; i < KQ_IDS; i++)
		atomic_store(&kq_byid[i], NULL);
	atomic_store(&kq_ids_used, 0);
	kq_fdtab_forget_all();
	/* taken by this thread in the prepare handler: let go, as the move
	 * lock and the signal lock are (fork.c), rather than made anew,
	 * which ThreadSanitizer takes for a lock still held, and then for
	 * an inverted order at the child's own next fork */
	pthread_mutex_unlock(&kq_freelock);
	pthread_mutex_unlock(&kq_glock);
}
