/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dup2() or dup3() onto a number libkq holds for itself (hide.c).  On
 * FreeBSD that number is free and the program's descriptor lands there;
 * here libkq's descriptor first moves to another number, and the caller
 * then makes the real call.
 *
 * What may sit there: a kqueue's private epoll copy (epfd), its waitset
 * (waitfd), the process's wake eventfd (every kqueue's wakefd; or the
 * read end of the pipe standing in for it, and its write end), or a
 * parked inotify instance, or a filter's own descriptor (kq_fd_own(): a
 * timerfd, a split WRITE set, a netlink socket, an io_uring ring, a
 * pidfd, the inotify instance or fanotify group in use, a directory
 * handle of a fanotify parent entry, an eventfd's kept fdinfo file, the
 * process's spare fdinfo file, the signalfd,
 * and the signal eventfd, which libkq's signal handler writes in a
 * process-wide window of the same kind).  The numbers are changed under every kqueue's
 * lock (as before a fork).  What makes a move more than a renumbering are
 * the threads that use a number without the lock (wake.h, rule W9): a
 * sleep's epoll_wait(), a poke after the unlock, a signal handler's
 * EPOLL_CTL calls.  They read the number inside a window counted under
 * the parity of the kqueue's wgen; the move turns the parity, and the old
 * number stays libkq's until the old parity's windows have all closed.
 * A sleeper's window lasts its sleep, so the move wakes the sleepers
 * (kq_wake_kick: a spurious wake-up, which kevent() absorbs) until none
 * is left in an old window.  Only then do the entries keyed by the old
 * number go (an epoll entry is named by file and number: the wake
 * eventfd's entry in each epoll set, the epoll copy's in the waitset),
 * the number stop being libkq's, and the program's call follow.
 *
 * Refused with EBUSY, as before, when the calling thread is itself inside
 * a kevent() (a signal handler that interrupted one): waiting for the
 * windows would wait for itself.  A kqueue off the live list (being made,
 * or closed while threads were inside it) is waited for: it is on it, or
 * gone, within moments (a second at most, then EBUSY).  Signals are blocked throughout, and
 * moves are one at a time; a fork waits for a move to end (fork.c).
 */
#include "kq.h"
#include "sys.h"

#include <fcntl.h>
#include <time.h>

static pthread_mutex_t move_lock = PTHREAD_MUTEX_INITIALIZER;

void kq_move_lock(void)
{
	pthread_mutex_lock(&move_lock);
}

/* A signal handler whose thread is inside a kevent(), which a move may be
 * waiting for (efdinfo.c): the lock only if nobody holds it. */
bool kq_move_trylock(void)
{
	return pthread_mutex_trylock(&move_lock) == 0;
}

void kq_move_unlock(void)
{
	pthread_mutex_unlock(&move_lock);
}

enum what { NONE, EPFD, WAITFD, WAKEFD, FILTER, SIGNAL, SPARE };

/* An epoll entry in kq's set named by the new number, and the one named
 * by the old gone (which still names the same file): a readiness the old
 * one had, the new one reports (an edge-triggered one, once more). */
void kq_entry_rekey(struct kqueue *kq, int old, int new, uint32_t events, uint64_t tag)
{
	sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, new, events, tag);
	sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, old, 0, 0);
}

/* A filter's own descriptor (kq_fd_own()) of kq's, renumbered: used under
 * the lock only, but for the split WRITE set, which a signal handler's
 * close may name (kq_defer_close(), in a window). */
static bool renumber_filter(struct kqueue *kq, int old, int new)
{
	if (kq->wrfd == old) {
		kq_entry_rekey(kq, old, new, EPOLLIN, KQ_TAG_WRSET);
		__atomic_store_n(&kq->wrfd, new, __ATOMIC_RELAXED);
		return true;
	}
	if (kq->diagfd == old) {
		kq->diagfd = new;
		return true;
	}
	return kq_timer_renumber(kq, old, new) || kq_proc_renumber(kq, old, new) ||
	       kq_vnode_renumber(kq, old, new) || kq_uring_renumber(kq->ring, old, new) ||
	       kq_efdinfo_renumber(kq, old, new);
}

/* Under kq_glock and every kqueue's lock: the new number in place of the
 * old where kq uses it.  An entry keyed by the new number joins the one
 * keyed by the old, which goes at the end (finish()).  A wake entry made
 * anew is ready at once: wake_on says that a report may wait (W1), and
 * its taker finds at most nothing to do. */
static bool renumber(struct kqueue *kq, enum what w, int old, int new)
{
	switch (w) {
	case EPFD:
		if (kq->epfd != old)
			return false;
		if (kq->waitfd >= 0)
			sys_epoll_ctl(kq->waitfd, EPOLL_CTL_ADD, new, EPOLLIN, 0);
		__atomic_store_n(&kq->epfd, new, __ATOMIC_RELEASE);
		return true;
	case WAITFD:
		if (kq->waitfd != old)
			return false;
		kq->waitfd = new;
		return true;
	case WAKEFD:
		if (kq->wakefd != old)
			return false;
		kq_wake_add(kq, new);
		kq->wakefd = new;
		kq->wake_on = true;
		return true;
	case FILTER:
		return renumber_filter(kq, old, new);
	default:
		return false;
	}
}

/* Whether a window opened before the move (the parity before the move's
 * turn) is still open in kq; if so its sleepers are woken, and will come
 * back to sleep in windows of the new parity. */
static bool windows_open(struct kqueue *kq)
{
	kq_mutex_lock(&kq->lock);
	unsigned par = (atomic_load(&kq->wgen) & 1) ^ 1;
	bool open = kq->win[par] != 0 || atomic_load(&kq->hwin[par]) != 0;
	if (open) {
		kq_wake_kick(kq);
		kq->wake_on = true;
	}
	kq_mutex_unlock(&kq->lock);
	return open;
}

/* The entries keyed by the old number go while it still names libkq's
 * file, and the kqueue is let go as by any kevent() (it was held, in
 * users, so that it could not be torn down meanwhile). */
static void finish(struct kqueue *kq, enum what w, int old)
{
	kq_held_enter(&kq->lock);
	kq_mutex_lock(&kq->lock);
	if (w == EPFD && kq->waitfd >= 0)
		sys_epoll_ctl(kq->waitfd, EPOLL_CTL_DEL, old, 0, 0);
	if (w == WAKEFD)
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, old, 0, 0);
	kq_release(kq);
}

static int move_out(int fd)
{
	int kind = kq_fd_hidden_kind(fd);
	if (kind == KQ_OWN_NONE)
		return 0;   /* not libkq's any more */
	int r = kq_vnode_pool_move(fd);
	if (r == 0)
		r = kq_wake_spare_move(fd);
	if (r != 0)
		return r < 0 ? -EBUSY : 0;
	enum what w = kq_wake_shared_hold(fd) ? WAKEFD : NONE;
	int new = kq_fd_dup_high(fd);
	if (new < 0) {
		if (w == WAKEFD)
			kq_wake_shared_put();
		return -EBUSY;
	}

	pthread_mutex_lock(&kq_glock);
	kq_lock_all();
	if (w == NONE)
		for (struct kqueue *kq = kq_live; kq && w == NONE; kq = kq->gnext)
			w = kq->epfd == fd ? EPFD : kq->waitfd == fd ? WAITFD : NONE;
	if (w == NONE && kq_signal_owns(fd))
		w = SIGNAL;
	/* the process's spare fdinfo file: used under a kqueue's lock or the
	 * move lock only, so no window to wait for */
	if (w == NONE && kq_efdinfo_spare_renumber(fd, new))
		w = SPARE;
	if (w == NONE)
		w = FILTER;   /* renumber() finds it, or nothing does */
	struct kqueue *held = NULL;
	bool found = w == SPARE || (w == SIGNAL && kq_signal_renumber(fd, new));
	for (struct kqueue *kq = kq_live; kq && w != SIGNAL && w != SPARE; kq = kq->gnext) {
		if (!renumber(kq, w, fd, new))
			continue;
		found = true;
		atomic_fetch_add(&kq->wgen, 1);
		kq->users++;
		kq->mnext = held;
		held = kq;
	}
	/* The wake eventfd moves even if no listed kqueue names it: one
	 * being made follows when it is listed (kq_create). */
	if (w == WAKEFD)
		kq_wake_shared_moved(new);
	kq_unlock_all();
	pthread_mutex_unlock(&kq_glock);

	if (!found && w != WAKEFD) {
		kq_fdtab_unhide(new);
		sys_close(new);
		/* its kqueue was torn down meanwhile (the number is free or
		 * the program's), or is not on the live list: being made, or
		 * closed with threads still inside, which its close woke and
		 * which leave at once.  Either way, not for long. */
		return kq_fd_hidden_live(fd) ? -EAGAIN : 0;
	}
	for (bool open = true; open;) {
		open = w == SIGNAL && kq_signal_writes_open();
		for (struct kqueue *kq = held; kq; kq = kq->mnext)
			open |= windows_open(kq);
		if (open) {
			struct timespec ts = { 0, 20000 };
			KQ_SYSCALL(SYS_nanosleep, &ts, NULL);
		}
	}
	while (held) {
		struct kqueue *kq = held;
		held = kq->mnext;
		kq->mnext = NULL;
		finish(kq, w, fd);
	}
	kq_fdtab_unhide(fd);
	if (w == WAKEFD)
		kq_wake_shared_put();
	return 0;
}

int kq_fd_move_out(int fd)
{
	/* inside a kevent() on this thread: see above */
	if (kq_held_self()->n != 0)
		return -EBUSY;
	sigset_t old;
	kq_signals_block(&old);
	kq_move_lock();
	int r;
	for (int tries = 0; (r = move_out(fd)) == -EAGAIN && tries < 20000; tries++) {
		struct timespec ts = { 0, 50000 };
		KQ_SYSCALL(SYS_nanosleep, &ts, NULL);
	}
	kq_move_unlock();
	kq_signals_restore(&old);
	return r == -EAGAIN ? -EBUSY : r;
}
