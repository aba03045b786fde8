/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_USER: knotes the program triggers itself.  They need no kernel
 * object: a trigger queues the knote on the ready queue, and the kqueue's one
 * wake eventfd (kq_sync_wake) wakes a thread sleeping in kevent().  So any
 * number of user knotes costs no descriptor.
 *
 * fflags: the low 24 bits are the user's; a change's top bits say how its
 * low bits combine with the stored ones (NOTE_FFNOP/AND/OR/COPY) and
 * NOTE_TRIGGER marks the knote triggered.  Every change also replaces the
 * stored data.  Reported: the stored bits and data.
 */
#include "kq.h"

#define TRIGGERED 0x0001   /* kn->fpriv */

static int user_attach(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	/* FreeBSD: a NOTE_TRIGGER in the creating change does not trigger */
	kn->sfflags &= NOTE_FFLAGSMASK;
	kn->fpriv = 0;
	return 0;
}

static void user_detach(struct kqueue *kq, struct knote *kn)
{
	if (kq->user_hint == kn)
		__atomic_store_n(&kq->user_hint, NULL, __ATOMIC_RELAXED);
}

static int user_event(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	kn->fflags = kn->sfflags;
	kn->data = kn->sdata;
	return kn->fpriv & TRIGGERED;
}

static void user_touch(struct kqueue *kq, struct knote *kn, struct kevent *kev)
{
	unsigned ff = kev->fflags & NOTE_FFLAGSMASK;
	if (kev->fflags & NOTE_TRIGGER) {
		kn->fpriv |= TRIGGERED;
		if (kq->user_hint != kn)
			__atomic_store_n(&kq->user_hint, kn, __ATOMIC_RELAXED);
	}
	switch (kev->fflags & NOTE_FFCTRLMASK) {
	case NOTE_FFAND:
		kn->sfflags &= ff;
		break;
	case NOTE_FFOR:
		kn->sfflags |= ff;
		break;
	case NOTE_FFCOPY:
		kn->sfflags = ff;
		break;
	default:   /* NOTE_FFNOP */
		break;
	}
	kn->sdata = kev->data;
	if (kev->flags & EV_CLEAR) {
		kn->fpriv &= ~TRIGGERED;
		kn->data = 0;
		kn->fflags = 0;
	}
	kev->fflags &= NOTE_FFLAGSMASK;   /* a receipt echoes no control bits */
}

static void user_delivered(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	if (kn->flags & EV_CLEAR)
		kn->fpriv &= ~TRIGGERED;
}

/* Triggered knotes are evaluated by the core; nothing else reports them. */
static int user_arm(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	return (kn->fpriv & TRIGGERED) ? 0 : 1;
}

const struct filterops kq_user_filtops = {
	.isfd = false,
	.attach = user_attach,
	.detach = user_detach,
	.event = user_event,
	.arm = user_arm,
	.touch = user_touch,
	.delivered = user_delivered,
};
