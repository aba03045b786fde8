/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The table of sources (kq.h): which source owns each fixed epoll tag, and
 * every source that takes part in a kevent() call.  Adding a source is a
 * file under filter/ defining its struct kq_source, and a line here (its
 * fixed tag's slot, if it has one, and its place in `all` if it has
 * hooks).  The tables are constant, so with link-time optimization the
 * loops below become direct calls.
 */
#include "kq.h"

extern const struct kq_source kq_wake_source, kq_vnode_source, kq_wrset_source,
	kq_timer_source, kq_signal_source, kq_proccn_source, kq_mounts_source,
	kq_dgram_source;

const struct kq_source *const kq_fixed_sources[KQ_SRC_FIXED] = {
	[KQ_SRC_WAKE]    = &kq_wake_source,
	[KQ_SRC_INOTIFY] = &kq_vnode_source,
	[KQ_SRC_WRSET]   = &kq_wrset_source,
	[KQ_SRC_TIMER]   = &kq_timer_source,
	[KQ_SRC_SIGNAL]  = &kq_signal_source,
	[KQ_SRC_PROCCN]  = &kq_proccn_source,
	[KQ_SRC_MOUNTS]  = &kq_mounts_source,
};

/* Sources with hooks, in the order each hook runs. */
static const struct kq_source *const all[] = {
	&kq_dgram_source, &kq_fd_source, &kq_signal_source, &kq_mounts_source,
	&kq_vnode_source, &kq_timer_source,
};
#define NALL (sizeof all / sizeof all[0])

void kq_sources_begin(struct kqueue *kq)
{
#pragma GCC unroll 8
	for (unsigned i = 0; i < NALL; i++)
		if (all[i]->begin)
			all[i]->begin(kq);
}

void kq_sources_harvest(struct kqueue *kq, const struct epoll_event *evs, int n)
{
#pragma GCC unroll 8
	for (unsigned i = 0; i < NALL; i++)
		if (all[i]->harvest)
			all[i]->harvest(kq, evs, n);
}

int64_t kq_sources_sleep(struct kqueue *kq)
{
	int64_t cap = -1;
#pragma GCC unroll 8
	for (unsigned i = 0; i < NALL; i++) {
		if (!all[i]->sleep)
			continue;
		int64_t c = all[i]->sleep(kq);
		if (c >= 0 && (cap < 0 || c < cap))
			cap = c;
	}
	return cap;
}

void kq_sources_deliver(struct kqueue *kq, int nevents)
{
#pragma GCC unroll 8
	for (unsigned i = 0; i < NALL; i++)
		if (all[i]->deliver)
			all[i]->deliver(kq, nevents);
}

void kq_sources_fini(struct kqueue *kq)
{
#pragma GCC unroll 8
	for (unsigned i = 0; i < NALL; i++)
		if (all[i]->fini)
			all[i]->fini(kq);
}

void kq_sources_forget(struct kqueue *kq)
{
#pragma GCC unroll 8
	for (unsigned i = 0; i < NALL; i++)
		if (all[i]->forget)
			all[i]->forget(kq);
}
