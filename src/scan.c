/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Collecting events (FreeBSD's kqueue_scan), under kq->lock.
 *
 * Activations arrive from epoll and are put on the kqueue's ready queue;
 * delivery takes knotes from the head, asks the filter again (re-validation:
 * a condition that no longer holds is never reported), copies out, and applies
 * the ONESHOT / CLEAR / DISPATCH bookkeeping.  A pass handles at most the
 * knotes that were queued when it began, which is what FreeBSD's marker does.
 *
 * Level-triggered knotes whose epoll entry is itself level-triggered
 * (KN_LEVELSRC) are not put back on the queue after delivery: epoll reports
 * them again while they hold, so the common path is one epoll_wait() plus the
 * filter's data ioctl per event.  Other level knotes go back to the tail, as
 * in FreeBSD, which is also what makes small nevents rotate fairly.
 */
#include "kq.h"
#include "sys.h"
#include "filter/fdslot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Bounds of kq->hbuf, in reports.  It is grown to what a kevent() call asks
 * for (nevents + 2) so that one epoll_wait() brings everything: with level
 * entries, a second call would start returning the first call's entries
 * again (epoll puts them back at the tail) and cost a third call to see that
 * nothing new came. */
#define HARVEST_MIN 64
#define HARVEST_CAP 16384

/* Each report goes to the source that owns its tag (source.c). */
void kq_scan_reports(struct kqueue *kq, const struct epoll_event *evs, int n)
{
	kq->nreports += (unsigned)n;
	kq_sources_harvest(kq, evs, n);
	for (int i = 0; i < n; i++) {
		kq_source_report(kq, evs[i].data.u64, evs[i].events);
	}
}

/*
 * kq->hbuf receives epoll's reports: the consumer's (unlocked, and alone:
 * see kq_sleep, wake.c) and every harvest made under the lock after
 * kq_quiesce().  It only grows, and only right after a quiesce, so nobody is
 * reading reports from it then.  Returns its capacity.
 */
static int harvest_room(struct kqueue *kq, int want)
{
	if (want > HARVEST_CAP)
		want = HARVEST_CAP;
	/* not under a consumer's feet: a signal handler on its thread may
	 * harvest while the consumer's system call is yet to come
	 * (reentry.c) */
	if (want > kq->hbufcap && !kq->consumer) {
		struct epoll_event *b = realloc(kq->hbuf, (size_t)want * sizeof *b);
		if (b) {
			kq->hbuf = b;
			kq->hbufcap = want;
			kq->hdirty = want;   /* realloc()'s new room holds anything */
		}
	}
	return kq->hbufcap;
}

int kq_harvest_init(struct kqueue *kq)
{
	kq->hbuf = NULL;
	kq->hbufcap = 0;
	kq->hdirty = 0;
	return harvest_room(kq, HARVEST_MIN) == HARVEST_MIN ? 0 : -ENOMEM;
}

/* Moves what epoll has ready onto the ready queue without waiting, until
 * `want` knotes are queued or epoll has nothing new (level entries come back
 * round after round, so stop when a round adds nothing). */
static void harvest_rest(struct kqueue *kq, int r, int maxevents, int want)
{
	while (r == maxevents && kq->qcount < (unsigned)want) {
		unsigned before = kq->qcount;
		r = kq_epoll_wait(kq->epfd, kq->hbuf, maxevents, 0);
		if (r <= 0)
			return;
		kq_hbuf_taken(kq, r);
		kq_scan_reports(kq, kq->hbuf, r);
		if (kq->qcount == before)
			return;
	}
}

/*
 * Records a round of kq_scan() delivers straight from epoll's reports
 * (kq_fd_report_direct) instead of through the ready queue.  Only while the
 * queue is empty (knotes carried over from an earlier call, or queued by
 * an earlier report of the same harvest, go first), and only for a harvest
 * that took all epoll had: one that
 * filled its buffer asks again (harvest_rest), and a level entry delivered
 * directly would be reported a second time, and delivered twice.
 */
struct direct {
	struct kevent *ev;
	int room;   /* 0: no direct delivery (kq_harvest) */
	int n;
};

/* One report straight into a record at *out: -1 when it must go through
 * the queue (nothing done), else the records written (0 or 1).  The caller
 * has seen the ready queue empty. */
static inline __attribute__((always_inline))
int direct_record(struct kqueue *kq, uint64_t tag, uint32_t revents, struct kevent *out,
		  int nreports)
{
	if (kq_source_of(tag) != &kq_fd_source)
		return -1;
	if (__builtin_expect(kq_fd_direct_read(kq, tag, revents, out, nreports), 1))
		return 1;
	return kq_fd_report_direct(kq, tag, revents, out, nreports);
}

/* Reports evs[i..n) of a harvest that took all epoll had, for direct
 * delivery into d's room. */
static void report_loop(struct kqueue *kq, const struct epoll_event *evs, int i, int n,
			struct direct *d)
{
	for (; i < n; i++) {
		uint64_t tag = evs[i].data.u64;
		/* once a report has queued a knote, the rest queue behind it:
		 * records keep the order of activation (a listener's
		 * connection before the connect it completed, say) */
		if (d->n < d->room && !kq->qhead) {
			int r = direct_record(kq, tag, evs[i].events, &d->ev[d->n], n);
			if (r >= 0) {
				d->n += r;
				continue;
			}
		}
		kq_source_report(kq, tag, evs[i].events);
	}
}

static void scan_reports(struct kqueue *kq, const struct epoll_event *evs, int n,
			 int maxevents, struct direct *d)
{
	if (d->n >= d->room || kq->qhead || n >= maxevents) {
		kq_scan_reports(kq, evs, n);
		return;
	}
	kq->nreports += (unsigned)n;
	kq_sources_harvest(kq, evs, n);
	report_loop(kq, evs, 0, n, d);
}

/* Inline: kq_poll() calls it on every zero-timeout kevent(). */
static inline __attribute__((always_inline))
int harvest(struct kqueue *kq, int maxevents, int want, struct direct *d)
{
	kq->skips = 0;
	if (maxevents > kq->hbufcap)
		maxevents = kq->hbufcap;
	int r = kq_epoll_wait(kq->epfd, kq->hbuf, maxevents, 0);
	if (r > 0) {
		kq_hbuf_taken(kq, r);
		scan_reports(kq, kq->hbuf, r, maxevents, d);
		harvest_rest(kq, r, maxevents, want);
	}
	return r;
}

int kq_harvest(struct kqueue *kq, int maxevents, int want)
{
	struct direct none = { NULL, 0, 0 };
	return harvest(kq, maxevents, want, &none);
}

/* The number of knotes a nested READ on this kqueue reports as data. */
int kq_pending_count(struct kqueue *kq)
{
	if (kq_quiesce(kq) != 0)
		return 0;
	kq_harvest(kq, INT32_MAX, INT32_MAX);
	return (int)kq->qcount;
}

#define ABSORB_MAX 64

/* Knotes delivered with EV_CLEAR in this call, for absorb_window(). */
struct delivered {
	struct knote *kn[ABSORB_MAX];
	int64_t data[ABSORB_MAX];      /* as delivered */
	bool eof[ABSORB_MAX];
	int n;
};

/* `carried`: how many knotes at the head of the queue were queued before
 * this kevent() call.  The poll bits of their epoll report are old, and a
 * newer report (the peer's close, say) may still wait in epoll behind what
 * the harvest took, so they are asked again rather than trusted: FreeBSD
 * evaluates the filter at delivery. */
static int kq_deliver(struct kqueue *kq, struct kevent *ev, int nevents,
		      struct delivered *dl, unsigned carried)
{
	unsigned budget = kq->qcount;
	int n = 0;
	struct knote *kn;

	while (budget-- > 0 && n < nevents && (kn = kq->qhead) != NULL) {
		kq_dequeue(kq, kn);
		if (carried) {
			carried--;
			kn->status &= ~KN_FRESH;
		}
		const struct filterops *fop = kq_fop(kn);
		int fire;
		if (kn->status & KN_DISABLED)
			fire = 0;
		else if (kn->flags & EV_ONESHOT) {
			/* reported as it fired, without re-validation, unless
			 * its source is gone (FreeBSD looks at EV_DROP first).
			 * One whose activation found its condition false was
			 * queued to be evaluated (a regular file's READ knote
			 * added at end of file): FreeBSD queues a knote only
			 * when its filter says it fired, so it fires only if
			 * that holds now. */
			if (kn->status & (KN_SNAPSHOT | KN_FORCED)) {
				if (!(kn->status & KN_SNAPSHOT))
					fop->event(kq, kn);
				fire = !(kn->flags & EV_DROP);
			} else {
				fire = fop->event(kq, kn) && !(kn->flags & EV_DROP);
			}
		} else
			fire = fop->event(kq, kn);
		kn->status &= ~(KN_FRESH | KN_SNAPSHOT | KN_FORCED);
		if (!fire) {
			/* FreeBSD's EV_DROP: the source is gone with nothing
			 * to report (a process exit nobody asked about) */
			if (kn->flags & EV_DROP)
				kq_drop(kq, kn);
			continue;
		}

		kq_copyout(&ev[n++], kn);
		if (fop->delivered)
			fop->delivered(kq, kn);
		if (kn->flags & EV_ONESHOT) {
			kq_drop(kq, kn);
			continue;
		}
		if (kn->flags & EV_CLEAR) {
			kn->data = 0;
			kn->fflags = 0;
			if (!(kn->flags & EV_DISPATCH) && dl->n < ABSORB_MAX &&
			    (kn->filter == EVFILT_READ || kn->filter == EVFILT_WRITE)) {
				dl->kn[dl->n] = kn;
				dl->data[dl->n] = ev[n - 1].data;
				dl->eof[dl->n++] = (ev[n - 1].flags & EV_EOF) != 0;
			}
		}
		if (kn->flags & EV_DISPATCH) {
			kn->status |= KN_DISABLED;
			fop->arm(kq, kn);
		} else if (!(kn->flags & EV_CLEAR) && !(kn->status & KN_LEVELSRC)) {
			kq_enqueue(kq, kn);
		}
	}
	return n;
}

/*
 * FreeBSD keeps a knote marked queued while a scan delivers it, so an
 * activation in that window (data arriving between our harvest and our
 * FIONREAD) is merged into the record being delivered.  Here its edge stays
 * in epoll and would give a second record with the same data, to whichever
 * thread harvests next.  With one thread that is a spurious wake-up, but
 * when threads share the kqueue two of them would handle one descriptor at
 * once.  So on a shared kqueue (two threads inside at once, or deliveries
 * by two threads), what epoll holds now is harvested, and an EV_CLEAR
 * READ/WRITE knote just delivered that this queued again is asked once
 * more: if its state is still the one just reported, the report was the
 * window's and is dropped; if anything changed (a write after our FIONREAD,
 * the peer's close) it stays queued, so nothing is lost.  The record has
 * not reached the program yet, so nothing it reads can make the two states
 * match.  A kqueue only one thread uses does not pay the system call.
 */
static void absorb_window(struct kqueue *kq, struct delivered *dl)
{
	if (!dl->n)
		return;
	if (!kq->shared) {
		const void *me = &kq_held;
		if (kq->users >= 2 || (kq->deliverer && kq->deliverer != me))
			kq->shared = true;
		kq->deliverer = me;
		if (!kq->shared)
			return;
	}
	/* all of it: the report may sit behind level entries */
	kq_harvest(kq, INT32_MAX, INT32_MAX);
	for (int i = 0; i < dl->n; i++) {
		struct knote *kn = dl->kn[i];
		if (!(kn->status & KN_QUEUED) || (kn->status & KN_DISABLED))
			continue;
		kn->status &= ~KN_FRESH;
		const struct filterops *fop = kq_fop(kn);
		int fire = fop->event(kq, kn);
		if (fire && (kn->data != dl->data[i] ||
			     ((kn->flags & EV_EOF) != 0) != dl->eof[i]))
			continue;
		kq_dequeue(kq, kn);
		kn->data = 0;
		kn->fflags = 0;
	}
}

/* Delivers from the ready queue into the event list's room after the
 * records d already holds there; returns the records in all. */
static int deliver(struct kqueue *kq, const struct direct *d, unsigned carried)
{
	struct delivered dl;
	dl.n = 0;
	kq_sources_deliver(kq, d->room - d->n);
	int n = d->n + kq_deliver(kq, d->ev + d->n, d->room - d->n, &dl, carried);
	absorb_window(kq, &dl);
	return n;
}

/*
 * An EV_CLEAR knote left queued by an earlier call may have a newer report
 * waiting in epoll for the same activation (a second write, the close of
 * the peer).  FreeBSD coalesces activations of a queued knote into its one
 * record; delivering it first and harvesting that report later would give a
 * second record of the same state.  So when such a knote is carried, epoll
 * is drained before delivery.  Level knotes do not need this: a record of a
 * condition that still holds is never a duplicate.
 */
static bool carried_clear(struct kqueue *kq, unsigned carried)
{
	/* (EVFILT_USER activations never come through epoll) */
	for (struct knote *kn = kq->qhead; kn && carried; kn = kn->qnext, carried--)
		if ((kn->flags & EV_CLEAR) && kn->filter != EVFILT_USER)
			return true;
	return false;
}

/*
 * The "O(1) retrieval" of the Linux kqueue prototype: when the first
 * nevents knotes of the ready queue are triggered EVFILT_USER knotes (whose
 * evaluation is a flag test), the call is answered from the queue without
 * asking epoll.  It must fill every slot: a call returning fewer records
 * than nevents owes everything pending, epoll's reports included, so any
 * knote whose evaluation might fail (a stale timer, a descriptor) keeps the
 * harvest.  What epoll holds is not lost, only queued later; so that knotes
 * that keep coming back (a level USER knote) cannot starve it, at most
 * SKIP_MAX calls in a row skip the harvest.
 */
#define SKIP_MAX 8

static bool queue_answers(struct kqueue *kq, int nevents)
{
	if (kq->qcount < (unsigned)nevents || kq->skips >= SKIP_MAX)
		return false;
	int i = 0;
	for (struct knote *kn = kq->qhead; kn && i < nevents; kn = kn->qnext, i++)
		if (kn->filter != EVFILT_USER || !kq_fop(kn)->event(kq, kn))
			return false;
	return i == nevents;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * An entry epoll keeps for a file that was closed behind libkq's back but
 * is still open elsewhere (a dup, a child's copy) is keyed by a number
 * that no longer names the file, so no epoll_ctl() can remove it; its
 * reports are dropped (filter/fd.c), but a level-triggered one comes back
 * at every epoll_wait(), which then never sleeps.  When the rounds of a
 * waiting call bring nothing but such reports, the call sleeps
 * ORPHAN_NAP_NS between rounds instead of spinning, until that file is
 * closed everywhere (docs/differences.md).
 */
#define ORPHAN_NAP_NS 1000000

static int orphan_nap(int64_t rem)
{
	struct timespec ts = { 0, ORPHAN_NAP_NS };
	if (rem >= 0 && rem < ORPHAN_NAP_NS)
		ts.tv_nsec = (long)rem;
	long r = KQ_SYSCALL(SYS_nanosleep, &ts, NULL);
	return r == -EINTR ? -EINTR : 0;
}

/* timeout == NULL: forever; the caller validated it.  FreeBSD treats any
 * tv_sec beyond INT32_MAX as forever too. */
int kq_scan(struct kqueue *kq, struct kevent *ev, int nevents,
	    const struct timespec *timeout)
{
	int64_t deadline = -1;   /* absolute, CLOCK_MONOTONIC; -1 forever */
	int64_t total = -1;
	bool poll_only = false;
	if (timeout && timeout->tv_sec <= INT32_MAX) {
		if (timeout->tv_sec == 0 && timeout->tv_nsec == 0) {
			poll_only = true;
		} else {
			total = (int64_t)timeout->tv_sec * 1000000000 + timeout->tv_nsec;
			deadline = now_ns() + total;
		}
	}
	int err = kq_quiesce(kq);
	if (err)
		return err;
	kq_sources_begin(kq);
	int want = nevents < HARVEST_CAP - 2 ? nevents + 2 : HARVEST_CAP;
	int maxev = harvest_room(kq, want);
	if (maxev > want)
		maxev = want;
	unsigned carried = kq->qcount;
	bool skip = false;
	if (carried_clear(kq, carried))
		kq_harvest(kq, INT32_MAX, INT32_MAX);
	else
		skip = queue_answers(kq, nevents);

	int orphan_rounds = 0;
	for (int round = 0;; round++) {
		int got = 0;
		struct direct d = { ev, nevents, 0 };
		unsigned reports0 = kq->nreports, stale0 = kq->nstale;
		if (skip) {
			skip = false;
			kq->skips++;
			got = 1;   /* if all of it was stale, harvest next round */
		} else if (kq->qhead || poll_only) {
			got = harvest(kq, maxev, nevents, &d);
		} else {
			int64_t rem = -1;
			if (deadline >= 0 && round == 0 && total > KQ_SHORT_TIMEOUT_NS) {
				/* the call began a few hundred nanoseconds
				 * ago: no second clock read for that */
				rem = total;
			} else if (deadline >= 0) {
				rem = deadline - now_ns();
				if (rem <= 0)
					return 0;
			}
			if (orphan_rounds >= 2) {
				kq_mutex_unlock(&kq->lock);
				err = orphan_nap(rem);
				kq_mutex_lock(&kq->lock);
				kq_deferred(kq);
				if (kq->dead)
					return -EBADF;
				if (err)
					return err;
				if ((err = kq_quiesce(kq)) != 0)
					return err;
			}
			uint64_t runs = kq->sigs ? kq_signal_runs() : 0;
			/* a source that must look again within some time
			 * (kq->looks) bounds the sleep; the next round looks */
			int64_t cap = kq_sources_sleep(kq);
			if (cap >= 0 && (rem < 0 || cap < rem))
				rem = cap;
			bool consume = !kq->consumer && !kq->quiescers;
			int r = kq_sleep(kq, maxev, rem, consume);
			if (r == KQ_SLEEP_AGAIN) {
				/* handlers' changes were applied: no sleep */
				consume = false;
				r = 0;
			}
			/* a watched signal ends the sleep as a wake-up, not an
			 * error, where no signalfd saw it first (signal.c) */
			if (r == -EINTR && kq->sigs && kq_signal_woke(runs))
				r = 0;
			if (consume) {
				if (r > 0)
					scan_reports(kq, kq->hbuf, r, maxev, &d);
				kq->consumer = false;
				kq_cond_broadcast(&kq->cond);
			}
			if (kq->dead)
				return -EBADF;
			if (r < 0)
				return r;
			if (consume) {
				harvest_rest(kq, r, maxev, nevents);
			} else {
				if ((err = kq_quiesce(kq)) != 0)
					return err;
				harvest(kq, maxev, nevents, &d);
			}
		}
		int n = deliver(kq, &d, carried);
		carried = 0;
		/* A zero timeout still owes what epoll holds: a pass that found
		 * only stale knotes may have left ready ones unharvested.  The
		 * bound keeps a level entry that keeps reporting a condition its
		 * filter rejects from spinning here. */
		if (n > 0 || (poll_only && (got <= 0 || round >= 8)))
			return n;
		unsigned nrep = kq->nreports - reports0;
		if (nrep && nrep == kq->nstale - stale0)
			orphan_rounds++;
		else
			orphan_rounds = 0;
		if (deadline >= 0 && now_ns() >= deadline)
			return 0;
	}
}

/* kq_poll()'s return: the records, or -1 with errno set. */
static int poll_result(int r)
{
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

/* kq_poll() when the straight line does not apply: the general rounds. */
__attribute__((noinline, cold))
static int poll_general(struct kqueue *kq, struct kevent *ev, int nevents)
{
	static const struct timespec zero = { 0, 0 };
	int r = kq_scan(kq, ev, nevents, &zero);
	kq_release(kq);
	return poll_result(r);
}

__attribute__((noinline, cold))
static int poll_failed(int err)
{
	return poll_result(err);
}

/* kq_poll() from the first of epoll's n reports its straight line did not
 * finish (i), with `done` records already written: what harvest() and
 * kq_scan() would have done with them. */
__attribute__((noinline))
static int poll_rest(struct kqueue *kq, struct kevent *ev, int nevents, int n, int i,
		     int done)
{
	static const struct timespec zero = { 0, 0 };
	struct direct d = { ev, nevents, done };
	int maxev = nevents + 2;
	if (i < 0) {
		scan_reports(kq, kq->hbuf, n, maxev, &d);
		harvest_rest(kq, n, maxev, nevents);
	} else {
		/* a harvest that took all epoll had: nothing more to ask */
		report_loop(kq, kq->hbuf, i, n, &d);
	}
	int r = kq->qhead ? deliver(kq, &d, 0) : d.n;
	/* reports that all came to nothing: the general rounds */
	if (r == 0)
		r = kq_scan(kq, ev, nevents, &zero);
	kq_release(kq);
	return poll_result(r);
}

/* kq_poll() when epoll gave n > 1 reports: each report of a descriptor
 * with one plain level knote becomes its record at once.  Apart, so that
 * the one-report path stays short. */
__attribute__((noinline))
static int poll_many(struct kqueue *kq, struct kevent *ev, int nevents, int n)
{
	const struct epoll_event *evs = kq->hbuf;
	int r = 0;
	/* direct_record() spelt out: the compiler lays this loop out
	 * shorter when the inline record ends in a `continue` of its
	 * own (8 instructions fewer a call, 15 a further event) */
	for (int i = 0; i < n; i++) {
		uint64_t tag = evs[i].data.u64;
		int k;
		if (r == nevents)
			return poll_rest(kq, ev, nevents, n, i, r);
		if (__builtin_expect(kq_source_of(tag) == &kq_fd_source &&
				     kq_fd_direct_read(kq, tag, evs[i].events, &ev[r], n), 1)) {
			r++;
			continue;   /* the inline record queues nothing */
		}
		if (kq_source_of(tag) != &kq_fd_source ||
		    (k = kq_fd_report_direct(kq, tag, evs[i].events, &ev[r], n)) < 0)
			return poll_rest(kq, ev, nevents, n, i, r);
		r += k;
		/* whatever it queued goes before the rest (report_loop) */
		if (kq->qhead)
			return poll_rest(kq, ev, nevents, n, i + 1, r);
	}
	if (__builtin_expect(r == 0 || kq->qhead, 0))
		return poll_rest(kq, ev, nevents, n, n, r);
	kq_release(kq);
	return r;
}

/*
 * The harvest of kq_poll() once the kqueue is held and nothing carried
 * over (no queue, no consumer, no rechecks, room for nevents + 2
 * reports).  True when the call is over: *r is its answer and the kqueue
 * released.  False with the kqueue still held: *r records made, 0 or 1
 * (one report, the commonest answer, made inline).  `oneshot`: whether
 * one-shot knotes may be about, which want their counts batched first
 * (the sources' harvest hook); a constant at each caller.
 */
static inline __attribute__((always_inline))
bool poll_harvest(struct kqueue *kq, struct kevent *ev, int nevents, bool oneshot, int *r)
{
	kq->skips = 0;
	int n = kq_epoll_wait(kq->epfd, kq->hbuf, nevents + 2, 0);
	*r = 0;
	kq_hbuf_taken(kq, n);
	if (__builtin_expect(n == 1 && !(oneshot && kq->fd_oneshot), 1)) {
		uint64_t tag = kq->hbuf[0].data.u64;
		if (__builtin_expect(kq_source_of(tag) != &kq_fd_source ||
				     !kq_fd_direct_read(kq, tag, kq->hbuf[0].events, ev, 1), 0)) {
			*r = poll_rest(kq, ev, nevents, 1, 0, 0);
			return true;
		}
		*r = 1;
		return false;
	}
	if (n <= 0)
		return false;
	/* a full buffer asks epoll again (harvest_rest) */
	if (__builtin_expect(n >= nevents + 2 || (oneshot && kq->fd_oneshot), 0))
		*r = poll_rest(kq, ev, nevents, n, -1, 0);
	else
		*r = poll_many(kq, ev, nevents, n);
	return true;
}

/* kq_poll() through the general acquisition: several threads, another
 * kqueue than the last, a kevent() of this thread's own under way. */
__attribute__((noinline))
static int poll_locked(int kqfd, struct kevent *ev, int nevents)
{
	int err, r;
	struct kqueue *kq = kq_acquire(kqfd, &err);
	if (__builtin_expect(!kq, 0)) {
		static const struct timespec zero = { 0, 0 };
		if (err == -EDEADLK)
			return kq_reentry(kqfd, NULL, 0, ev, nevents, &zero);
		return poll_failed(err);
	}
	/* hbufcap <= HARVEST_CAP, so this also bounds nevents (> 0 here) */
	if (__builtin_expect(kq->qhead || kq->consumer || kq->rechecks || kq->looks ||
			     (unsigned)nevents + 2 > (unsigned)kq->hbufcap, 0))
		return poll_general(kq, ev, nevents);
	if (poll_harvest(kq, ev, nevents, true, &r))
		return r;
	kq_release(kq);
	return r;
}

/* Flags that send kq_poll()'s one-thread path to the general one on
 * entry, and to kq_release() on the way out. */
#define POLL_ENTER (KQ_FLAG(dead) | KQ_FLAG(entries_die) | KQ_FLAG(consumer) | \
		    KQ_FLAG(fd_oneshot) | KQ_FLAG(deferred_any) | KQ_FLAG(no_free))
#define POLL_LEAVE (KQ_FLAG(dead) | KQ_FLAG(wake_on) | KQ_FLAG(deferred_any))

/*
 * kevent() with no changes and a zero timeout: what event loops call
 * between rounds of work, and benchmarks in a loop.  When nothing is
 * carried on the ready queue, no source has work at the start of a call (a
 * datagram recheck, a polled file: kq->looks), no other thread consumes,
 * and one epoll_wait() takes all epoll has, each report of a descriptor
 * with one plain level knote becomes its record at once (direct_record).
 * Anything else leaves the straight line for poll_locked(),
 * poll_general() or poll_rest(), which go on as kq_scan() would have.  Every instruction here shows
 * next to the floor of two system calls per event, so: no nreports count
 * (only kq_scan() reads it, within one call), no sources' harvest hook
 * unless one-shot knotes are about (fd_harvest), and the kqueue's fields
 * it reads sit in the struct's first two cache lines.  Returns the
 * records, or -1 with errno set.
 */
int kq_poll(int kqfd, struct kevent *ev, int nevents)
{
	pthread_testcancel();   /* kevent() is a cancellation point */
	/*
	 * A process of one thread, polling the kqueue its thread entered
	 * last, with no kevent() of its own under way (h->n == 0: not a
	 * signal handler inside one): kq_acquire() and kq_release() with
	 * what that allows.  The record for the thread's signal handlers
	 * is made first, as kq_acquire_obj() makes it, so a handler that
	 * closes a descriptor from here on defers (deferred_any, seen on
	 * the way out).  The lock is taken as the one-thread lock is
	 * (KQ_MUTEX_ALONE) and users counted, so that every other path
	 * from here releases it as usual.  Several flags are tested in one
	 * load: nothing else writes them while one thread exists but its
	 * handlers, which an atomic load of the word cannot tear.
	 */
	struct kq_held *h = kq_held_self();
	struct kqueue *kq = h->last_kq[0];
	if (__builtin_expect(h->last_fd[0] != kqfd || !kq || h->n != 0 || !kq_alone(), 0))
		return poll_locked(kqfd, ev, nevents);
	h->n = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h->m[0] = &kq->lock;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* hbufcap <= HARVEST_CAP, so this also bounds nevents (> 0 here) */
	if (__builtin_expect(__atomic_load_n(&kq->lock.state, __ATOMIC_RELAXED) != 0 ||
			     kq->ufd != kqfd ||
			     (__atomic_load_n(&kq->flagword, __ATOMIC_RELAXED) & POLL_ENTER) ||
			     kq->qhead || kq->rechecks || kq->exact_eof || kq->looks ||
			     (unsigned)nevents + 2 > (unsigned)kq->hbufcap, 0)) {
		kq_held_pop(&kq->lock);
		return poll_locked(kqfd, ev, nevents);
	}
	__atomic_store_n(&kq->lock.state, KQ_MUTEX_ALONE, __ATOMIC_RELAXED);
	kq->users++;
	/* fd_oneshot is among POLL_ENTER */
	int n;
	if (poll_harvest(kq, ev, nevents, false, &n))
		return n;
	/* kq_release(), knowing that nothing was queued */
	if (__builtin_expect((__atomic_load_n(&kq->flagword, __ATOMIC_RELAXED) & POLL_LEAVE) ||
			     kq->graveyard || kq->qhead, 0)) {
		kq_release(kq);
		return n;
	}
	kq->users--;
	__atomic_store_n(&kq->lock.state, 0, __ATOMIC_RELAXED);
	h->n = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	h->m[0] = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return n;
}

/* kq_wait_locked() when its one round gave no record: the general
 * rounds, for the time left. */
__attribute__((noinline))
static int wait_rest(struct kqueue *kq, struct kevent *ev, int nevents, int64_t deadline)
{
	struct timespec left, *ts = NULL;
	if (deadline >= 0) {
		int64_t rem = deadline - now_ns();
		if (rem <= 0)
			return 0;
		left.tv_sec = (time_t)(rem / 1000000000);
		left.tv_nsec = (long)(rem % 1000000000);
		ts = &left;
	}
	return kq_scan(kq, ev, nevents, ts);
}

/* kq_wait_locked() when its straight line does not apply. */
__attribute__((noinline, cold))
static int wait_general(struct kqueue *kq, struct kevent *ev, int nevents,
			const struct timespec *timeout)
{
	return kq_scan(kq, ev, nevents, timeout);
}

/*
 * kq_scan() for a call that may wait (the timeout, validated by the
 * caller, is NULL or not zero), under kq->lock, as a waiting thread's
 * common case: when nothing is queued, no other thread consumes or waits
 * to, no source has work before a sleep (a datagram recheck, a polled
 * file, a signal knote) and the timeout is not a short one, the call sleeps at once as the
 * consumer (see kq_sleep, wake.c) and makes its records from the reports that
 * woke it, as kq_scan()'s first round would; anything else, or reports that
 * come to no record, goes on in kq_scan().  A thread woken for another
 * thread's trigger runs a few dozen lines of code here instead of the
 * scan's general rounds, on a processor whose caches went cold while it
 * slept.  Returns the records or -errno.
 */
int kq_wait_locked(struct kqueue *kq, struct kevent *ev, int nevents,
		   const struct timespec *timeout)
{
	int64_t total = -1, deadline = -1;
	if (timeout && timeout->tv_sec <= INT32_MAX) {
		total = (int64_t)timeout->tv_sec * 1000000000 + timeout->tv_nsec;
		if (total <= KQ_SHORT_TIMEOUT_NS)
			return wait_general(kq, ev, nevents, timeout);
		deadline = now_ns() + total;
	}
	if (__builtin_expect(kq->qhead || kq->consumer || kq->quiescers || kq->rechecks ||
			     kq->sigs || kq->fd_oneshot || kq->wake_on || kq->dead || kq->looks ||
			     (unsigned)nevents + 2 > (unsigned)kq->hbufcap, 0))
		return wait_general(kq, ev, nevents, timeout);
	int maxev = nevents + 2;
	int r = kq_sleep(kq, maxev, total, true);
	if (__builtin_expect(r == KQ_SLEEP_AGAIN, 0))
		return kq->dead ? -EBADF : wait_rest(kq, ev, nevents, deadline);
	kq->consumer = false;
	kq_cond_broadcast(&kq->cond);
	/* 0: the time is up (epoll waited at least as long) */
	if (__builtin_expect(r <= 0 || kq->dead, 0))
		return kq->dead ? -EBADF : r;
	kq->skips = 0;
	struct direct d = { ev, nevents, 0 };
	if (__builtin_expect(r >= maxev, 0)) {
		scan_reports(kq, kq->hbuf, r, maxev, &d);
		harvest_rest(kq, r, maxev, nevents);
	} else {
		report_loop(kq, kq->hbuf, 0, r, &d);
	}
	int n = kq->qhead ? deliver(kq, &d, 0) : d.n;
	if (__builtin_expect(n == 0, 0))
		return wait_rest(kq, ev, nevents, deadline);
	return n;
}

/* kevent() with no changes and a timeout that is not zero (NULL: forever),
 * validated by the caller: kq_wait_locked() between the kqueue's
 * acquisition and release.  Returns the records, or -1 with errno set. */
int kq_wait(int kqfd, struct kevent *ev, int nevents, const struct timespec *timeout)
{
	int r;
	pthread_testcancel();   /* before anything is taken (FreeBSD) */
	struct kqueue *kq = kq_acquire(kqfd, &r);
	if (__builtin_expect(!kq, 0)) {
		if (r == -EDEADLK)
			return kq_reentry(kqfd, NULL, 0, ev, nevents, timeout);
		return poll_failed(r);
	}
	r = kq_wait_locked(kq, ev, nevents, timeout);
	kq_release(kq);
	return poll_result(r);
}
