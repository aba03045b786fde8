/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Knote storage survives churn: knotes live in per-kqueue slabs (slab.c),
 * so a knote deleted in the middle of a slab, a slab emptied and given back
 * while others are in use, and storage reused for a new knote must never
 * leak a field of the old knote into the new one.
 *
 * 3000 EVFILT_USER knotes (enough for several slab sizes) are added, every
 * third one deleted, the gaps refilled with new idents and new udata, and
 * then a range that covers whole slabs deleted and re-added.  Each live
 * knote is triggered; the records must be exactly the live set with its
 * own udata and no leftover NOTE_FFCOPY bits.  Under ASan this also checks
 * that teardown frees every slab.
 */
#include "t.h"

#define N 3000

static void *ud(uintptr_t id, int gen)
{
	return (void *)(id * 8 + (uintptr_t)gen);
}

static int gen_of[3 * N];

static void add(int kq, uintptr_t id, int gen)
{
	struct kevent ch;
	EV_SET(&ch, id, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, ud(id, gen));
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	gen_of[id] = gen;
}

/* Deleted knotes leave state behind (queued, or disabled) that a new knote
 * in the same storage must not inherit. */
static void del(int kq, uintptr_t id)
{
	if (id % 2)
		t_change(kq, id, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	else
		t_change(kq, id, EVFILT_USER, EV_DISABLE, 0, 0, NULL);
	t_change(kq, id, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	gen_of[id] = 0;
}

int main(void)
{
	int kq = t_kqueue();
	static struct kevent ev[3 * N];

	for (uintptr_t id = 1; id <= N; id++) {
		add(kq, id, 1);
		/* leave fflags in the knote, to catch them in reused storage
		 * (every change replaces udata, as in FreeBSD) */
		t_change(kq, id, EVFILT_USER, 0, NOTE_FFOR | 0x5, 0, ud(id, 1));
	}
	for (uintptr_t id = 1; id <= N; id += 3)
		del(kq, id);
	for (uintptr_t id = N + 1; id <= N + N / 3; id++)
		add(kq, id, 2);
	for (uintptr_t id = 500; id < 1500; id++)
		if (gen_of[id])
			del(kq, id);
	for (uintptr_t id = 2 * N; id < 2 * N + 1000; id++)
		add(kq, id, 3);

	int live = 0;
	for (uintptr_t id = 1; id < 3 * N; id++) {
		if (!gen_of[id])
			continue;
		t_change(kq, id, EVFILT_USER, 0, NOTE_TRIGGER, 0, ud(id, gen_of[id]));
		live++;
	}
	T_EQ(t_get(kq, ev, 3 * N), live);
	for (int i = 0; i < live; i++) {
		uintptr_t id = ev[i].ident;
		T_ASSERT(id < 3 * N && gen_of[id] > 0);
		uint32_t ff = gen_of[id] == 1 ? 0x5 : 0;
		T_KEVENT(&ev[i], id, EVFILT_USER, EV_CLEAR, ff, 0, ud(id, gen_of[id]));
		gen_of[id] = -gen_of[id];   /* seen */
	}
	T_NO_EVENTS(kq);
	T_ASSERT(close(kq) == 0);
	return 0;
}
