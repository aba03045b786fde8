/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internal object model, after FreeBSD's kern_event.c: a knote per
 * registration <ident, filter>, filters as static vectors of operations, and
 * per kqueue a ready queue of activated knotes.
 *
 * LOCKING
 *   kq_glock (global)  the list of live kqueues (close() walks it).
 *   kq_freelock        the free list of dead kqueue objects (a leaf lock).
 *   kq->lock           everything inside one kqueue: knote tables, the ready
 *                      queue, every knote field, the fd slots (a futex lock
 *                      of our own, lock.h: its waits are never cancellation
 *                      points).
 *   Order: kq_glock before kq->lock.  An outer kqueue's lock may be held while
 *   an inner (nested) kqueue's lock is taken; epoll refuses cycles (ELOOP), so
 *   that order is acyclic.
 *   The per-process fd table (fdtab.c) is read lock-free with atomics.
 *   How a kevent() call takes and lets go of kq->lock, sleeps and wakes
 *   others: the wake-up protocol, wake.h.
 *
 * struct kqueue objects are never returned to malloc: they go on a free list
 * and are reused, so a thread that loaded a stale pointer from the fd table can
 * still lock it and discover (ufd mismatch, dead) that it is not the kqueue it
 * wanted.  Everything the kqueue owns is released when it dies.
 */
#ifndef KQ_KQ_H
#define KQ_KQ_H

#include <sys/event.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <string.h>
#include <time.h>

#include "lock.h"

struct kqueue;
struct knote;

/* knote status bits (kn->status, 8 of them at most), all under kq->lock */
#define KN_QUEUED    0x0001  /* on kq's ready queue */
#define KN_DISABLED  0x0002  /* EV_DISABLE in force */
#define KN_FRESH     0x0004  /* slot revents were reported for this activation */
#define KN_LEVELSRC  0x0008  /* the kernel re-reports it while true (LT epoll) */
#define KN_FORCED    0x0010  /* EV_FORCEONESHOT: deliver without re-validation */
#define KN_SNAPSHOT  0x0020  /* data/fflags were computed at activation */
#define KN_NOEXCL    0x0040  /* EV_WAKEONE, but its file already has an
			      * exclusive entry in this kqueue (filter/fd.c) */
#define KN_VERIFY    0x0080  /* EV_ADD found the knote: its arm must check
			      * that its source is still what the ident names
			      * (-ESTALE if not: register.c) */

/* kn->fpriv of a READ knote on a regular file: its inotify watch is held */
#define KQ_FPRIV_FILE_WATCHED 0x0001

struct knote {
	/* What a record copies out comes first, laid out as struct kevent's
	 * own first 32 bytes (kq_copyout), then what delivery reads: a
	 * record touches one or two cache lines of its knote. */
	uintptr_t      ident;
	short          filter;
	uint16_t       flags;    /* stored EV_ flags; EV_EOF set by the filter */
	uint32_t       fflags;   /* fflags to report */
	int64_t        data;     /* data to report */
	void          *udata;
	uint64_t      *ext;      /* ext[4] as registered, or NULL when all zero
				  * (EV_SET's default; saves 32 bytes a knote) */
	struct knote  *link;     /* next knote in the same fd slot / hash bucket */
	uint8_t        status;   /* KN_ bits */
	uint8_t        fpriv;    /* filter-private */
	uint16_t       slot;     /* index in its slab (slab.c) */
	uint32_t       sfflags;  /* fflags as the user registered them */
	struct knote  *qnext;    /* ready queue */
	struct knote **qprevp;   /* ready queue; NULL when not queued */
	int64_t        sdata;    /* data as the user registered it */
	void          *fstate;   /* filter-private state (timers) */
};
/* the bytes of struct kevent that a knote holds as they are */
#define KQ_KEV_HEAD offsetof(struct kevent, ext)
_Static_assert(offsetof(struct knote, filter) == offsetof(struct kevent, filter) &&
	       offsetof(struct knote, flags) == offsetof(struct kevent, flags) &&
	       offsetof(struct knote, fflags) == offsetof(struct kevent, fflags) &&
	       offsetof(struct knote, data) == offsetof(struct kevent, data) &&
	       offsetof(struct knote, udata) == offsetof(struct kevent, udata) &&
	       offsetof(struct knote, ext) == KQ_KEV_HEAD, "knote head is a kevent's");

/* Per fd number, per kqueue: the knotes on it and its epoll entry.  A slot
 * whose last knote went may keep its entry and kind ("parked",
 * filter/fd.c), so that a knote added again costs an EPOLL_CTL_MOD and no
 * classification; the number's interest (fdtab.c) lasts while it does. */
struct kq_fdslot {
	struct knote *head;
	uint32_t      gen;       /* bumped when the epoll entry is removed */
	uint16_t      revents;   /* poll bits from the latest epoll report */
	uint8_t       kind;      /* KQ_FD_* (fdkind.h), learned lazily */
	uint8_t       state;     /* SLOT_* (filter/fd.c) */
};

struct filterops {
	bool isfd;   /* ident is a descriptor (fd table, EBADF checks) */
	/* Create the kernel side; knote already linked. 0 or -errno. */
	int  (*attach)(struct kqueue *, struct knote *);
	/* Remove the kernel side; the core unlinks and frees afterwards. */
	void (*detach)(struct kqueue *, struct knote *);
	/* Recompute data/fflags/EV_EOF; nonzero if the knote should be reported. */
	int  (*event)(struct kqueue *, struct knote *);
	/* After create/modify/enable/disable: make the kernel side match the
	 * knote.  Returns 1 if the kernel will report the current condition by
	 * itself, 0 if the core must activate the knote to have it evaluated,
	 * or -errno; -ESTALE: the knotes on the ident belong to something no
	 * longer there (register.c drops them and applies the change again). */
	int  (*arm)(struct kqueue *, struct knote *);
	/* Optional: apply a change to an existing knote (FreeBSD's f_touch,
	 * EVENT_REGISTER); may rewrite the change's echo (fflags). */
	void (*touch)(struct kqueue *, struct knote *, struct kevent *);
	/* Optional: the knote was just copied out (EVENT_PROCESS). */
	void (*delivered)(struct kqueue *, struct knote *);
	/* Optional: per-kqueue teardown of shared kernel objects. */
	void (*fini)(struct kqueue *);
	/* Optional: in a fork child, close this filter's descriptors of kq
	 * (and nothing else: the memory is abandoned, see fork.c). */
	void (*forget)(struct kqueue *);
};

struct kq_slab;
struct kq_vnodes;
struct kq_uring;
struct kq_timers;
struct kq_sigs;
struct kq_procs;
struct kq_rechecks;
struct kq_mounts;
struct kq_efdinfo;

#define KQ_DEFER_MAX  32
#define KQ_HCHANGES   512  /* a power of two */
#define KQ_IDS        64
#define KQ_PARKED_MAX 64
#define KQ_DEFER_SELF (1 << 30)

/* A change a signal handler made on a kqueue its thread was inside
 * (reentry.c): seq says whose turn the slot is (a bounded queue of many
 * producers and one consumer). */
struct kq_hchange {
	atomic_uint   seq;
	struct kevent kev;
};

struct kqueue {
	/* The first line: what every kevent() reads, and what both sides of
	 * a hand-off between threads write (one thread queues a knote, the
	 * other takes it): the lock, the queue and the counts beside it.
	 * Each further line that both write moves between their processors
	 * on every hand-off.  A change's own work is also a few hundred
	 * instructions next to an epoll_ctl() that evicts much of the cache,
	 * so each line it touches shows in its cost. */
	struct kq_mutex    lock;
	int                epfd;     /* private dup of the user's epoll fd */
	int                ufd;      /* the number the user holds; -1 once closed */
	unsigned           users;    /* kevent() calls inside (may be unlocked) */
	/* Eight flags in one word, so that kevent()'s one-thread path
	 * (scan.c, kq_poll) tests several with one load (KQ_FLAG). */
	union {
		struct {
			/* user closed it; torn down when users == 0 */
			bool        dead;
			/* knotes are being dropped for the close of a
			 * descriptor whose file the close frees: its epoll
			 * entries go with it (kq_fd_closing) */
			bool        entries_die;
			/* Epoll reports must be consumed in order with
			 * everything else done under the lock (scan.c): at
			 * most one thread sleeps in a consuming epoll_wait()
			 * (consumer), and a thread entering while it does
			 * wakes it and waits on `cond` until it has processed
			 * what it took. */
			bool        consumer;
			/* the change being applied is undone by the next one
			 * (api.c, register.c) */
			bool        defer_arm;
			/* an EV_ONESHOT READ/WRITE knote was ever added
			 * (kq_fd_prefetch_reports) */
			bool        fd_oneshot;
			/* a write of wakefd may wait in epoll (kqueue.c) */
			bool        wake_on;
			/* closes are waiting in deferred[], or changes in
			 * hq[] */
			atomic_bool deferred_any;
			bool        no_free;
		};
		uint64_t flagword;
	};
	unsigned           qcount;
	unsigned           nfds;
	struct knote      *qhead;    /* ready queue, FIFO */
	struct knote     **qtailp;
	uint64_t           nact;     /* knotes ever queued: activations, for outer kqueues */
	/* knotes are being dropped by close(), which may run in a signal
	 * handler that interrupted malloc(): memory they free waits in
	 * `graveyard` for the next kq_release() (slab.c) */
	void              *graveyard;

	/* The second line: the rest of what a zero-timeout kevent() reads
	 * (scan.c, kq_poll), and what only the side that collects writes. */
	struct kq_fdslot  *fds;      /* indexed by fd */
	struct epoll_event *hbuf;    /* epoll reports are read here (scan.c) */
	int                hbufcap;
	unsigned           skips;    /* calls in a row answered without epoll */
	struct kq_rechecks *rechecks; /* EV_CLEAR datagram knotes to look at again
				       * (filter/dgram.c), or NULL */
	unsigned           nreports; /* epoll reports processed (scan.c) */
	unsigned           nstale;   /* ... of them for entries we no longer hold */
	struct kq_slab    *slabs;    /* knote slabs with free room (slab.c) */
	unsigned           nknotes;  /* knotes allocated */
	/* kq->hbuf's entries from this index on hold no report (events 0):
	 * every epoll call into it raises it to its count (kq_hbuf_taken) */
	int                hdirty;
	bool               exact_eof; /* LIBKQ_EXACT_EOF (filter/fd.c), when created */
	/* Sources that must look at every call and bound every sleep
	 * (their begin and sleep hooks), KQ_LOOKS_* bits: READ knotes on
	 * files with no inotify or fanotify to hear of changes
	 * (filter/vnode.c), timers without a timerfd (filter/timer.c) */
	uint8_t            looks;

	struct kq_efdinfo *efdinfo;  /* kept eventfd fdinfo files (filter/efdinfo.c), or NULL */
	unsigned           quiescers;  /* threads waiting in kq_quiesce() */
	int                wakefd;   /* the process's wake eventfd, in epfd (wake.c) */
	int                wrfd;     /* second epoll set for split WRITE entries, or -1 */
	int                diagfd;   /* sock_diag netlink socket (filter/fdkind.c), or -1 */
	struct kq_cond     cond;
	int                waitfd;   /* epoll set holding epfd: sleeping without
				      * consuming when threads share the kqueue; -1 */
	/* Threads using epfd, waitfd or wakefd without the lock (a sleep's
	 * epoll_wait, a poke after the unlock), by the parity of wgen when
	 * they loaded the numbers: win[] counted under the lock, hwin[] by
	 * signal handlers, which may not take it.  A move of one of those
	 * descriptors (move.c) changes the numbers and wgen under the lock,
	 * then waits until the old parity's counts are 0. */
	unsigned           win[2];
	atomic_uint        hwin[2];
	atomic_uint        wgen;
	struct kqueue     *mnext;    /* move.c's list of kqueues it holds */
	/* The thread that last delivered from the ready queue (its kq_held
	 * entry's address names it), and whether another one ever did or two
	 * were ever inside at once: scan.c, absorb_window(). */
	const void        *deliverer;
	bool               shared;
	/* The consumer's thread (its kq_held record) and the room it gave
	 * epoll_wait() (kq_sleep), and whether a signal handler on that
	 * thread processed the reports it took (reentry.c). */
	bool               robbed;
	int                consumer_maxev;
	const void        *consumer_h;
	/* Parked entries that would report at the next epoll_wait(), which
	 * the next consuming sleep removes first (filter/fd.c, park_quiet):
	 * the number and the slot's generation when parked. */
	unsigned           nparked;
	struct { int fd; uint32_t gen; } parked[KQ_PARKED_MAX];
	/* Another kqueue has (or had) a READ knote on this one: an enable
	 * writes wakefd so that the outer one hears of it (register.c).
	 * Set without this kqueue's lock by the outer one (atomic). */
	bool               watched;

	struct knote     **hash;     /* non-fd knotes, by ident */
	unsigned           hsize;    /* power of two, or 0 */
	unsigned           hcount;
	/* The EVFILT_USER knote triggered last (filter/user.c), read without
	 * the lock by a thread about to trigger it or woken for it: a
	 * prefetch of it then overlaps the wait for the lock's line, which
	 * the other thread wrote, where the lookup would wait for both in
	 * turn (kq_prefetch_hint).  Written only when another knote is
	 * triggered. */
	struct knote      *user_hint;

	struct kq_vnodes  *vnodes;   /* inotify for VNODE and file READ, or NULL */
	struct kq_mounts  *mounts;   /* the mount table (filter/mounts.c), or NULL */
	struct kq_uring   *ring;     /* batched socket counts (mux/uring.c), or NULL */
	struct kq_timers  *timers;   /* EVFILT_TIMER: one timerfd + heap, or NULL */
	struct kq_sigs    *sigs;     /* EVFILT_SIGNAL knotes of this kqueue, or NULL */
	struct kq_procs   *procs;    /* EVFILT_PROC: pidfd slots, connector, or NULL */

	/* Its bit in the descriptor table's holder sets (fdtab.c), taken at
	 * creation and given back at teardown; -1 when all KQ_IDS are taken. */
	int                id;
	struct kqueue     *gnext;    /* kq_glock: live list / free list */
	struct kqueue    **gprevp;

	/* Closes made by a signal handler whose thread holds (or waits for)
	 * this kqueue's lock, to be applied by whoever holds it next
	 * (kqueue.c, kq_defer_close): fd + 1, KQ_DEFER_SELF for the
	 * kqueue's own number; 0 is a free slot. */
	atomic_int         deferred[KQ_DEFER_MAX];

	/* Changes made by signal handlers whose thread is inside kevent() on
	 * this kqueue, applied in order by whoever holds the lock next
	 * (reentry.c): htail is claimed by the handlers, hhead and happlying
	 * are under the lock.  hq is mapped by the first handler that needs
	 * it and stays with the object for its life (objects are reused,
	 * never freed): most kqueues never see such a change. */
	atomic_uint        htail;
	unsigned           hhead;
	bool               happlying;
	_Atomic(struct kq_hchange *) hq;
};
_Static_assert(sizeof(atomic_bool) == 1 &&
	       offsetof(struct kqueue, no_free) - offsetof(struct kqueue, dead) == 7,
	       "the eight flags fill flagword");
/* A flag's bits in flagword (a bool is stored as 0 or 1). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define KQ_FLAG(f) (UINT64_C(0xff) << 8 * (offsetof(struct kqueue, f) - \
					    offsetof(struct kqueue, flagword)))
#else
#define KQ_FLAG(f) (UINT64_C(0xff) << 8 * (7 - (offsetof(struct kqueue, f) - \
						 offsetof(struct kqueue, flagword))))
#endif
/* kq_poll() reads the first two lines of the struct and no further. */
_Static_assert(offsetof(struct kqueue, graveyard) < 64 && offsetof(struct kqueue, fds) == 64 &&
	       offsetof(struct kqueue, looks) < 128, "kqueue hot lines");

/*
 * Sources: the kernel side of the filters.  Every object a kqueue puts in
 * its epoll set carries a tag in epoll_event.data: a descriptor entry
 * (generation << 32) | fd, a pidfd entry its own (filter/proc.c, bit 31 of
 * the low word set), and each per-kqueue object one of the fixed tags
 * below, at the very top of the range.  The scan hands each epoll report
 * to the source that owns its tag (source.c has the table), as FreeBSD's
 * kqueue_scan reaches filters only through their filterops; a source may
 * also take part in every kevent() call at fixed points.  Every member but
 * report is optional, and a source that owns no tag has no report.
 */
struct kq_source {
	/* An epoll report carrying one of the source's tags. */
	void (*report)(struct kqueue *kq, uint64_t tag, uint32_t revents);
	/* A kevent() call begins its scan. */
	void (*begin)(struct kqueue *kq);
	/* A harvest's reports are about to be handed out (all of them). */
	void (*harvest)(struct kqueue *kq, const struct epoll_event *evs, int n);
	/* The call is about to sleep: the longest the sleep may last (ns),
	 * or -1 for no bound of the source's. */
	int64_t (*sleep)(struct kqueue *kq);
	/* At most the first nevents knotes of the queue are about to be
	 * delivered. */
	void (*deliver)(struct kqueue *kq, int nevents);
	/* The kqueue is torn down, its knotes gone: release the source's
	 * per-kqueue state. */
	void (*fini)(struct kqueue *kq);
	/* Fork child: close the source's descriptors (fork.c). */
	void (*forget)(struct kqueue *kq);
};

/* kq->looks: who looks (kq_looks_set, wake.c) */
#define KQ_LOOKS_FILES  0x01
#define KQ_LOOKS_TIMERS 0x02

/* The sources with a fixed tag: KQ_TAG(KQ_SRC_x) */
enum {
	KQ_SRC_WAKE,      /* the kqueue's wake eventfd (kqueue.c) */
	KQ_SRC_INOTIFY,   /* vnode knotes' inotify or fanotify group */
	KQ_SRC_WRSET,     /* the nested set of split WRITE entries (fd.c) */
	KQ_SRC_TIMER,     /* the timers' timerfd */
	KQ_SRC_SIGNAL,    /* the signal fds */
	KQ_SRC_PROCCN,    /* the proc connector socket */
	KQ_SRC_MOUNTS,    /* the mount table (vnode and fs knotes) */
	KQ_SRC_FIXED
};
#define KQ_TAG(src) (UINT64_MAX - (uint64_t)(src))
#define KQ_TAG_WAKE    KQ_TAG(KQ_SRC_WAKE)
#define KQ_TAG_INOTIFY KQ_TAG(KQ_SRC_INOTIFY)
#define KQ_TAG_WRSET   KQ_TAG(KQ_SRC_WRSET)
#define KQ_TAG_TIMER   KQ_TAG(KQ_SRC_TIMER)
#define KQ_TAG_SIGNAL  KQ_TAG(KQ_SRC_SIGNAL)
#define KQ_TAG_PROCCN  KQ_TAG(KQ_SRC_PROCCN)
#define KQ_TAG_MOUNTS  KQ_TAG(KQ_SRC_MOUNTS)

/* source.c */
extern const struct kq_source kq_fd_source, kq_pidfd_source;
extern const struct kq_source *const kq_fixed_sources[KQ_SRC_FIXED];
/* The source that owns an epoll report's tag. */
static inline const struct kq_source *kq_source_of(uint64_t tag)
{
	/* descriptor entries first: bit 31 of their low word is clear (fds
	 * are below 2^31); every other tag has it set */
	if (__builtin_expect(!((uint32_t)tag & 0x80000000u), 1))
		return &kq_fd_source;
	uint64_t k = UINT64_MAX - tag;
	return k < KQ_SRC_FIXED ? kq_fixed_sources[k] : &kq_pidfd_source;
}
void kq_fd_report(struct kqueue *kq, uint64_t tag, uint32_t revents);   /* kq_fd_source's */
bool kq_fd_exact_eof(void);   /* LIBKQ_EXACT_EOF is set (filter/fd.c) */
/* A report delivered without the ready queue when it can be (filter/fd.c):
 * -1 when it cannot (nothing done), else the records written at *out. */
int  kq_fd_report_direct(struct kqueue *kq, uint64_t tag, uint32_t revents,
			 struct kevent *out, int nreports);
/* Hands one epoll report to its source; a descriptor's, by far the most
 * common, with a direct call (which link-time optimization inlines). */
static inline void kq_source_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	const struct kq_source *src = kq_source_of(tag);
	if (src == &kq_fd_source)
		kq_fd_report(kq, tag, revents);
	else
		src->report(kq, tag, revents);
}
void kq_sources_begin(struct kqueue *kq);
void kq_sources_harvest(struct kqueue *kq, const struct epoll_event *evs, int n);
int64_t kq_sources_sleep(struct kqueue *kq);
void kq_sources_deliver(struct kqueue *kq, int nevents);
void kq_sources_fini(struct kqueue *kq);
void kq_sources_forget(struct kqueue *kq);

/* filter/mounts.c: the mount table, for NOTE_REVOKE and EVFILT_FS */
int  kq_mounts_watch(struct kqueue *kq);
int  kq_mount_id(int fd);
bool kq_mount_listed(const char *table, int id);

/* kqueue.c */
int  kq_create(int flags);
void kq_teardown(struct kqueue *kq);
bool kq_unlist_dead(struct kqueue *kq);
int  kq_fd_closing(int fd);                   /* libc/close.c: knotes die with fd */
void kq_fd_reborn(int fd);                    /* a fresh number: what it held is stale */
/* the libc replacement layer's objects (libc/close.c explains) */
extern const char kq_close_anchor, kq_vfork_anchor, kq_sockio_anchor,
		  kq_births_anchor, kq_spawn_anchor, kq_signal_anchor;
bool kq_is_kqueue_fd(int fd);

/* slab.c */
struct knote *kq_knote_alloc(struct kqueue *kq);      /* zeroed */
void kq_knote_free(struct kqueue *kq, struct knote *kn);
void kq_free(struct kqueue *kq, void *p);          /* free(), or later (no_free) */
void kq_graveyard_empty(struct kqueue *kq);
void kq_slabs_fini(struct kqueue *kq);

/* knote.c */
struct kq_fdslot *kq_fdslot_grow(struct kqueue *kq, int fd);
/* The slot of fd (NULL if fd < 0); with grow, the array is extended to
 * hold it (NULL if memory runs out), otherwise NULL when it has none. */
static inline struct kq_fdslot *kq_fdslot(struct kqueue *kq, int fd, bool grow)
{
	if ((unsigned)fd < kq->nfds)
		return &kq->fds[fd];
	return grow && fd >= 0 ? kq_fdslot_grow(kq, fd) : NULL;
}
/* Up to n of kq->hbuf's entries may hold reports now (an epoll call into
 * it returned n, or a consumer's may have).  A consuming sleep zeroes the
 * buffer below kq->hdirty only (kq_sleep, wake.c), rather than all the
 * room it gives epoll: for a caller asking 1024 events, 12 KiB a sleep,
 * where a sleep that wakes for a few reports dirtied a few. */
static inline void kq_hbuf_taken(struct kqueue *kq, int n)
{
	if (n > kq->hdirty)
		kq->hdirty = n;
}

/* No knotes and no kernel state: the slot does not count in its number's
 * interest. */
static inline bool kq_fdslot_unused(const struct kq_fdslot *s)
{
	return !s->head && !s->state;
}
void kq_fd_unpark(struct kqueue *kq, int fd);       /* filter/fd.c */
void kq_fd_park_flush(struct kqueue *kq);           /* filter/fd.c */
int  kq_fd_add_fresh(struct kqueue *kq, const struct kevent *kev);   /* filter/fd.c */
struct knote *kq_find(struct kqueue *kq, uintptr_t ident, short filter, bool isfd);
int  kq_link(struct kqueue *kq, struct knote *kn, bool isfd);
void kq_unlink(struct kqueue *kq, struct knote *kn, bool isfd);
void kq_enqueue(struct kqueue *kq, struct knote *kn);
void kq_dequeue(struct kqueue *kq, struct knote *kn);
void kq_drop(struct kqueue *kq, struct knote *kn);   /* detach+unlink+free */
void kq_drop_fd(struct kqueue *kq, int fd);
void kq_drop_all(struct kqueue *kq);
void kq_activate(struct kqueue *kq, struct knote *kn);

/* The record's ext[], from the knote's or zero. */
static inline void kq_copyout_ext(struct kevent *ev, const struct knote *kn)
{
	if (__builtin_expect(kn->ext != NULL, 0)) {
		memcpy(ev->ext, kn->ext, sizeof ev->ext);
	} else {
		/* Two 16-byte stores of a zero value, not a memset: the
		 * compiler may expand a memset here as a `rep stos`, which
		 * alone costs more than the rest of the record. */
		typedef uint64_t zero2 __attribute__((vector_size(16)));
		const zero2 z = { 0, 0 };
		memcpy(&ev->ext[0], &z, sizeof z);
		memcpy(&ev->ext[2], &z, sizeof z);
	}
}

/* A knote's record, as FreeBSD copies it out.  Field by field, not one
 * memcpy of the head: the filter has usually just stored flags, fflags
 * and data, and a 16-byte load over narrower fresh stores cannot be
 * forwarded from the store buffer; it waits for them to retire (several
 * ns a record on AMD Zen 2). */
static inline void kq_copyout(struct kevent *ev, const struct knote *kn)
{
	ev->ident = kn->ident;
	ev->filter = kn->filter;
	ev->flags = kn->flags;
	ev->fflags = kn->fflags;
	ev->data = kn->data;
	ev->udata = kn->udata;
	kq_copyout_ext(ev, kn);
}

/* filter.c */
const struct filterops *kq_filterops(short filter, int *err);
extern const struct filterops *const kq_filters[EVFILT_SYSCOUNT];
/* The vector of a knote's filter (validated when the knote was made). */
static inline const struct filterops *kq_fop(const struct knote *kn)
{
	return kq_filters[~kn->filter];
}
void kq_filters_fini(struct kqueue *kq);
void kq_filters_forget(struct kqueue *kq);

/* filter/dgram.c: EV_CLEAR datagram sockets */
void kq_dgram_delivered(struct kqueue *kq, struct knote *kn);
void kq_dgram_forget(struct kqueue *kq, struct knote *kn);
void kq_dgram_fini(struct kqueue *kq);

/* filter/timer.c, filter/signal.c */
uint64_t kq_signal_spawn_enter(sigset_t *old);   /* around posix_spawn() */
/* libc/signal.c's sigaction() and sigwait family */
int  kq_signal_sigaction(int sig, const struct sigaction *act, struct sigaction *oact);
void kq_signal_consumed(int sig);
void kq_signal_spawn_leave(uint64_t swapped, const sigset_t *old);
/* EVFILT_PROC without pidfds: SIGCHLD wakes kq (signal.c), which then
 * looks for exited children (proc.c) */
int  kq_signal_hold_chld(struct kqueue *kq);
void kq_signal_release_chld(struct kqueue *kq);
void kq_proc_sigchld(struct kqueue *kq);
/* Runs of libkq's signal handler, and whether one since `runs` should
 * count as a wake-up of a sleep it interrupted (signal.c) */
uint64_t kq_signal_runs(void);
bool kq_signal_woke(uint64_t runs);
int  kq_vnode_sync(struct kqueue *kq, int fd);
void kq_vnode_fork_child(void);   /* its idle inotify instances */
int  kq_vnode_pool_move(int fd);  /* move.c: 1 if fd was parked and moved */

/* register.c */
int  kq_register(struct kqueue *kq, struct kevent *kev);
int  kq_change_check(const struct kevent *kev, const struct filterops **fop);
/* hide.c: libkq's own descriptors, out of the program's way */
int  kq_fd_dup_high(int fd);   /* marked as libkq's */
void kq_dup_window_open(void);   /* a program's dup2()/dup3(): hide.c */
void kq_dup_window_close(void);
int  kq_fd_hide(int fd);
bool kq_fd_hidden_live(int fd);
enum { KQ_OWN_NONE, KQ_OWN_EPOLL, KQ_OWN_EVENTFD, KQ_OWN_INOTIFY, KQ_OWN_FIXED };
int  kq_fd_hidden_kind(int fd);
int  kq_fd_own(int fd);          /* a filter's descriptor, out of the way */
void kq_fd_own_close(int fd);
/* move.c: a filter's own descriptor at `old` now at `new` too (kq->lock,
 * and every other kqueue's, held); true if it was this filter's */
bool kq_timer_renumber(struct kqueue *kq, int old, int new);
bool kq_proc_renumber(struct kqueue *kq, int old, int new);
bool kq_uring_renumber(struct kq_uring *r, int old, int new);
bool kq_vnode_renumber(struct kqueue *kq, int old, int new);
bool kq_efdinfo_renumber(struct kqueue *kq, int old, int new);
bool kq_efdinfo_spare_renumber(int old, int new);   /* the process's */
/* libc/rlimit.c: RLIMIT_NOFILE changed; the spare fdinfo file follows it
 * (filter/efdinfo.c) */
void kq_efdinfo_limit_changed(void);
void kq_entry_rekey(struct kqueue *kq, int old, int new, uint32_t events, uint64_t tag);
bool kq_signal_owns(int fd);     /* filter/signal.c's process descriptors */
bool kq_signal_renumber(int old, int new);
bool kq_signal_writes_open(void);
/* move.c: libkq's own descriptor at fd moved to another number, so the
 * program may have fd (dup2, dup3); 0 or -errno */
int  kq_fd_move_out(int fd);
/* fork.c's prepare and parent handlers: no move is half-done in a child */
void kq_move_lock(void);
bool kq_move_trylock(void);
void kq_move_unlock(void);
const char *kq_procfs_self(void);   /* filter/efdinfo.c */
/* wake.c: the eventfd every kqueue's wake entry names */
int  kq_wake_shared(void);
void kq_wake_shared_put(void);
int  kq_wake_shared_fd(void);
bool kq_wake_shared_hold(int fd);   /* a reference, if fd is the wake eventfd */
void kq_wake_shared_moved(int fd);  /* its new number (move.c) */
int  kq_wake_spare_move(int fd);    /* move.c: the wake pipe's write end */
void kq_wake_shared_forget(void);   /* fork child */
/* reentry.c: kevent() from a signal handler on a kqueue its own thread is
 * inside, and the changes it leaves for the lock's holder */
int  kq_reentry(int kqfd, const struct kevent *changes, int nchanges,
		struct kevent *events, int nevents, const struct timespec *timeout)
	__attribute__((cold));
struct kqueue *kq_acquire_reentry(struct kqueue *kq, int fd, int *err)
	__attribute__((noinline, cold));
void kq_hchanges_init(struct kqueue *kq);
bool kq_hchanges_pending(struct kqueue *kq);
bool kq_hchanges_apply(struct kqueue *kq);

/* scan.c */
int  kq_scan(struct kqueue *kq, struct kevent *ev, int nevents,
             const struct timespec *timeout);
int  kq_harvest(struct kqueue *kq, int maxevents, int want);
/* kevent() without changes, with a zero timeout: acquires, scans, releases */
int  kq_poll(int kqfd, struct kevent *ev, int nevents) __attribute__((noinline));
int  kq_wait(int kqfd, struct kevent *ev, int nevents, const struct timespec *timeout)
	__attribute__((noinline));
int  kq_wait_locked(struct kqueue *kq, struct kevent *ev, int nevents,
		    const struct timespec *timeout);
/* Hands n epoll reports to their sources (a source with a nested set of
 * its own passes that set's reports back in). */
void kq_scan_reports(struct kqueue *kq, const struct epoll_event *evs, int n);
int  kq_harvest_init(struct kqueue *kq);
int  kq_pending_count(struct kqueue *kq);

/* mux/epoll.c */
int  kq_epoll_wait(int epfd, struct epoll_event *evs, int n, int64_t timeout_ns);
/* Timeouts up to this are held to the microsecond (a sleep, then polling);
 * longer ones sleep once, and the scan takes no account of the time a call
 * spends before it sleeps. */
#define KQ_SHORT_TIMEOUT_NS 1000000

/* mux/uring.c: many sockets' counts in one system call */
#define KQ_URING_MAX 64
enum { KQ_UQ_INQ, KQ_UQ_OUTQ, KQ_UQ_SNDBUF };
struct kq_uring_q {
	int fd;
	int op;   /* KQ_UQ_* */
};
bool kq_uring_usable(void);
struct kq_uring *kq_uring_new(void);
void kq_uring_free(struct kq_uring *r);
int  kq_uring_ask(struct kq_uring *r, const struct kq_uring_q *q, int *out, unsigned n);

/* fork.c, and the pieces it calls */
void kq_fork_prepare_kqueues(void);
void kq_fork_parent_kqueues(void);
void kq_lock_all(void);     /* every live kqueue's lock; kq_glock held */
void kq_unlock_all(void);
void kq_fork_child_kqueues(void);
void kq_signal_fork_prepare(void);
void kq_signal_fork_parent(void);
void kq_signal_fork_child(void);
void kq_fdtab_forget_all(void);

/* fdtab.c: per-process facts about descriptor numbers */
/* The kqueue a number is, or NULL: two levels of pages (fdtab.c). */
#define KQ_FDTAB_PAGE_BITS 12
#define KQ_FDTAB_PAGES     4096u
extern _Atomic(_Atomic(struct kqueue *) *) kq_fdtab_kqpages[KQ_FDTAB_PAGES];
static inline struct kqueue *kq_fdtab_kq(int fd)
{
	unsigned p = (unsigned)fd >> KQ_FDTAB_PAGE_BITS;
	if (p >= KQ_FDTAB_PAGES)   /* fd < 0 as well */
		return NULL;
	_Atomic(struct kqueue *) *pg =
		atomic_load_explicit(&kq_fdtab_kqpages[p], memory_order_acquire);
	if (!pg)
		return NULL;
	struct kqueue *kq = atomic_load_explicit(&pg[(unsigned)fd & ((1u << KQ_FDTAB_PAGE_BITS) - 1)],
						 memory_order_acquire);
	/* bit 0: a number libkq holds for itself (kq_fdtab_hide) */
	return ((uintptr_t)kq & 1) ? NULL : kq;
}

/* Only a prefetch ever follows the hint: it may name a knote freed since
 * (a prefetch does not fault).  kqueue objects are never freed. */
static inline void kq_prefetch_hint(struct kqueue *kq)
{
	struct knote *kn = __atomic_load_n(&kq->user_hint, __ATOMIC_RELAXED);
	if (kn)
		__builtin_prefetch(kn, 1);
}

void kq_fdtab_set_kq(int fd, struct kqueue *kq);
/* Numbers libkq holds for itself (hide.c): close() and its kin treat them
 * as free numbers. */
void kq_fdtab_hide(int fd);
void kq_fdtab_unhide(int fd);
bool kq_fdtab_hidden(int fd);
void kq_fdtab_interest(struct kqueue *kq, int fd, int delta);
int  kq_fdtab_interest_of(int fd);
int  kq_fdtab_holders(int fd, unsigned long long *ids);
void kq_fdtab_stash_error(int fd, int err);
int  kq_fdtab_peek_error(int fd);
int  kq_fdtab_take_error(int fd);
bool kq_fdtab_any_error(void);
void kq_fdtab_rx_watch(int fd, int delta);   /* see filter/dgram.c */
bool kq_fdtab_rx_any(void);
void kq_fdtab_rx_note(int fd);
unsigned kq_fdtab_rx(int fd);
bool kq_fdtab_error_kept(int fd);
void kq_fdtab_clear(int fd);
bool kq_fdtab_busy(int fd);
/* a socket libkq saw made; ep: kq_fdtab_epoch() before it was */
void kq_fdtab_born(int fd, int kind, bool can_be_private, unsigned ep);
unsigned kq_fdtab_epoch(void);
int  kq_fdtab_birth_kind(int fd);       /* its kind, or 0 */
int  kq_fdtab_socket_interest(struct kqueue *kq, int fd);
bool kq_fdtab_private(int fd);          /* no copy of it may exist */
bool kq_fdtab_seems_private(int fd);   /* the same, not for a close */
unsigned kq_fdtab_windows(void);        /* a mark for kq_fdtab_closed() */
void kq_fdtab_closed(unsigned mark);    /* the close system call is over */
void kq_fdtab_copied(int fd);           /* a copy may exist now */
void kq_fdtab_child_begin(void);       /* a child is being made */
void kq_fdtab_child_end(void);
void kq_fdtab_child_made(void);         /* in a fork child */
void kq_fdtab_set_lowat(int fd);        /* SO_RCVLOWAT set on it */
void kq_fdtab_forget_birth(int fd);
bool kq_fdtab_lowat_set(int fd);
int  kq_fdtab_next_busy(int from, int to);

extern pthread_mutex_t kq_glock;
extern struct kqueue *kq_live;

#include "wake.h"

#endif /* KQ_KQ_H */
