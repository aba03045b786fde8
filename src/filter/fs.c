/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_FS: mounts and unmounts.  FreeBSD keeps one global list of these
 * knotes and posts VQ_MOUNT when a file system joins the mount list and
 * VQ_UNMOUNT when one leaves it; its filter ORs every hint in, whatever
 * the knote's fflags ask, and forces EV_CLEAR.  The ident means nothing.
 *
 * filter/mounts.c watches the mount table (of the caller's mount
 * namespace) and calls kq_fs_post() with what changed: VQ_MOUNT, VQ_UNMOUNT,
 * or VQ_UPDATE for a mount whose options changed.  A mount that comes and
 * goes between two reads of the table is not seen.  VQ_UPDATE is a libkq
 * extension and goes only to knotes that ask for it.  Without /proc there
 * is no table: knotes are accepted and nothing is reported.
 */
#include "kq.h"

void kq_fs_post(struct kqueue *kq, uint32_t hint);

/* Every VQ_ note FreeBSD posts to all knotes; VQ_UPDATE is asked for. */
#define FS_OPTIN VQ_UPDATE

void kq_fs_post(struct kqueue *kq, uint32_t hint)
{
	for (unsigned b = 0; b < kq->hsize; b++)
		for (struct knote *kn = kq->hash[b]; kn; kn = kn->link) {
			if (kn->filter != EVFILT_FS)
				continue;
			uint32_t add = (hint & ~FS_OPTIN) | (hint & kn->sfflags & FS_OPTIN);
			if (!add)
				continue;
			kn->fflags |= add;
			kq_activate(kq, kn);
		}
}

static int fs_attach(struct kqueue *kq, struct knote *kn)
{
	kn->flags |= EV_CLEAR;
	kn->fflags = 0;
	return kq_mounts_watch(kq);
}

/* The mount table stays watched until the kqueue goes: a knote added
 * later must compare with the table as it is now, not as it was when
 * the previous one went. */
static void fs_detach(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	(void)kn;
}

static int fs_event(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	kn->data = 0;
	return kn->fflags != 0;
}

static int fs_arm(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	return kn->fflags ? 0 : 1;
}

const struct filterops kq_fs_filtops = {
	.isfd = false,
	.attach = fs_attach,
	.detach = fs_detach,
	.event = fs_event,
	.arm = fs_arm,
};
