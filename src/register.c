/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One change of a changelist (FreeBSD's kqueue_register), under kq->lock.
 * Returns 0 or -errno.  On success the change entry is rewritten into what an
 * EV_RECEIPT record echoes (a create reports fflags and data as 0).
 *
 * Kqueue semantics live here once; filters only attach, detach, arm and
 * evaluate.
 */
#include "kq.h"
#include "sys.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EV_ACTIONS (EV_ADD | EV_DELETE | EV_ENABLE | EV_DISABLE | EV_FORCEONESHOT)

static bool fd_is_open(uintptr_t ident)
{
	return sys_fcntl((int)ident, F_GETFD, 0) >= 0;
}

/* Bring the kernel side in line with the knote and queue it for evaluation
 * where the kernel will not report its current condition by itself. */
static int kq_arm(struct kqueue *kq, struct knote *kn, const struct filterops *fop)
{
	int r = fop->arm(kq, kn);
	kn->status &= ~KN_VERIFY;
	if (r < 0)
		return r;
	if (kn->status & KN_DISABLED) {
		/* a disabled knote is never reported; FreeBSD drops it from
		 * the queue at the next scan, we do it now */
		kq_dequeue(kq, kn);
		kn->status &= ~(KN_FORCED | KN_SNAPSHOT | KN_FRESH);
		return 0;
	}
	if (r == 0 || (kn->status & KN_FORCED)) {
		kq_enqueue(kq, kn);
	} else if (__builtin_expect(__atomic_load_n(&kq->watched, __ATOMIC_RELAXED), 0) &&
		   fop->isfd) {
		/*
		 * A kqueue nested in another one is readable for it when its
		 * epoll set has a report ready, and the outer one hears of a
		 * new report only when one is linked onto the set's ready list
		 * (its entry on this set may be edge-triggered: demoted).  An
		 * enable whose entry is already on that list, a level entry
		 * still ready for a knote that was disabled, links nothing:
		 * FreeBSD would queue the knote and wake the outer one.  A
		 * wake entry made anew always reaches the outer one.
		 */
		kq_wake_kick(kq);
	}
	return 0;
}

static int register_one(struct kqueue *kq, struct kevent *kev, const struct filterops *fop);

/*
 * -ESTALE from a descriptor filter: the knotes on the number belong to a
 * file closed behind libkq's back (filter/fd.c).  FreeBSD's would have died
 * with that close, so they go now, and the change is applied again to what
 * the number names today (once: a second -ESTALE cannot come from the
 * knotes just dropped).
 */
/* The checks a change passes before the kqueue is looked at, in
 * FreeBSD's order (also a signal handler's queued change: reentry.c). */
int kq_change_check(const struct kevent *kev, const struct filterops **fop)
{
	int err;
	if ((kev->flags & (EV_ENABLE | EV_DISABLE)) == (EV_ENABLE | EV_DISABLE))
		return -EINVAL;
	*fop = kq_filterops(kev->filter, &err);
	if (!*fop)
		return err;
	if ((kev->flags & (EV_ADD | EV_KEEPUDATA)) == (EV_ADD | EV_KEEPUDATA))
		return -EINVAL;
	if ((*fop)->isfd && kev->ident > INT_MAX)
		return -EBADF;
	return 0;
}

int kq_register(struct kqueue *kq, struct kevent *kev)
{
	int err;

	if (kq_fd_add_fresh(kq, kev) == 0) {
		kev->fflags = 0;   /* a create's echo (register_one) */
		kev->data = 0;
		return 0;
	}
	const struct filterops *fop;
	if ((err = kq_change_check(kev, &fop)) != 0)
		return err;
	if (fop->isfd && (err = kq_quiesce(kq)) != 0)
		return err;

	unsigned int fflags = kev->fflags;   /* a create rewrites the echo */
	int64_t data = kev->data;
	err = register_one(kq, kev, fop);
	if (err == -ESTALE) {
		kq_drop_fd(kq, (int)kev->ident);
		kev->fflags = fflags;
		kev->data = data;
		err = register_one(kq, kev, fop);
		if (err == -ESTALE)
			err = -EBADF;
	}
	return err;
}

static int register_one(struct kqueue *kq, struct kevent *kev, const struct filterops *fop)
{
	unsigned short flags = kev->flags;
	int err;
	struct knote *kn = kq_find(kq, kev->ident, kev->filter, fop->isfd);
	if (!kn) {
		if (!(flags & EV_ADD))
			return (fop->isfd && !fd_is_open(kev->ident)) ? -EBADF : -ENOENT;
		/* growing the fd table for a number that cannot be open would
		 * only waste memory (FreeBSD checks the fd before anything) */
		if (fop->isfd && !kq_fdslot(kq, (int)kev->ident, false) &&
		    !fd_is_open(kev->ident))
			return -EBADF;
		kn = kq_knote_alloc(kq);
		if (!kn)
			return -ENOMEM;
		kn->ident = kev->ident;
		kn->filter = kev->filter;
		kn->sfflags = kev->fflags;
		kn->sdata = kev->data;
		kn->udata = kev->udata;
		if (kev->ext[0] | kev->ext[1] | kev->ext[2] | kev->ext[3]) {
			kn->ext = malloc(sizeof kev->ext);
			if (!kn->ext) {
				kq_knote_free(kq, kn);
				return -ENOMEM;
			}
			memcpy(kn->ext, kev->ext, sizeof kev->ext);
		}
		kn->flags = flags & ~EV_ACTIONS;
		if (flags & EV_DISABLE)
			kn->status |= KN_DISABLED;
		err = kq_link(kq, kn, fop->isfd);
		if (err) {
			kq_knote_free(kq, kn);
			return err;
		}
		err = fop->attach(kq, kn);
		if (!err && kq->defer_arm && fop->isfd) {
			/* the next change deletes it: an epoll entry made
			 * now would be removed at once; FreeBSD would only
			 * have checked the descriptor */
			if (!fd_is_open(kev->ident))
				err = -EBADF;
		} else if (!err) {
			err = kq_arm(kq, kn, fop);
		}
		if (err && err != -ESTALE)
			kq_drop(kq, kn);
		/* FreeBSD clears the change's fflags and data before calling
		 * attach, so its record for a create echoes 0 whether attach
		 * worked or not.  A closed descriptor is refused before that
		 * point (fget), with fflags as given; epoll is where we learn
		 * it, so keep the echo for EBADF. */
		if (err != -EBADF || !fop->isfd) {
			kev->fflags = 0;
			kev->data = 0;
		}
		return err;
	}

	if (flags & EV_DELETE) {
		kq_drop(kq, kn);
		return 0;
	}

	/* Modify.  The stored EV_CLEAR/ONESHOT/DISPATCH/RECEIPT stay as they
	 * were at creation; udata, fflags and data are replaced (FreeBSD). */
	if (flags & EV_FORCEONESHOT) {
		kn->flags |= EV_ONESHOT;
		kn->status |= KN_FORCED;
	}
	if ((flags & EV_ADD) && fop->isfd)
		kn->status |= KN_VERIFY;
	if (flags & EV_ENABLE)
		kn->status &= ~KN_DISABLED;
	else if (flags & EV_DISABLE)
		kn->status |= KN_DISABLED;
	if (!(flags & EV_KEEPUDATA))
		kn->udata = kev->udata;
	if (fop->touch) {
		fop->touch(kq, kn, kev);
	} else {
		kn->sfflags = kev->fflags;
		kn->sdata = kev->data;
	}
	return kq_arm(kq, kn, fop);
}
