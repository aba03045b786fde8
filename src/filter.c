/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The filter table, indexed by ~filter as in FreeBSD.  Slots without an
 * implementation fail registration: EINVAL for filters libkq does not (yet)
 * provide, ENXIO for those FreeBSD itself only attaches internally (AIO, LIO,
 * SENDFILE).
 */
#include "kq.h"

extern const struct filterops kq_read_filtops;
extern const struct filterops kq_write_filtops;
extern const struct filterops kq_timer_filtops;
extern const struct filterops kq_user_filtops;
extern const struct filterops kq_signal_filtops;
extern const struct filterops kq_proc_filtops;
extern const struct filterops kq_vnode_filtops;
extern const struct filterops kq_fs_filtops;

const struct filterops *const kq_filters[EVFILT_SYSCOUNT] = {
	[~EVFILT_READ]  = &kq_read_filtops,
	[~EVFILT_WRITE] = &kq_write_filtops,
	[~EVFILT_TIMER] = &kq_timer_filtops,
	[~EVFILT_USER]  = &kq_user_filtops,
	[~EVFILT_SIGNAL] = &kq_signal_filtops,
	[~EVFILT_PROC]  = &kq_proc_filtops,
	[~EVFILT_VNODE] = &kq_vnode_filtops,
	[~EVFILT_FS]    = &kq_fs_filtops,
};

const struct filterops *kq_filterops(short filter, int *err)
{
	if (filter >= 0 || filter < -EVFILT_SYSCOUNT) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}
	const struct filterops *f = kq_filters[~filter];
	if (!f && err)
		*err = (filter == EVFILT_AIO || filter == EVFILT_LIO ||
			filter == EVFILT_SENDFILE) ? -ENXIO : -EINVAL;
	return f;
}

/* Releases what filters share per kqueue; every knote is already gone. */
void kq_filters_fini(struct kqueue *kq)
{
	for (int i = 0; i < EVFILT_SYSCOUNT; i++)
		if (kq_filters[i] && kq_filters[i]->fini)
			kq_filters[i]->fini(kq);
}

/* Fork child: close each filter's descriptors of kq (fork.c). */
void kq_filters_forget(struct kqueue *kq)
{
	for (int i = 0; i < EVFILT_SYSCOUNT; i++)
		if (kq_filters[i] && kq_filters[i]->forget)
			kq_filters[i]->forget(kq);
}
