/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_TIMER: every timer of a kqueue lives in one binary heap ordered by
 * deadline (CLOCK_MONOTONIC, ns), and one timerfd per kqueue, registered in
 * its epoll set, is armed for the earliest deadline.  Adding or cancelling a
 * timer only calls timerfd_settime() when the earliest deadline moves
 * earlier; when the earliest one is cancelled the timerfd is left as it is
 * and simply fires early once, and is then re-armed for the real earliest.
 *
 * Expirations are counted, not queued: a periodic timer that is late by k
 * periods adds k to `data` and its next deadline stays on the original grid
 * (deadline += k * period), so nothing drifts and nothing is lost, also
 * while the knote is disabled.
 *
 * FreeBSD semantics kept here: relative timers are EV_CLEAR and periodic
 * unless EV_ONESHOT; a period of 0 means one unit, a one-shot of 0 fires at
 * once; NOTE_ABSTIME fires once, is not EV_CLEAR (it stays reported until
 * deleted) and is converted from CLOCK_REALTIME when armed; an EV_ADD of an
 * existing timer restarts it from now and discards what was pending; a
 * re-add with bad parameters stops the timer and reports EV_ERROR later.
 *
 * Where a sandbox refuses timerfd_create() (EPERM, EACCES) or the kernel
 * has no timerfds (ENOSYS), the heap works without one (tfd -1): the
 * kqueue looks (kq->looks, KQ_LOOKS_TIMERS) at the start of every call,
 * where expired timers are counted, and before every sleep, which is
 * bounded by the earliest deadline, so the sleep ends when a timerfd
 * would have fired, as precisely (epoll_pwait2's nanoseconds).  A thread
 * already asleep when a timer is added or moved earlier is sent round
 * again to bound its sleep anew (kq_wake_sleepers).
 */
#include "kq.h"
#include "sys.h"

#include <stdlib.h>
#include <sys/timerfd.h>

#define UNITS (NOTE_SECONDS | NOTE_MSECONDS | NOTE_USECONDS | NOTE_NSECONDS)
#define IDLE  UINT32_MAX          /* ktimer not in the heap */
#define NEVER INT64_MAX

struct ktimer {
	struct knote *kn;
	int64_t       deadline;   /* CLOCK_MONOTONIC ns, while in the heap */
	int64_t       period;     /* ns; 0: fires once */
	uint32_t      idx;        /* heap index or IDLE */
};

struct kq_timers {
	int             tfd;
	int64_t         armed;    /* what the timerfd is set to; NEVER: nothing */
	struct ktimer **heap;
	unsigned        n, cap;
};

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t sat_add(int64_t a, int64_t b)
{
	if (b > 0 && a > NEVER - b)
		return NEVER;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
	return (b != 0 && a > NEVER / b) ? NEVER : a * b;
}

/* ---- the heap ---- */

static bool earlier(const struct ktimer *a, const struct ktimer *b)
{
	return a->deadline < b->deadline;
}

static void heap_set(struct kq_timers *t, unsigned i, struct ktimer *k)
{
	t->heap[i] = k;
	k->idx = i;
}

static void sift_up(struct kq_timers *t, unsigned i)
{
	struct ktimer *k = t->heap[i];
	while (i > 0) {
		unsigned parent = (i - 1) / 2;
		if (!earlier(k, t->heap[parent]))
			break;
		heap_set(t, i, t->heap[parent]);
		i = parent;
	}
	heap_set(t, i, k);
}

static void sift_down(struct kq_timers *t, unsigned i)
{
	struct ktimer *k = t->heap[i];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= t->n)
			break;
		if (c + 1 < t->n && earlier(t->heap[c + 1], t->heap[c]))
			c++;
		if (!earlier(t->heap[c], k))
			break;
		heap_set(t, i, t->heap[c]);
		i = c;
	}
	heap_set(t, i, k);
}

static int heap_insert(struct kq_timers *t, struct ktimer *k)
{
	if (t->n == t->cap) {
		unsigned cap = t->cap ? t->cap * 2 : 64;
		struct ktimer **h = realloc(t->heap, cap * sizeof *h);
		if (!h)
			return -ENOMEM;
		t->heap = h;
		t->cap = cap;
	}
	heap_set(t, t->n++, k);
	sift_up(t, k->idx);
	return 0;
}

static void heap_remove(struct kq_timers *t, struct ktimer *k)
{
	unsigned i = k->idx;
	if (i == IDLE)
		return;
	k->idx = IDLE;
	if (--t->n == i)
		return;
	struct ktimer *last = t->heap[t->n];
	heap_set(t, i, last);
	if (i > 0 && earlier(last, t->heap[(i - 1) / 2]))
		sift_up(t, i);
	else
		sift_down(t, i);
}

/* ---- the timerfd ---- */

/* timerfd_create() was refused (see the top): not asked again. */
static atomic_bool tfd_refused;

static int timers_get(struct kqueue *kq, struct kq_timers **out)
{
	if (kq->timers) {
		*out = kq->timers;
		return 0;
	}
	struct kq_timers *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	int e = errno;
	t->tfd = atomic_load_explicit(&tfd_refused, memory_order_relaxed) ? -1
		 : timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int err = t->tfd < 0 ? -errno : 0;
	errno = e;
	if (t->tfd < 0 && (atomic_load(&tfd_refused) || sys_refused(err))) {
		atomic_store(&tfd_refused, true);
		err = 0;   /* looked at instead (see the top) */
	}
	t->tfd = kq_fd_own(t->tfd);
	if (!err && t->tfd >= 0)
		err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, t->tfd, EPOLLIN, KQ_TAG_TIMER);
	if (err) {
		kq_fd_own_close(t->tfd);
		free(t);
		return err;
	}
	t->armed = NEVER;
	kq->timers = t;
	if (t->tfd < 0)
		kq_looks_set(kq, KQ_LOOKS_TIMERS, true);
	*out = t;
	return 0;
}

/* Arms the timerfd for the earliest deadline if that is sooner than what it
 * is armed for now (see the top of the file).  Without a timerfd, `armed`
 * is the earliest deadline a sleeper may have bounded its sleep with. */
static void timers_rearm(struct kqueue *kq, struct kq_timers *t)
{
	int64_t first = t->n ? t->heap[0]->deadline : NEVER;
	if (first >= t->armed)
		return;
	if (t->tfd < 0) {
		t->armed = first;
		kq_wake_sleepers(kq);
		return;
	}
	if (first < 1)
		first = 1;   /* it_value 0 would disarm */
	struct itimerspec its = {
		.it_value = { .tv_sec = first / 1000000000, .tv_nsec = first % 1000000000 },
	};
	int e = errno;
	if (timerfd_settime(t->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
		t->armed = first;
	errno = e;
}

/* Counts every expiration due by now and activates the knotes concerned. */
static void timers_expire(struct kqueue *kq, struct kq_timers *t, int64_t now)
{
	while (t->n && t->heap[0]->deadline <= now) {
		struct ktimer *k = t->heap[0];
		int64_t n = 1;
		if (k->period) {
			n += (now - k->deadline) / k->period;
			k->deadline = sat_add(k->deadline, sat_mul(n, k->period));
			sift_down(t, 0);
		} else {
			heap_remove(t, k);
		}
		k->kn->data = sat_add(k->kn->data, n);
		kq_activate(kq, k->kn);
	}
}

/* The timerfd fired (its epoll report). */
static void timer_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	struct kq_timers *t = kq->timers;
	if (!t)
		return;
	t->armed = NEVER;
	timers_expire(kq, t, clock_ns(CLOCK_MONOTONIC));
	timers_rearm(kq, t);
	if (t->armed == NEVER) {
		/* nothing left to arm: consume the expiry so the timerfd stops
		 * being readable (a re-arm resets the count by itself) */
		uint64_t ticks;
		sys_read(t->tfd, &ticks, sizeof ticks);
	}
}

/* ---- the filter ---- */

/* Turns the user's data/fflags into a first deadline and a period. */
static int timer_params(const struct knote *kn, int64_t now, int64_t *deadline,
			int64_t *period)
{
	uint32_t ff = kn->sfflags, unit = ff & UNITS;
	if (kn->sdata < 0 || (ff & ~(UNITS | NOTE_ABSTIME)) || (unit & (unit - 1)))
		return -EINVAL;
	int64_t mult = unit == NOTE_SECONDS ? 1000000000 :
		       unit == NOTE_USECONDS ? 1000 :
		       unit == NOTE_NSECONDS ? 1 : 1000000;
	int64_t ns = sat_mul(kn->sdata, mult);
	if (ff & NOTE_ABSTIME) {
		/* realtime deadline, converted once, now */
		*deadline = sat_add(now, sat_add(ns, -clock_ns(CLOCK_REALTIME)));
		*period = 0;
		return 0;
	}
	if (ns == 0 && !(kn->flags & EV_ONESHOT))
		ns = mult;   /* FreeBSD: a period of 0 is one unit */
	*deadline = sat_add(now, ns);
	*period = (kn->flags & EV_ONESHOT) ? 0 : ns;
	return 0;
}

static int timer_start(struct kqueue *kq, struct knote *kn)
{
	struct ktimer *k = kn->fstate;
	struct kq_timers *t;
	int err = timers_get(kq, &t);
	if (err)
		return err;
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	err = timer_params(kn, now, &k->deadline, &k->period);
	if (err)
		return err;
	err = heap_insert(t, k);
	if (err)
		return err;
	if (k->deadline <= now)
		timers_expire(kq, t, now);
	timers_rearm(kq, t);
	return 0;
}

static void timer_stop(struct kqueue *kq, struct knote *kn)
{
	struct ktimer *k = kn->fstate;
	if (k && kq->timers)
		heap_remove(kq->timers, k);
}

static int timer_attach(struct kqueue *kq, struct knote *kn)
{
	struct ktimer *k = calloc(1, sizeof *k);
	if (!k)
		return -ENOMEM;
	k->kn = kn;
	k->idx = IDLE;
	kn->fstate = k;
	if (!(kn->sfflags & NOTE_ABSTIME))
		kn->flags |= EV_CLEAR;
	kn->data = 0;
	return timer_start(kq, kn);
}

static void timer_detach(struct kqueue *kq, struct knote *kn)
{
	timer_stop(kq, kn);
	free(kn->fstate);
	kn->fstate = NULL;
}

static int timer_event(struct kqueue *kq, struct knote *kn)
{
	if (kn->flags & EV_ERROR)
		return 1;
	if (kq->timers)
		timers_expire(kq, kq->timers, clock_ns(CLOCK_MONOTONIC));
	kn->fflags = 0;
	return kn->data > 0;
}

/* Only an EV_ADD touches the timer: it restarts from now with the new
 * parameters and drops what was pending.  Bad parameters cannot fail the
 * change here (FreeBSD's touch cannot); the timer stops and the knote later
 * reports EV_ERROR with data = the error. */
static void timer_touch(struct kqueue *kq, struct knote *kn, struct kevent *kev)
{
	if (!(kev->flags & EV_ADD))
		return;
	timer_stop(kq, kn);
	kq_dequeue(kq, kn);
	kn->flags &= ~EV_ERROR;
	kn->data = 0;
	kn->sfflags = kev->fflags;
	kn->sdata = kev->data;
	int err = timer_start(kq, kn);
	if (err) {
		timer_stop(kq, kn);
		kn->flags |= EV_ERROR;
		kn->data = -err;
	}
}

static int timer_arm(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	return (kn->data > 0 || (kn->flags & EV_ERROR)) ? 0 : 1;
}

bool kq_timer_renumber(struct kqueue *kq, int old, int new)
{
	struct kq_timers *t = kq->timers;
	if (!t || t->tfd != old)
		return false;
	kq_entry_rekey(kq, old, new, EPOLLIN, KQ_TAG_TIMER);
	t->tfd = new;
	return true;
}

static void timer_fini(struct kqueue *kq)
{
	struct kq_timers *t = kq->timers;
	if (!t)
		return;
	kq_fd_own_close(t->tfd);
	free(t->heap);
	free(t);
	kq->timers = NULL;
	kq->looks &= (uint8_t)~KQ_LOOKS_TIMERS;
}

static void timer_forget(struct kqueue *kq)
{
	if (kq->timers)
		kq_fd_own_close(kq->timers->tfd);
}

const struct filterops kq_timer_filtops = {
	.isfd = false,
	.attach = timer_attach,
	.detach = timer_detach,
	.event = timer_event,
	.arm = timer_arm,
	.touch = timer_touch,
	.fini = timer_fini,
	.forget = timer_forget,
};

/* Without a timerfd (see the top): a call begins. */
static void timer_begin(struct kqueue *kq)
{
	struct kq_timers *t = kq->timers;
	if (__builtin_expect(kq->looks & KQ_LOOKS_TIMERS, 0) && t->n)
		timers_expire(kq, t, clock_ns(CLOCK_MONOTONIC));
}

/* Without a timerfd: the sleep ends at the earliest deadline. */
static int64_t timer_sleep(struct kqueue *kq)
{
	struct kq_timers *t = kq->timers;
	if (!(kq->looks & KQ_LOOKS_TIMERS))
		return -1;
	int64_t now = clock_ns(CLOCK_MONOTONIC);
	timers_expire(kq, t, now);
	t->armed = t->n ? t->heap[0]->deadline : NEVER;
	return t->n ? t->armed - now : -1;
}

const struct kq_source kq_timer_source = {
	.report = timer_report, .begin = timer_begin, .sleep = timer_sleep,
};
