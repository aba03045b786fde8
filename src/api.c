/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The public calls.  Argument checks and errno live here and nowhere else;
 * everything below returns 0 / a count or -errno.
 */
#include "kq.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>

#define KQ_API __attribute__((visibility("default")))

static int fail(int err)
{
	errno = -err;
	return -1;
}

KQ_API int kqueue1(int flags)
{
	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return fail(-EINVAL);
	/* no asynchronous cancellation inside the creation's locks (see
	 * kevent() below) */
	int type;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
	int r = kq_create(flags);
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	return r < 0 ? fail(r) : r;
}

KQ_API int kqueue(void)
{
	return kqueue1(0);
}

KQ_API int kqueuex(unsigned int flags)
{
	if (flags & ~(unsigned)KQUEUE_CLOEXEC)
		return fail(-EINVAL);
	return kqueue1(0);
}

static bool timeout_valid(const struct timespec *ts)
{
	return !ts || (ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000);
}

/* Whether change b deletes the READ/WRITE knote change a creates, so that a
 * need not reach epoll (changes that cancel out inside one changelist
 * cost nothing).  Receipts keep the plain path. */
static bool cancels(const struct kevent *a, const struct kevent *b)
{
	unsigned short af = a->flags & ~EV_SYSFLAGS, bf = b->flags & ~EV_SYSFLAGS;
	return (a->filter == EVFILT_READ || a->filter == EVFILT_WRITE) &&
	       (af & EV_ADD) && !(af & (EV_DELETE | EV_RECEIPT)) &&
	       b->ident == a->ident && b->filter == a->filter &&
	       (bf & EV_DELETE) && !(bf & EV_RECEIPT);
}

/*
 * Whether change b deletes the other direction's knote on the descriptor
 * change a adds a READ or WRITE knote to (a poller turning a descriptor
 * from writing to reading), and can go first: its knote exists, so the
 * delete cannot fail.  Done in this order, the slot is left without knotes
 * and keeps its entry (parked: no system call), and the add makes the one
 * epoll_ctl() the pair needs, where the changelist's order costs two.  The
 * caller checks that a record of the add (an error, or a receipt: HAProxy
 * asks one for the first change of each call) would have room, so the
 * outcome is the one the order gives: FreeBSD stops at the first record
 * without room, and the delete comes after the add.
 */
static bool delete_first(struct kqueue *kq, const struct kevent *a, const struct kevent *b)
{
	unsigned short af = a->flags & ~EV_SYSFLAGS, bf = b->flags & ~EV_SYSFLAGS;
	return (a->filter == EVFILT_READ || a->filter == EVFILT_WRITE) &&
	       (af & EV_ADD) && !(af & EV_DELETE) &&
	       b->ident == a->ident &&
	       b->filter == (a->filter == EVFILT_READ ? EVFILT_WRITE : EVFILT_READ) &&
	       (bf & EV_DELETE) &&
	       kq_find(kq, b->ident, b->filter, true) != NULL;
}

/* Puts change kev's record (EV_ERROR, data = err, 0 for a receipt) in the
 * event list; false when the list has no room left. */
static bool put_record(struct kevent *events, int room, int *nrec, struct kevent kev, int err)
{
	if (room - *nrec <= 0)
		return false;
	kev.flags = EV_ERROR;
	kev.data = -err;
	events[(*nrec)++] = kev;
	return true;
}

/* Applies the changelist in order (FreeBSD's kqueue_kevent).  Returns the
 * number of EV_ERROR/EV_RECEIPT records written, or -errno when a record was
 * due but the event list had no room left (then later changes are not
 * processed), or 0 in place of a receipt record that had no room. */
static int apply_changes(struct kqueue *kq, const struct kevent *changes,
			 int nchanges, struct kevent *events, int room, bool *stop)
{
	int nrec = 0;
	for (int i = 0; i < nchanges; i++) {
		struct kevent kev = changes[i];   /* events may alias changes */
		if (kev.filter == 0)
			continue;
		kev.flags &= ~EV_SYSFLAGS;
		if (i + 1 < nchanges && room - nrec > 0 &&
		    delete_first(kq, &kev, &changes[i + 1])) {
			struct kevent pair[2] = { kev, changes[i + 1] };
			pair[1].flags &= ~EV_SYSFLAGS;
			int errs[2];
			errs[1] = kq_register(kq, &pair[1]);   /* a stale knote: EBADF */
			errs[0] = kq_register(kq, &pair[0]);
			/* a number that is closed fails both (the knote went
			 * as a stale one would have) */
			if (errs[0] == -EBADF)
				errs[1] = -EBADF;
			i++;
			for (int k = 0; k < 2; k++) {
				if (!errs[k] && !(pair[k].flags & EV_RECEIPT))
					continue;
				if (!put_record(events, room, &nrec, pair[k], errs[k])) {
					*stop = true;
					return errs[k];
				}
			}
			continue;
		}
		kq->defer_arm = i + 1 < nchanges && cancels(&kev, &changes[i + 1]);
		int err = kq_register(kq, &kev);
		kq->defer_arm = false;
		if (!err && !(kev.flags & EV_RECEIPT))
			continue;
		if (!put_record(events, room, &nrec, kev, err)) {
			*stop = true;
			return err;
		}
	}
	return nrec;
}

static int kevent_changes(int kqfd, const struct kevent *changelist, int nchanges,
			  struct kevent *eventlist, int nevents, const struct timespec *timeout);
__attribute__((noinline))
static int kevent_one(int kqfd, const struct kevent *change);

/*
 * Cancellation, as FreeBSD's libthr defines it for kevent(): a cancellation
 * point whenever nevents is not 0 (with changes or without), where a
 * pending request acts on entry, before any change is made, and one that
 * arrives while the call sleeps acts there (the changes made stay made).
 * pthread_testcancel() on entry, and the sleep (wake.c, kq_sleep) is the
 * library's only cancellable call (sys.h).  A call with nevents 0 never
 * sleeps and is no cancellation point.
 */
static inline __attribute__((always_inline))
int kevent_call(int kqfd, const struct kevent *changelist, int nchanges,
		struct kevent *eventlist, int nevents, const struct timespec *timeout)
{
	if (nchanges == 0 && nevents > 0 && eventlist) {
		if (timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0)
			return kq_poll(kqfd, eventlist, nevents);   /* cancellation point */
		/* an invalid timeout: kevent_changes() has the errors' order */
		if (timeout_valid(timeout))
			return kq_wait(kqfd, eventlist, nevents, timeout);
	}
	/* One change and no events: how most programs apply their changes
	 * (FreeBSD's outcome below, without the changelist machinery). */
	if (nchanges == 1 && nevents == 0 && changelist)
		return kevent_one(kqfd, changelist);
	return kevent_changes(kqfd, changelist, nchanges, eventlist, nevents, timeout);
}

/*
 * An asynchronous cancellation acts wherever the thread is, and one that
 * landed while the call holds a kqueue's lock would leave the kqueue locked
 * for every other thread.  POSIX leaves asynchronous cancellation of
 * kevent() undefined, but a kqueue must not die of it: the call runs with
 * the deferred type, and the asynchronous type comes back on the way out
 * (where a request that came meanwhile acts, with no lock held).  While the
 * type is already deferred this is a call and one load in glibc.  A process
 * of one thread skips it: only a signal handler of its own could cancel
 * it, ending the process with its thread.
 */
KQ_API int kevent(int kqfd, const struct kevent *changelist, int nchanges,
		  struct kevent *eventlist, int nevents, const struct timespec *timeout)
{
	if (kq_alone())
		return kevent_call(kqfd, changelist, nchanges, eventlist, nevents, timeout);
	int type;
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &type);
	int r = kevent_call(kqfd, changelist, nchanges, eventlist, nevents, timeout);
	if (__builtin_expect(type == PTHREAD_CANCEL_ASYNCHRONOUS, 0))
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	return r;
}

/* kevent(kq, change, 1, NULL, 0, timeout): the change's error, if any, has
 * no room for its record, so it is the call's errno; a receipt is dropped
 * for the same reason; the timeout is not looked at (no wait follows). */
static int kevent_one(int kqfd, const struct kevent *change)
{
	int r;
	if (change->filter == EVFILT_USER) {
		struct kqueue *h = kq_fdtab_kq(kqfd);
		if (h)
			kq_prefetch_hint(h);
	}
	struct kqueue *kq = kq_acquire(kqfd, &r);
	if (!kq) {
		if (r == -EDEADLK)
			return kq_reentry(kqfd, change, 1, NULL, 0, NULL);
		return fail(r);
	}
	/* the first knote on a socket, before the copy kq_register() needs
	 * (its echo is not wanted here) */
	if (kq_fd_add_fresh(kq, change) == 0) {
		kq_release(kq);
		return 0;
	}
	struct kevent kev = *change;
	r = 0;
	if (kev.filter != 0) {
		kev.flags &= ~EV_SYSFLAGS;
		r = kq_register(kq, &kev);
	}
	kq_release(kq);
	return r < 0 ? fail(r) : 0;
}

/* Everything but a poll without changes. */
__attribute__((noinline))
static int kevent_changes(int kqfd, const struct kevent *changelist, int nchanges,
			  struct kevent *eventlist, int nevents, const struct timespec *timeout)
{
	int r;
	if (nevents != 0)
		pthread_testcancel();   /* before any change (see kevent_call) */
	struct kqueue *kq = kq_acquire(kqfd, &r);
	if (!kq) {
		if (r == -EDEADLK)
			return kq_reentry(kqfd, changelist, nchanges, eventlist, nevents,
					  timeout);
		goto out_nokq;
	}
	if (nchanges < 0) {
		r = -EINVAL;
		goto out;
	}
	if ((nchanges > 0 && !changelist) || (nevents > 0 && !eventlist)) {
		r = -EFAULT;
		goto out;
	}
	bool stop = false;
	r = apply_changes(kq, changelist, nchanges, eventlist,
			  nevents > 0 ? nevents : 0, &stop);
	if (stop || r > 0)
		goto out;
	if (nevents < 0) {
		r = -EINVAL;
		goto out;
	}
	if (nevents == 0) {
		r = 0;
		goto out;
	}
	if (!timeout_valid(timeout)) {
		r = -EINVAL;
		goto out;
	}
	r = kq_wait_locked(kq, eventlist, nevents, timeout);
out:
	kq_release(kq);
out_nokq:
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}
