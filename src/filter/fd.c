/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ and EVFILT_WRITE: one epoll entry per descriptor per kqueue,
 * shared by the READ and WRITE knotes on it (epoll allows one entry per
 * (fd, file) in a set).  The entry is
 *   level-triggered with the enabled knotes' bits, when every knote on the fd
 *     is level (no EV_CLEAR) and one is enabled: epoll then re-reports a ready
 *     fd by itself and the core does not requeue its knotes (KN_LEVELSRC);
 *   edge-triggered with all knotes' bits otherwise: each new edge activates
 *     the knotes, level knotes among them are requeued by the core and
 *     re-validated with poll() when no fresh report is at hand.
 * Every create/modify/enable issues exactly one epoll_ctl, and that call is
 * also the re-evaluation FreeBSD performs: ADD and MOD make epoll poll the
 * file and report a condition that already holds.
 *
 * epoll_event.data carries (slot generation << 32 | fd), so a report that was
 * harvested for an entry since removed is recognised and dropped.
 *
 * EV_EOF with fflags = socket error needs SO_ERROR, which the kernel clears
 * when read; the value is kept for the program's own getsockopt(SO_ERROR)
 * (libc/sockio.c), so connect() result checks keep working.
 */
#include "kq.h"
#include "sys.h"
#include "filter/fdkind.h"
#include "filter/fdslot.h"

#include <limits.h>
#include <stdlib.h>

/*
 * LIBKQ_EXACT_EOF=1: a record's byte count and its EV_EOF state always
 * belong together.  By default EV_EOF comes from the epoll report (or the
 * poll) that preceded the FIONREAD; if the peer closes and another thread
 * reads in between, the record pairs the count after that read with "no EOF
 * yet", a state the descriptor never had (docs/differences.md).  In this
 * mode a record without EV_EOF is checked with one more poll() after the
 * count: end-of-file never goes away, so "no EOF" then was true when the
 * count was taken, and "EOF" makes the knote be evaluated again, count and
 * EV_EOF now from the same moment.  It costs that poll() per event.
 */
static bool exact_eof;

__attribute__((constructor)) static void fd_exact_eof_env(void)
{
	const char *v = secure_getenv("LIBKQ_EXACT_EOF");   /* not in AT_SECURE programs */
	/* stored only when set: a store at every start faulted in a page of
	 * .bss that nothing else at start touches */
	if (v && v[0] == '1')
		exact_eof = true;
}

/* Each kqueue keeps a copy, beside what its hot path reads. */
bool kq_fd_exact_eof(void)
{
	return exact_eof;
}

#define FPRIV_WATCHED KQ_FPRIV_FILE_WATCHED

#define READ_BITS   (EPOLLIN | EPOLLRDHUP)
/* EVFILT_VNODE knotes share the fd's knote list but not its epoll entry */
#define IS_RW(kn)   ((kn)->filter == EVFILT_READ || (kn)->filter == EVFILT_WRITE)
#define WRITE_BITS  (EPOLLOUT)


static struct kq_fdslot *slot_of(struct kqueue *kq, const struct knote *kn)
{
	return kq_fdslot(kq, (int)kn->ident, false);
}


static uint64_t tag_of(const struct kq_fdslot *s, int fd)
{
	return ((uint64_t)(s->gen & 0x7fffffff) << 32) | (uint32_t)fd;
}

/* What the READ and WRITE knotes of a slot ask of epoll, gathered in one
 * walk of its list.  READ_BITS and WRITE_BITS are disjoint, so each field
 * holds both directions: `clear` has a direction's bits when one of its
 * knotes is EV_CLEAR, `excl` when one wants an exclusive entry
 * (EV_WAKEONE). */
struct slot_sum {
	uint32_t all, en, clear, excl;
};

static struct slot_sum slot_sum(const struct kq_fdslot *s)
{
	struct slot_sum m = { 0, 0, 0, 0 };
	for (const struct knote *kn = s->head; kn; kn = kn->link) {
		if (!IS_RW(kn))
			continue;
		uint32_t bits = kn->filter == EVFILT_READ ? READ_BITS : WRITE_BITS;
		m.all |= bits;
		if (!(kn->status & KN_DISABLED))
			m.en |= bits;
		if (kn->flags & EV_CLEAR)
			m.clear |= bits;
		if ((kn->flags & EV_WAKEONE) && !(kn->status & KN_NOEXCL))
			m.excl |= bits;
	}
	return m;
}

/*
 * Which epoll entry a knote lives in.  One entry per fd is enough while all
 * knotes on it are level: a level knote is reported whenever its condition
 * holds anyway.  An edge-triggered entry, though, reports every current bit
 * on any wake-up, so data arriving would also "fire" an EV_CLEAR WRITE knote;
 * FreeBSD activates only the direction that changed.  So when an EV_CLEAR
 * knote shares the fd, WRITE moves to its own entry in a second epoll set
 * (kq->wrfd, nested in the main one), where wake-ups for input do not reach.
 */
static bool slot_split(const struct slot_sum *m)
{
	return (m->all & READ_BITS) && (m->all & WRITE_BITS) && m->clear;
}

/* The events of the entry holding the knotes of directions `dir` (0: no
 * entry); *et says whether it is edge-triggered, i.e. whether epoll will
 * not re-report its knotes' conditions by itself (KN_LEVELSRC). */
static uint32_t entry_events(const struct slot_sum *m, uint32_t dir, bool demoted, bool *et)
{
	uint32_t all = m->all & dir, en = m->en & dir;
	*et = (m->clear & dir) || !en || demoted;
	if (!all)
		return 0;
	uint32_t ev = *et ? (all | EPOLLET) : en;
	/* EV_WAKEONE: one waiter per event among the epoll sets holding the
	 * fd.  Such an entry accepts no EPOLLRDHUP (read_event polls for it) */
	if (m->excl & dir)
		ev = (ev & ~EPOLLRDHUP) | EPOLLEXCLUSIVE;
	return ev;
}

/*
 * Exclusive entries on one file wait on that file's wait queue, and a
 * wake-up wakes only one exclusive waiter there.  Two exclusive entries of
 * one kqueue on the same file (a descriptor and its dup, two opens of a
 * FIFO) would leave the second one never woken.  So a WAKEONE knote whose
 * file (device and inode) already has one in this kqueue gets a plain entry
 * instead.  fstate holds the file's key for WAKEONE knotes; only their
 * creation pays for the fstat and the walk.
 */
static void wakeone_setup(struct kqueue *kq, struct knote *kn)
{
	struct stat st;
	if (sys_fstat((int)kn->ident, &st) != 0)
		return;
	uintptr_t key = (uintptr_t)((uint64_t)st.st_dev * 0x9e3779b97f4a7c15ull ^ st.st_ino) | 1;
	kn->fstate = (void *)key;
	for (unsigned fd = 0; fd < kq->nfds; fd++)
		for (struct knote *o = kq->fds[fd].head; o; o = o->link)
			if (o != kn && IS_RW(o) && (o->flags & EV_WAKEONE) &&
			    o->fstate == kn->fstate && !(o->status & KN_NOEXCL)) {
				kn->status |= KN_NOEXCL;
				return;
			}
}

static uint8_t main_state(uint32_t ev)
{
	if (!ev)
		return 0;
	return SLOT_EPOLL | ((ev & EPOLLET) ? SLOT_ET : 0) |
	       ((ev & EPOLLIN) ? SLOT_IN : 0) | ((ev & EPOLLOUT) ? SLOT_OUT : 0);
}

static uint8_t wr_state(uint32_t ev)
{
	if (!ev)
		return 0;
	return SLOT_WEPOLL | ((ev & EPOLLET) ? SLOT_WET : 0);
}

static int wrset(struct kqueue *kq)
{
	if (kq->wrfd >= 0)
		return kq->wrfd;
	int fd = kq_fd_own(sys_epoll_create());
	if (fd < 0)
		return fd;
	int err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLIN, KQ_TAG_WRSET);
	if (err) {
		kq_fd_own_close(fd);
		return err;
	}
	kq->wrfd = fd;
	return fd;
}

/*
 * A close libkq did not see (syscall(SYS_close), io_uring, a close inside
 * libc, code that bound to glibc's close) leaves the number's knotes here
 * while the kernel has dropped the file's epoll entries, or keeps them
 * under a file no longer at the number.  epoll looks an entry up by the
 * file now at the number, so a MOD of an entry we hold answers ENOENT when
 * the number names another file and EBADF when it names none: both mean
 * the knotes on the slot belong to a file that is gone from the number.
 */
static int stale_err(int err)
{
	return (err == -ENOENT || err == -EBADF) ? -ESTALE : err;
}

/* A new entry; one already there (made behind the slot's back) is
 * modified instead. */
static int entry_add(int epfd, int fd, uint32_t ev, uint64_t tag)
{
	int err = sys_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, ev, tag);
	if (err == -EEXIST)
		err = sys_epoll_ctl(epfd, EPOLL_CTL_MOD, fd, ev, tag);
	return err;
}

/* Makes one entry match `ev` (0: no entry).  `had` says whether it exists;
 * `repoll` forces a MOD even when nothing changed: ADD and MOD make epoll
 * poll the file, which is FreeBSD's re-evaluation on add/modify/enable. */
static int entry_sync(int epfd, int fd, uint64_t tag, bool had, uint8_t oldst,
		      uint8_t newst, uint32_t ev, bool repoll, bool excl)
{
	if (!ev) {
		if (had)
			sys_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0);
		return 0;
	}
	/* an exclusive entry cannot be modified (EINVAL): replace it */
	if (had && excl && (repoll || oldst != newst || (ev & EPOLLEXCLUSIVE))) {
		sys_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0);
		had = false;
	}
	if (!had)
		return entry_add(epfd, fd, ev, tag);
	if (!repoll && oldst == newst)
		return 0;
	return stale_err(sys_epoll_ctl(epfd, EPOLL_CTL_MOD, fd, ev, tag));
}

/* Brings both entries of the slot in line with its knotes.  `kn` (may be
 * NULL) is the knote that changed; if it is enabled its entry is re-polled.
 * `excl` says an entry may be exclusive now or have been before. */
static int slot_sync(struct kqueue *kq, struct kq_fdslot *s, int fd, struct knote *kn,
		     bool excl)
{
	struct slot_sum m = slot_sum(s);
	excl = excl || m.excl;
	bool split = slot_split(&m);
	bool demoted = (s->state & SLOT_DEMOTED) != 0;
	bool met, wet = false;
	uint32_t mev = entry_events(&m, split ? READ_BITS : READ_BITS | WRITE_BITS, demoted, &met);
	uint32_t wev = split ? entry_events(&m, WRITE_BITS, demoted, &wet) : 0;
	for (struct knote *o = s->head; o; o = o->link) {
		if (!IS_RW(o))
			continue;
		if ((split && o->filter == EVFILT_WRITE) ? wet : met)
			o->status &= ~KN_LEVELSRC;
		else
			o->status |= KN_LEVELSRC;
	}
	uint8_t keep = s->state & SLOT_DEMOTED;
	bool repoll = kn && (!(kn->status & KN_DISABLED) || (kn->status & KN_VERIFY));
	bool kn_in_wr = kn && split && kn->filter == EVFILT_WRITE;
	int err;

	if (wev || (s->state & SLOT_WEPOLL)) {
		int wfd = wrset(kq);
		if (wfd < 0)
			return wfd;
		err = entry_sync(wfd, fd, tag_of(s, fd) | TAG_WRSET, s->state & SLOT_WEPOLL,
				 s->state & (SLOT_WEPOLL | SLOT_WET), wr_state(wev),
				 wev, repoll && kn_in_wr, excl);
		if (err)
			return err;
	}
	err = entry_sync(kq->epfd, fd, tag_of(s, fd), s->state & SLOT_EPOLL,
			 s->state & (SLOT_EPOLL | SLOT_ET | SLOT_IN | SLOT_OUT),
			 main_state(mev), mev, repoll && !kn_in_wr, excl);
	if (err == -EPERM)
		return err;
	if (err)
		return err;
	s->state = keep | main_state(mev) | wr_state(wev);
	if (!(s->state & (SLOT_EPOLL | SLOT_WEPOLL)))
		s->gen++;   /* reports still in flight for the old entries die */
	return 0;
}

static int watch_file(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn)
{
	if (kn->filter != EVFILT_READ || s->kind != KQ_FD_FILE ||
	    (kn->fpriv & FPRIV_WATCHED))
		return 0;
	kn->fpriv |= FPRIV_WATCHED;
	int err = kq_vnode_sync(kq, (int)kn->ident);
	if (err)
		kn->fpriv &= ~FPRIV_WATCHED;
	return err;
}

/* A socket libkq saw made needs no question (fdtab.c, births). */
static int ensure_kind(struct kq_fdslot *s, int fd)
{
	if (s->kind == KQ_FD_UNKNOWN) {
		int k = kq_fdtab_birth_kind(fd);
		if (!k)
			k = kq_fd_classify_first(fd);
		if (k < 0)
			return k;
		s->kind = (uint8_t)k;
	}
	return s->kind;
}

/* Whether a socket born of kind `born` (0: none) can now be of kind k:
 * a connection socket may have become a listener. */
static bool birth_fits(int born, int k)
{
	switch (born) {
	case 0:
		return true;
	case KQ_FD_TCP:
		return k == KQ_FD_TCP || k == KQ_FD_LISTEN_INET;
	case KQ_FD_STREAM:
		return k == KQ_FD_STREAM || k == KQ_FD_LISTEN_UNIX || k == KQ_FD_LISTEN_OTHER;
	default:
		return k == born;
	}
}

/* The descriptor behaved as no descriptor of its kind does: the kind was
 * learned cheaply (a listener taken for a connection, a birth the number
 * outlived through a close libkq did not see) and is asked again in full.
 * True if it changed. */
static bool reclassify(struct kq_fdslot *s, int fd)
{
	int k = kq_fd_classify(fd);
	if (k <= 0 || k == s->kind)
		return false;
	if (!birth_fits(kq_fdtab_birth_kind(fd), k))
		kq_fdtab_forget_birth(fd);   /* not the socket it was */
	s->kind = (uint8_t)k;
	return true;
}

/* Whether kn lives in the WRITE set's entry (a split slot's WRITE knote). */
static bool in_wrset(const struct kq_fdslot *s, const struct knote *kn)
{
	return kn->filter == EVFILT_WRITE && (s->state & SLOT_WEPOLL);
}

/*
 * Whether the number no longer names the file of kn's entry: a close libkq
 * did not see, with a copy (a dup(), a child's descriptor) keeping that
 * file open, so its entry reports on under a number that now names another
 * file or none.  Asked only when an evaluation met what the knote's kind
 * never shows.  An ADD asks without side effects: epoll looks entries up
 * by the file now at the number, so EEXIST says the entry is that file's;
 * a success made an entry for the new file, removed at once (its tag has
 * a generation the slot is far from, should another thread harvest it
 * first: a stale report, dropped).  EPERM and ELOOP name files epoll
 * cannot watch here, which the entry's file was not.
 */
static bool entry_gone(struct kqueue *kq, const struct kq_fdslot *s, const struct knote *kn,
		       int fd)
{
	int epfd = in_wrset(s, kn) ? kq->wrfd : (s->state & SLOT_EPOLL) ? kq->epfd : -1;
	if (epfd < 0)
		return false;
	uint64_t tag = tag_of(s, fd) ^ (UINT64_C(0x40000000) << 32);
	int err = sys_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, EPOLLET, tag);
	if (err == 0)
		sys_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, 0, 0);
	return err == 0 || err == -EBADF || err == -EPERM || err == -ELOOP;
}

/* kn's entry belongs to a file gone from the number, and so do the knotes
 * sharing it: they died with its close on FreeBSD, so none reports again;
 * the core drops each at its next evaluation (fd_event), and a report of
 * the entry after the last is stale (the generation moves on).  The other
 * entry of a split slot may be newer (an add after the close) and is left
 * to its own evaluations. */
static bool slot_gone(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn, int fd)
{
	if (!entry_gone(kq, s, kn, fd))
		return false;
	bool wr = in_wrset(s, kn);
	for (struct knote *o = s->head; o; o = o->link)
		if (IS_RW(o) && in_wrset(s, o) == wr)
			o->flags |= EV_DROP;
	return true;
}

/* reclassify() for an evaluation: 1 when the kind changed and the knote
 * is to be evaluated again as the new kind, -1 when the change was the
 * number's file's (slot_gone: nothing to report), 0 when nothing changed. */
static int relearn(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn, int fd)
{
	if (!reclassify(s, fd))
		return 0;
	return slot_gone(kq, s, kn, fd) ? -1 : 1;
}

/*
 * Parking.  A server that deletes a descriptor's READ knote while it
 * serves a request and adds it again at the next EAGAIN would pay an
 * EPOLL_CTL_DEL, an EPOLL_CTL_ADD and a classification each time.  So when
 * the last knote of a slot goes and its one entry is a plain one (not split,
 * not exclusive, not a file), the entry stays as it is, with the kind and
 * the generation: a knote added again makes a MOD (KN_VERIFY, fd_attach),
 * whose answer also says whether the number still names the same file
 * (stale_err).  The parked entry costs nothing until it reports: the first
 * report removes it (kq_fd_report).  A close of the number (interest
 * lasts while parked) removes it before the real close, as for any entry.
 * A level entry whose condition lasts reports at the very next epoll_wait()
 * though, which would wake a sleeping kevent() for nothing: see
 * park_quiet().
 */
static bool can_park(const struct kq_fdslot *s, const struct knote *kn)
{
	return (s->state & (SLOT_EPOLL | SLOT_WEPOLL | SLOT_NOPOLL)) == SLOT_EPOLL &&
	       !(kn->flags & EV_WAKEONE);
}

/* Removes a parked entry (or forgets an entry the current close frees,
 * kq->entries_die: no DEL then); the slot keeps nothing of its file. */
static void park_clear(struct kqueue *kq, struct kq_fdslot *s, int fd)
{
	if (!kq->dead && !kq->entries_die)
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, fd, 0, 0);
	s->state = 0;
	s->kind = KQ_FD_UNKNOWN;
	s->revents = 0;
	s->gen++;   /* reports already taken for it die */
}

/* A parked slot (no knotes) lets go of its entry, and so of its interest
 * (after the DEL: see kq_drop()). */
void kq_fd_unpark(struct kqueue *kq, int fd)
{
	struct kq_fdslot *s = kq_fdslot(kq, fd, false);
	if (!s || s->head || kq_fdslot_unused(s))
		return;
	park_clear(kq, s, fd);
	kq_fdtab_interest(kq, fd, -1);
}

/* Whether noted entry i still parks its slot's entry: not if the slot was
 * cleared since (the generation moved: a close, a report, a stale drop)
 * or holds knotes again. */
static bool park_noted(struct kqueue *kq, unsigned i)
{
	struct kq_fdslot *s = kq_fdslot(kq, kq->parked[i].fd, false);
	return s && !s->head && (s->state & SLOT_EPOLL) && s->gen == kq->parked[i].gen;
}

/*
 * Notes a slot about to park whose entry would report at once.  A level
 * entry whose last report said end of file, an error or room to write
 * reports again at the next epoll_wait() (those conditions last: a server
 * deletes the knote of a finished connection, or a WRITE knote once its
 * output is out), and a thread sleeping in kevent() would wake, remove the
 * entry and sleep again.  So such a slot is noted,
 * and the next consuming sleep removes its entry before it sleeps
 * (kq_fd_park_flush), the DEL the report would have cost, without the
 * wake-up.  A close of the number before that sleep, by then usually the
 * server's next step, still removes the entry for free where the close
 * frees the file (kq->entries_die), and a knote added again before it
 * finds the entry in place.  Edge-triggered entries do not report a
 * lasting condition again, and reads may have emptied a socket that was
 * only readable.
 */
static void park_quiet(struct kqueue *kq, const struct kq_fdslot *s, int fd)
{
	uint32_t lasting = EPOLLRDHUP | EPOLLHUP | EPOLLERR;
	if (s->state & SLOT_OUT)
		lasting |= EPOLLOUT;
	if ((s->state & SLOT_ET) || !(s->revents & lasting))
		return;
	if (kq->nparked == KQ_PARKED_MAX) {
		/* a program that never sleeps (zero timeouts) lets its noted
		 * entries report, or closes their numbers: room again */
		unsigned n = 0;
		for (unsigned i = 0; i < KQ_PARKED_MAX; i++)
			if (park_noted(kq, i))
				kq->parked[n++] = kq->parked[i];
		kq->nparked = n;
		/* Still full: parked unnoted, as before notes were kept (its
		 * report, if one comes before a close, removes it).  Removing
		 * the entry now cost a proxy's burst of fired connect knotes
		 * a DEL each, then an ADD for the READ knote its next call
		 * adds on the same socket, and a refused connect's DEL that
		 * its close makes for free. */
		if (n == KQ_PARKED_MAX)
			return;
	}
	kq->parked[kq->nparked].fd = fd;
	kq->parked[kq->nparked].gen = s->gen;
	kq->nparked++;
}

/* Before a consuming sleep (wake.c, kq_sleep): the entries park_quiet()
 * noted that still park go.  The DEL names the entry by number and file,
 * so one for a number closed unseen and reused removes nothing of the new
 * file. */
void kq_fd_park_flush(struct kqueue *kq)
{
	unsigned n = kq->nparked;
	kq->nparked = 0;
	for (unsigned i = 0; i < n; i++)
		if (park_noted(kq, i))
			kq_fd_unpark(kq, kq->parked[i].fd);
}

static int fd_attach(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);
	kn->fpriv = 0;
	if (kn->flags & EV_ONESHOT)
		kq->fd_oneshot = true;
	if (s->head == kn && !kn->link && (s->state & SLOT_EPOLL)) {
		/* the slot was parked: the arm's MOD checks the entry is still
		 * this number's file; an exclusive entry is made afresh */
		if (kn->flags & EV_WAKEONE)
			park_clear(kq, s, fd);   /* interest now kn's */
		else
			kn->status |= KN_VERIFY;
	}
	/* A number born as a socket is no kqueue (a kqueue's creation clears
	 * the birth of its number), and the birth shares the line kq_link()
	 * just touched, which the kqueue table does not. */
	if (!kq_fdtab_birth_kind(fd) && kq_is_kqueue_fd(fd)) {
		/* FreeBSD: only EVFILT_READ on a kqueue, and never on itself */
		if (kn->filter != EVFILT_READ || fd == kq->ufd)
			return -EINVAL;
		s->kind = KQ_FD_KQUEUE;
		struct kqueue *inner = kq_fdtab_kq(fd);
		if (inner)
			__atomic_store_n(&inner->watched, true, __ATOMIC_RELAXED);
	}
	if (kn->flags & EV_WAKEONE)
		wakeone_setup(kq, kn);
	if (kn->filter == EVFILT_WRITE && !(s->state & SLOT_NOPOLL)) {
		/* FreeBSD refuses a WRITE knote on a pipe whose reader is
		 * gone.  Knowing the kind first spares a socket the poll (it
		 * is learned once per slot, and needed later anyway). */
		int k = ensure_kind(s, fd);
		if (k < 0)
			return k;
		if (k == KQ_FD_PIPE || k == KQ_FD_FIFO) {
			int p = sys_poll1(fd, POLLOUT);
			if (p < 0)
				return p;
			if (p & POLLERR)
				return -EPIPE;
		}
	}
	return 0;
}

/* epoll refused the descriptor: a regular file, a directory, or something
 * without a poll method, which poll() treats as always ready. */
static int nopoll_attach(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn)
{
	int fd = (int)kn->ident;
	/* not a socket, whatever a birth says */
	int k = kq_fd_classify(fd);
	if (k < 0)
		return k;
	kq_fdtab_forget_birth(fd);
	s->kind = (uint8_t)(k == KQ_FD_FILE ? KQ_FD_FILE : KQ_FD_ALWAYS);
	s->state = SLOT_NOPOLL;
	for (struct knote *o = s->head; o; o = o->link)
		o->status &= ~KN_LEVELSRC;
	return watch_file(kq, s, kn);
}

/* Whether the knote's entry is level-triggered and carries its bits, so
 * epoll reports the current condition without being asked. */
static bool level_entry_has(const struct kq_fdslot *s, const struct knote *kn)
{
	if (kn->filter == EVFILT_WRITE && (s->state & SLOT_WEPOLL))
		return !(s->state & SLOT_WET);
	if ((s->state & (SLOT_EPOLL | SLOT_ET)) != SLOT_EPOLL)
		return false;
	return (s->state & (kn->filter == EVFILT_READ ? SLOT_IN : SLOT_OUT)) != 0;
}

/* The slot has no entry of any kind and kn is its only knote: a new
 * descriptor's first READ or WRITE knote, the commonest add. */
static bool first_on_slot(const struct kq_fdslot *s, const struct knote *kn)
{
	return !s->state && s->head == kn && !kn->link && !(kn->flags & EV_WAKEONE);
}

/* The entry of a knote alone on its slot follows from the knote, without
 * slot_sync()'s walk and summary (it would make the same entry): its
 * direction's bits, level-triggered unless it is EV_CLEAR or disabled. */
static inline __attribute__((always_inline))
int arm_first(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn)
{
	bool et = (kn->flags & EV_CLEAR) || (kn->status & KN_DISABLED);
	uint32_t ev = (kn->filter == EVFILT_READ ? READ_BITS : WRITE_BITS) | (et ? EPOLLET : 0);
	uint8_t st = main_state(ev);
	int fd = (int)kn->ident;
	int err = entry_add(kq->epfd, fd, ev, tag_of(s, fd));
	if (err)
		return err;
	s->state = st;
	if (et)
		kn->status &= ~KN_LEVELSRC;
	else
		kn->status |= KN_LEVELSRC;
	return 0;
}

/*
 * Only calls that change something are made (stored flags never change on
 * a modify, so an existing knote's entry only changes with the knotes
 * around it).  A disabled knote leaves its
 * entry as it is: a report that then finds no enabled knote to activate
 * trims the entry (kq_fd_report), so a disable costs nothing unless the
 * descriptor becomes ready meanwhile.  An enabled knote whose entry is
 * level-triggered with its bits needs nothing either: epoll reports the
 * condition by itself, which is the re-evaluation FreeBSD performs.  Other
 * cases (a new entry, a mode change, an edge-triggered entry whose edge may
 * have been consumed) get their ADD/MOD, which re-polls the file.
 */
static int fd_arm(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);
	bool verify = (kn->status & KN_VERIFY) != 0;
	int err;

	if (first_on_slot(s, kn)) {
		err = arm_first(kq, s, kn);
		goto armed;
	}
	if (s->state & SLOT_NOPOLL) {
		kn->status &= ~KN_VERIFY;
		return watch_file(kq, s, kn);
	}
	/* A knote already queued is re-evaluated when it is delivered: a
	 * re-poll now would only add a second report of the same activation
	 * (FreeBSD's activation of a queued knote is a no-op).  But an EV_ADD
	 * that found the knote (KN_VERIFY) always makes its MOD: the answer
	 * says whether the entry still belongs to the file at the number
	 * (stale_err), so a close libkq did not see cannot swallow the add. */
	if (!verify && (s->state & (SLOT_EPOLL | SLOT_WEPOLL)) &&
	    ((kn->status & (KN_DISABLED | KN_QUEUED)) || level_entry_has(s, kn)))
		return 1;
	err = slot_sync(kq, s, fd, kn, false);
armed:
	kn->status &= ~KN_VERIFY;
	if (err == -EPERM)
		return nopoll_attach(kq, s, kn);
	return err ? err : 1;
}

/*
 * The commonest change of all: the first READ or WRITE knote, plain or
 * EV_CLEAR, on a number libkq saw born as a socket, in a slot that has no
 * knotes and no entry.  register_one(), fd_attach() and fd_arm() would make
 * the same knote and the same one entry (arm_first); this is that outcome
 * without their layers, each with its own prologue, tests and stack, which
 * together cost more than the half of an add spent outside epoll_ctl().
 * A socket by birth is no kqueue and no pipe, so fd_attach() has nothing to
 * refuse.  Returns 0 when done, or 1 with nothing changed: the change is of
 * another kind, or epoll refused the entry, and the general path applies
 * it (and meets the same refusal, with its own answer to it).
 *
 * A thread asleep in the kqueue's consuming epoll_wait() is not waited for
 * (W4, wake.h): the reports it may hold were taken before this entry
 * existed, so none is of it, and those of the number's earlier entries
 * carry an older generation (the slot's went up when they went) and are
 * dropped.  Reports of the new entry reach it through epoll, after this
 * add, as they would reach a thread that slept after it.  An event loop's
 * worker threads register new connections this way while its poll
 * thread sleeps (APR's pollset under Apache's event MPM): waiting would
 * cost a wake-up of the poll thread per connection.
 */
int kq_fd_add_fresh(struct kqueue *kq, const struct kevent *kev)
{
	unsigned short flags = kev->flags & ~EV_SYSFLAGS;
	if ((kev->filter != EVFILT_READ && kev->filter != EVFILT_WRITE) ||
	    (flags & ~(EV_ENABLE | EV_CLEAR)) != EV_ADD ||
	    kev->ident >= kq->nfds || kq->defer_arm || kq->dead ||
	    (kev->ext[0] | kev->ext[1] | kev->ext[2] | kev->ext[3]))
		return 1;
	int fd = (int)kev->ident;
	struct kq_fdslot *s = &kq->fds[fd];
	if (!kq_fdslot_unused(s))
		return 1;
	/* counted before the entry exists, as kq_link() does */
	int born = kq_fdtab_socket_interest(kq, fd);
	if (!born)
		return 1;
	struct knote *kn = kq_knote_alloc(kq);
	if (!kn) {
		kq_fdtab_interest(kq, fd, -1);
		return 1;
	}
	kn->ident = kev->ident;
	kn->filter = kev->filter;
	kn->flags = flags & EV_CLEAR;
	kn->sfflags = kev->fflags;
	kn->sdata = kev->data;
	kn->udata = kev->udata;
	if (arm_first(kq, s, kn) != 0) {
		kq_fdtab_interest(kq, fd, -1);
		kq_knote_free(kq, kn);
		return 1;
	}
	s->head = kn;
	if (kev->filter == EVFILT_WRITE && s->kind == KQ_FD_UNKNOWN)
		s->kind = (uint8_t)born;   /* ensure_kind()'s answer */
	return 0;
}

static void fd_detach(struct kqueue *kq, struct knote *kn)
{
	struct kq_fdslot *s = slot_of(kq, kn);
	if (kn->filter == EVFILT_READ)
		kq_dgram_forget(kq, kn);
	if (!s)
		return;
	if (!s->head && kq->efdinfo)
		kq_efdinfo_drop(kq, (int)kn->ident);
	if (kq->entries_die && !(s->state & SLOT_NOPOLL)) {
		/* the close frees the file and its entries (kq_fd_closing):
		 * park_clear() forgets the slot without an EPOLL_CTL_DEL */
		if (!s->head)
			park_clear(kq, s, (int)kn->ident);
		return;
	}
	if (!s->head && !kq->dead && can_park(s, kn)) {
		park_quiet(kq, s, (int)kn->ident);
		return;
	}
	if (s->state & SLOT_NOPOLL) {
		if ((kn->fpriv & FPRIV_WATCHED) && !kq->dead)
			kq_vnode_sync(kq, (int)kn->ident);
	} else if (!kq->dead) {
		slot_sync(kq, s, (int)kn->ident, NULL, (kn->flags & EV_WAKEONE) != 0);
	} else if (!s->head) {
		s->gen++;
	}
	if (!s->head) {
		s->state = 0;
		s->kind = KQ_FD_UNKNOWN;
		s->revents = 0;
	}
}

/* A level entry reported a knote whose condition turned out false (a
 * low-water mark, a pipe with less than PIPE_BUF free): epoll would report it
 * again at once and a blocking kevent() would spin.  Make the fd's entries
 * edge-triggered for as long as the slot lives; level knotes on it are then
 * requeued by the core like any library-driven level knote. */
static void demote(struct kqueue *kq, struct knote *kn)
{
	struct kq_fdslot *s = slot_of(kq, kn);
	if (!s || (s->state & SLOT_DEMOTED))
		return;
	s->state |= SLOT_DEMOTED;
	if (slot_sync(kq, s, (int)kn->ident, NULL, false) == -ESTALE)
		kn->flags |= EV_DROP;   /* see stale_err(); the core drops it */
}

/* Bytes readable past a TCP urgent mark (see read_event), or 0; -ENOTSOCK
 * when the number names no socket now (a close libkq did not see: nothing
 * to keep for the program there).  Asked only of a socket without an error
 * or hang-up, but one may come in the meantime, and a receive, even a
 * peek, takes the pending error: it is kept for the program (see top). */
static int64_t past_urgent_mark(int fd)
{
	long r = KQ_SYSCALL(SYS_recvfrom, fd, NULL, (size_t)1 << 30,
			    MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT, NULL, NULL);
	if (r == -ENOTSOCK)
		return r;
	if (r < 0 && r != -EAGAIN && r != -EINTR)
		kq_fdtab_stash_error(fd, (int)-r);
	return r > 0 ? r : 0;
}

/* The socket error for an EV_EOF record, kept for the program (see top). */
static unsigned sock_error(int fd, uint32_t r)
{
	int e = kq_fdtab_peek_error(fd);
	if (!e && (r & EPOLLERR)) {
		if (sys_getsockopt_int(fd, SOL_SOCKET, SO_ERROR, &e) == 0 && e)
			kq_fdtab_stash_error(fd, e);
	}
	return (unsigned)e;
}

/* SO_RCVLOWAT is cached in fpriv (0x80 | value) when it fits in 7 bits,
 * which covers every program that never sets it; a larger one is asked for
 * at each evaluation. */
static int64_t rcv_lowat(struct knote *kn, int fd)
{
	if (kn->sfflags & NOTE_LOWAT)
		return kn->sdata > 1 ? kn->sdata : 1;
	if (kn->fpriv & 0x80)
		return kn->fpriv & 0x7f;
	int v = 1;
	/* a socket libkq saw made keeps the default unless libkq's
	 * setsockopt() saw it set (fdtab.c, births) */
	if (!kq_fdtab_birth_kind(fd) || kq_fdtab_lowat_set(fd))
		sys_getsockopt_int(fd, SOL_SOCKET, SO_RCVLOWAT, &v);
	if (v < 1)
		v = 1;
	if (v <= 0x7f)
		kn->fpriv = (uint8_t)(0x80 | v);
	return v;
}

/* Takes the answer this call's batch left on kn for `flag` (fd_deliver),
 * if there is one. */
static bool batch_answer(struct knote *kn, uint8_t flag, int64_t *n)
{
	if (!(kn->fpriv & flag))
		return false;
	kn->fpriv &= (uint8_t)~flag;
	*n = kn->data;
	return true;
}

/* The input count of a socket READ knote, and the send space of a WRITE
 * knote: from this call's batch if it has one, else by system call.
 * A TCP connection that died of an error (refused, reset, timed out) has
 * all of its send buffer free, as FreeBSD drops a disconnected socket's:
 * Linux discarded the queue too, but SIOCOUTQ (and so a batch answer)
 * still counts what was never acknowledged, a refused connect's SYN as 1. */
static int inq_of(struct knote *kn, int fd, int64_t *n)
{
	return batch_answer(kn, FPRIV_INQ, n) ? 0 : kq_fd_inq(fd, n);
}

static int space_of(struct knote *kn, int fd, bool died, int64_t *n)
{
	int64_t both;
	if (batch_answer(kn, FPRIV_SPACE, &both)) {
		/* prefetch_store(): the buffer above, the space below */
		*n = died ? both >> 32 : (int64_t)(uint32_t)both;
		return 0;
	}
	return died ? kq_sock_sndbuf(fd, n) : kq_sock_space(fd, n);
}

/*
 * Batched counts.  The TCP READ and WRITE knotes about to be evaluated get
 * their counts in one io_uring submission when there are enough of them to
 * pay for it (mux/uring.c; bench/uring-queries: from about 4 knotes on, a
 * READ knote asking one question, a WRITE knote two).  Two moments
 * evaluate many at once: a delivery (fd_deliver) and, for EV_ONESHOT
 * knotes, which take their data when they fire, the processing of a
 * harvest's reports (fd_harvest).  A knote the batch did not
 * answer asks by system call as usual; one it answered consumes the
 * answer at its very next evaluation, in the same kevent() call.
 */

struct prefetch {
	struct knote     *kn[KQ_URING_MAX];
	struct kq_uring_q q[KQ_URING_MAX];   /* a WRITE knote's two are adjacent */
	int               out[KQ_URING_MAX];
	unsigned          nkn, nq;
};

/* The kind is learned here if need be: the evaluation that follows would
 * learn it anyway (and a birth makes that free). */
static bool batchable(struct kqueue *kq, const struct knote *kn)
{
	if (!IS_RW(kn) || (kn->status & (KN_DISABLED | KN_SNAPSHOT)))
		return false;
	struct kq_fdslot *s = slot_of(kq, kn);
	return s && !(s->state & SLOT_NOPOLL) && ensure_kind(s, (int)kn->ident) == KQ_FD_TCP;
}

static bool prefetch_full(const struct prefetch *b, const struct knote *kn)
{
	return b->nq + 1u + (kn->filter == EVFILT_WRITE) > KQ_URING_MAX;
}

static void prefetch_add(struct prefetch *b, struct knote *kn)
{
	int fd = (int)kn->ident;
	b->kn[b->nkn++] = kn;
	if (kn->filter == EVFILT_WRITE) {
		b->q[b->nq++] = (struct kq_uring_q){ fd, KQ_UQ_SNDBUF };
		b->q[b->nq++] = (struct kq_uring_q){ fd, KQ_UQ_OUTQ };
	} else {
		b->q[b->nq++] = (struct kq_uring_q){ fd, KQ_UQ_INQ };
	}
}

/* Hands the answers to their knotes; the space is kq_sock_space()'s.  A
 * WRITE knote's answer also keeps the buffer size (the high 32 bits):
 * a connection that died reports all of it (space_of()), and a refused
 * connect, the usual way to die, is found in a batch as often as not. */
static void prefetch_store(struct prefetch *b)
{
	for (unsigned i = 0, k = 0; i < b->nkn; i++) {
		struct knote *kn = b->kn[i];
		if (kn->filter == EVFILT_READ) {
			if (b->out[k] >= 0) {
				kn->data = b->out[k];
				kn->fpriv |= FPRIV_INQ;
			}
			k++;
			continue;
		}
		int buf = b->out[k], queued = b->out[k + 1];
		if (buf >= 0 && queued >= 0) {
			int space = buf > queued ? buf - queued : 0;
			kn->data = (int64_t)((uint64_t)(uint32_t)buf << 32 | (uint32_t)space);
			kn->fpriv |= FPRIV_SPACE;
		}
		k += 2;
	}
}

/* Asks what b holds, if that pays, and empties it.  False when io_uring
 * failed: nothing more is asked that way in this call. */
static bool prefetch_flush(struct kqueue *kq, struct prefetch *b)
{
	bool ok = true;
	if (b->nkn >= PREFETCH_MIN) {
		if (!kq->ring && !(kq->ring = kq_uring_new())) {
			ok = false;
		} else if (kq_uring_ask(kq->ring, b->q, b->out, b->nq) != 0) {
			kq_uring_free(kq->ring);
			kq->ring = NULL;
			ok = false;
		} else {
			prefetch_store(b);
		}
	}
	b->nkn = b->nq = 0;
	return ok;
}

/* Before a delivery: the knotes it will evaluate are the first `nevents`
 * of the queue at most (records only come from knotes it evaluates). */
static void fd_deliver(struct kqueue *kq, int nevents)
{
	struct prefetch b;
	unsigned budget = kq->qcount;
	if (budget < PREFETCH_MIN || !kq_uring_usable())
		return;
	b.nkn = b.nq = 0;
	for (struct knote *kn = kq->qhead; kn && budget-- && nevents-- > 0; kn = kn->qnext) {
		if (!batchable(kq, kn))
			continue;
		if (prefetch_full(&b, kn) && !prefetch_flush(kq, &b))
			return;
		prefetch_add(&b, kn);
	}
	prefetch_flush(kq, &b);
}

/* Whether an epoll report (tag, revents) on the slot activates kn.  With
 * READ and WRITE in separate entries (split), a report speaks for its own
 * direction only. */
static bool report_activates(const struct kq_fdslot *s, const struct knote *kn, uint64_t tag,
			     uint32_t revents)
{
	if (!IS_RW(kn) || (kn->status & KN_DISABLED))
		return false;
	if (tag & TAG_WRSET) {
		if (kn->filter != EVFILT_WRITE)
			return false;
	} else if ((s->state & SLOT_WEPOLL) && kn->filter != EVFILT_READ) {
		return false;
	}
	uint32_t care = kn->filter == EVFILT_READ
		? (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)
		: (EPOLLOUT | EPOLLHUP | EPOLLERR);
	return (revents & care) != 0;
}

/* Whether a report on the slot tells kn's condition (a split slot's
 * report tells one direction's only). */
static bool speaks_for(const struct kq_fdslot *s, const struct knote *kn, uint64_t tag)
{
	if (!IS_RW(kn))
		return false;
	if (tag & TAG_WRSET)
		return kn->filter == EVFILT_WRITE;
	return !(s->state & SLOT_WEPOLL) || kn->filter == EVFILT_READ;
}

/* The slot a report speaks for, or NULL when it is stale. */
static struct kq_fdslot *report_slot(struct kqueue *kq, uint64_t tag)
{
	struct kq_fdslot *s = kq_fdslot(kq, (int)(uint32_t)tag, false);
	if (!s || (s->gen & 0x7fffffff) != ((uint32_t)(tag >> 32) & 0x7fffffff))
		return NULL;
	return s;
}

/* Before a harvest's reports are processed: the EV_ONESHOT knotes they
 * activate are evaluated right there (kq_activate), so they are asked for
 * together first. */
static void fd_harvest(struct kqueue *kq, const struct epoll_event *evs, int n)
{
	struct prefetch b;
	/* a kqueue that never had a one-shot knote skips the look */
	if (!kq->fd_oneshot || n < PREFETCH_MIN || !kq_uring_usable())
		return;
	b.nkn = b.nq = 0;
	for (int i = 0; i < n; i++) {
		uint64_t tag = evs[i].data.u64;
		if ((uint32_t)tag & 0x80000000u)   /* not a descriptor's entry */
			continue;
		struct kq_fdslot *s = report_slot(kq, tag);
		if (!s)
			continue;
		for (struct knote *kn = s->head; kn; kn = kn->link) {
			/* batchable() last: it may learn the kind, which only
			 * a knote about to be evaluated should pay for */
			if (!(kn->flags & EV_ONESHOT) ||
			    !report_activates(s, kn, tag, evs[i].events) || !batchable(kq, kn))
				continue;
			if (prefetch_full(&b, kn) && !prefetch_flush(kq, &b))
				return;
			prefetch_add(&b, kn);
		}
	}
	prefetch_flush(kq, &b);
}

/* A socket's query failed with err: relearn() when the number names no
 * socket now; a number closed behind our back (FreeBSD's knote died with
 * the close) drops the knote (-1: the entry's report is the old file's). */
static int not_socket(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn, int fd, int err)
{
	if (err == -EBADF) {
		kn->flags |= EV_DROP;
		return -1;
	}
	return err == -ENOTSOCK ? relearn(kq, s, kn, fd) : 0;
}

static int read_event(struct kqueue *kq, struct knote *kn, struct kq_fdslot *s, uint32_t r)
{
	int fd = (int)kn->ident;
	int64_t n = 0;
	int k;

	switch (s->kind) {
	case KQ_FD_PIPE:
		/* READ on a pipe's write end: FreeBSD reports EV_EOF once the
		 * read end is gone (event loops watch a child's stdin so);
		 * Linux says EPOLLERR there.  A write-only FIFO stays silent
		 * on both. */
		if ((r & EPOLLERR) && !(r & (EPOLLIN | EPOLLHUP))) {
			kn->data = 0;
			kn->flags |= EV_EOF;
			return 1;
		}
		/* FALLTHROUGH */
	case KQ_FD_FIFO:
	case KQ_FD_TTY:
		if (!(r & (EPOLLIN | EPOLLHUP)))
			return 0;
		kq_fd_inq(fd, &n);
		kn->data = n;
		if (r & EPOLLHUP) {
			kn->flags |= EV_EOF;
			return 1;
		}
		return n > 0;
	case KQ_FD_STREAM:
	case KQ_FD_TCP:
		if ((kn->flags & EV_WAKEONE) && (r & EPOLLIN) && !(r & EPOLLRDHUP)) {
			int p = sys_poll1(fd, POLLRDHUP);
			if (p > 0)
				r |= (uint32_t)p;
		}
		/* FIONREAD fails on a listener (listen() came after the
		 * knote, or the first look took it for a connection); a
		 * hang-up without RDHUP is a pipe's or a tty's, or a
		 * socket's that never connected */
		if ((inq_of(kn, fd, &n) != 0 || ((r & EPOLLHUP) && !(r & EPOLLRDHUP))) &&
		    (k = relearn(kq, s, kn, fd)) != 0)
			return k > 0 ? read_event(kq, kn, s, r) : 0;
		/* Linux's FIONREAD counts TCP data only up to the urgent mark,
		 * and so says 0 at the mark once the urgent byte was taken out
		 * of band, while the bytes after it are readable (EPOLLIN).
		 * FreeBSD's buffer no longer holds that byte: READ fires for
		 * them.  A peek that copies nothing counts them. */
		if (n == 0 && (r & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == EPOLLIN &&
		    s->kind == KQ_FD_TCP && (n = past_urgent_mark(fd)) < 0) {
			if ((k = relearn(kq, s, kn, fd)) != 0)
				return k > 0 ? read_event(kq, kn, s, r) : 0;
			n = 0;
		}
		kn->data = n;
		if (r & EPOLLRDHUP) {
			kn->flags |= EV_EOF;
			kn->fflags = sock_error(fd, r);
			return 1;
		}
		if (r & EPOLLERR)
			return 1;
		/* TCP's poll says EPOLLIN only once SO_RCVLOWAT bytes are
		 * there (FreeBSD's sb_lowat test), so a READ knote without
		 * NOTE_LOWAT need not ask for the value; AF_UNIX's ignores it */
		if (s->kind == KQ_FD_TCP && !(kn->sfflags & NOTE_LOWAT))
			return (r & EPOLLIN) && n > 0;
		return n >= rcv_lowat(kn, fd);
	case KQ_FD_DGRAM:
		if ((r & EPOLLHUP) && !(r & EPOLLRDHUP) && (k = relearn(kq, s, kn, fd)) != 0)
			return k > 0 ? read_event(kq, kn, s, r) : 0;
		if (!(r & (EPOLLIN | EPOLLERR | EPOLLRDHUP)))
			return 0;
		kq_fd_inq(fd, &n);
		/* Readable with no datagram's size: an empty datagram, or a
		 * number that names another file now (slot_gone), whose
		 * FIONREAD answers too (a pipe's 0) */
		if (n == 0 && (r & EPOLLIN) && slot_gone(kq, s, kn, fd))
			return 0;
		kn->data = n;
		if (r & EPOLLRDHUP) {
			kn->flags |= EV_EOF;
			kn->fflags = sock_error(fd, r);
			return 1;
		}
		if (r & EPOLLIN)
			return 1;
		/* EPOLLERR alone.  A pending socket error fires, as FreeBSD's
		 * filt_soread fires on so_error (an ICMP error on a UDP socket)
		 * until a receive returns it.  Linux also says EPOLLERR for as
		 * long as IP_RECVERR's error queue holds a message, which only
		 * recvmsg(MSG_ERRQUEUE) drains and FreeBSD has no notion of:
		 * that alone is nothing a READ knote can report (a record the
		 * program cannot consume would come back on every call), and
		 * the level entry that keeps saying it is demoted to an edge
		 * one (kq_fd_event).  Telling the two apart reads SO_ERROR,
		 * which clears the error: only the libc replacements can give
		 * it back to the program (libc/sockio.c), so a build without
		 * them fires for EPOLLERR as it comes. */
#if KQ_LIBC_REPLACEMENTS
		return sock_error(fd, r) != 0;
#else
		return 1;
#endif
	case KQ_FD_LISTEN_INET:
	case KQ_FD_LISTEN_UNIX:
	case KQ_FD_LISTEN_OTHER:
		/* A listener polls readable exactly while its accept queue
		 * holds a connection: without EPOLLIN the count is 0 and not
		 * asked for (a connection that came since makes a report) */
		if (!(r & (EPOLLIN | EPOLLERR | EPOLLHUP))) {
			kn->data = 0;
			return 0;
		}
		if ((k = kq_listen_backlog(fd, s->kind, &n, &kq->diagfd)) != 0) {
			if ((k = not_socket(kq, s, kn, fd, k)) != 0)
				return k > 0 ? read_event(kq, kn, s, r) : 0;
			n = (r & EPOLLIN) ? 1 : 0;
		}
		kn->data = n;
		return n > 0;
	case KQ_FD_EVENTFD: {
		uint64_t c = 0;
		if (!(r & EPOLLIN))
			return 0;
		if (kq_eventfd_count(kq, fd, &c) != 0) {
			/* the number names something else now: closed and
			 * reused where libkq could not see, the eventfd kept
			 * alive (and its entry reporting) by a copy */
			if ((k = relearn(kq, s, kn, fd)) != 0)
				return k > 0 ? read_event(kq, kn, s, r) : 0;
			c = 1;
		}
		kn->data = (int64_t)c;
		return 1;
	}
	case KQ_FD_KQUEUE: {
		/* Looking into the inner kqueue moves its epoll reports onto
		 * its queue, and making it readable for poll() is itself a
		 * wake-up our edge-triggered entry sees.  So an EV_CLEAR
		 * knote fires for new activations inside it (FreeBSD's
		 * KNOTE on the kqueue), not for every edge.  fstate holds the
		 * inner activation count last reported. */
		int err;
		struct kqueue *inner = kq_acquire(fd, &err);
		if (!inner)
			return 0;
		n = kq_pending_count(inner);
		uint64_t act = inner->nact;
		kq_release(inner);
		kn->data = n;
		if (n <= 0)
			return 0;
		if (kn->flags & EV_CLEAR) {
			if ((uint64_t)(uintptr_t)kn->fstate == act)
				return 0;
			kn->fstate = (void *)(uintptr_t)act;
		}
		return 1;
	}
	case KQ_FD_FILE:
		if (kq_file_remaining(fd, &n) != 0)
			return 0;
		kn->data = n;
		return (kn->sfflags & NOTE_FILE_POLL) || n != 0;
	case KQ_FD_ALWAYS:
		kn->data = 0;
		return 1;
	default:
		if (!(r & (EPOLLIN | EPOLLHUP | EPOLLERR)))
			return 0;
		if (kq_fd_inq(fd, &n) != 0)
			n = 1;
		kn->data = n;
		if (r & EPOLLHUP)
			kn->flags |= EV_EOF;
		return 1;
	}
}

static int write_event(struct kqueue *kq, struct knote *kn, struct kq_fdslot *s, uint32_t r)
{
	int fd = (int)kn->ident;
	int64_t n = 0;
	int k;

	switch (s->kind) {
	case KQ_FD_PIPE:
	case KQ_FD_FIFO:
		if (r & EPOLLERR) {    /* the reader is gone */
			kn->flags |= EV_EOF;
			kn->data = 0;
			return 1;
		}
		if (!(r & EPOLLOUT))
			return 0;
		kq_pipe_space(fd, &n);
		kn->data = n;
		return n >= PIPE_BUF;
	case KQ_FD_STREAM:
	case KQ_FD_TCP: {
		bool died = s->kind == KQ_FD_TCP &&
			    (r & (EPOLLHUP | EPOLLERR)) == (EPOLLHUP | EPOLLERR);
		if ((k = space_of(kn, fd, died, &n)) != 0 && (k = not_socket(kq, s, kn, fd, k)) != 0)
			return k > 0 ? write_event(kq, kn, s, r) : 0;
		kn->data = n;
		/* A socket that never connected reports OUT|HUP without RDHUP;
		 * both directions shut (peer gone, reset) show HUP and RDHUP.
		 * A WRITE-only entry does not ask for RDHUP, so it is polled
		 * for -- except with an error pending: a connection only has
		 * one when it failed or was reset, which shuts both ways (a
		 * refused connect costs no poll). */
		if ((r & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)) == (EPOLLHUP | EPOLLERR)) {
			r |= EPOLLRDHUP;
		} else if ((r & EPOLLHUP) && !(r & EPOLLRDHUP)) {
			int p = sys_poll1(fd, POLLRDHUP);
			if (p > 0)
				r |= (uint32_t)p;
		}
		if ((r & EPOLLHUP) && (r & EPOLLRDHUP)) {
			kn->flags |= EV_EOF;
			kn->fflags = sock_error(fd, r);
			return 1;
		}
		if (r & EPOLLERR)
			return 1;
		if (!(r & EPOLLOUT) || (r & EPOLLHUP))
			return 0;
		return !(kn->sfflags & NOTE_LOWAT) || n >= kn->sdata;
	}
	case KQ_FD_DGRAM:
		if ((k = kq_sock_space(fd, &n)) != 0 && (k = not_socket(kq, s, kn, fd, k)) != 0)
			return k > 0 ? write_event(kq, kn, s, r) : 0;
		kn->data = n;
		if (r & EPOLLERR)
			return 1;
		if (!(r & EPOLLOUT))
			return 0;
		return !(kn->sfflags & NOTE_LOWAT) || n >= kn->sdata;
	case KQ_FD_LISTEN_INET:
	case KQ_FD_LISTEN_UNIX:
	case KQ_FD_LISTEN_OTHER:
	case KQ_FD_KQUEUE:
		return 0;
	case KQ_FD_FILE:
	case KQ_FD_ALWAYS:
		kn->data = 0;
		return 1;
	case KQ_FD_TTY:
		if (r & EPOLLHUP) {
			kn->flags |= EV_EOF;
			kn->data = 0;
			return 1;
		}
		if (!(r & EPOLLOUT))
			return 0;
		kq_tty_space(fd, &n);
		kn->data = n;
		return 1;
	case KQ_FD_EVENTFD: {
		uint64_t c = 0;
		if (!(r & EPOLLOUT))
			return 0;
		if (kq_eventfd_count(kq, fd, &c) != 0 && (k = relearn(kq, s, kn, fd)) != 0)
			return k > 0 ? write_event(kq, kn, s, r) : 0;   /* as in read_event */
		kn->data = (int64_t)(UINT64_C(0xfffffffffffffffe) - c);
		return 1;
	}
	default:
		if (!(r & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return 0;
		kn->data = 0;
		if (r & EPOLLHUP)
			kn->flags |= EV_EOF;
		return 1;
	}
}

static bool is_listener(int kind)
{
	return kind == KQ_FD_LISTEN_INET || kind == KQ_FD_LISTEN_UNIX ||
	       kind == KQ_FD_LISTEN_OTHER;
}

static int fd_event(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);
	if (!s || (kn->flags & EV_DROP))   /* slot_gone() */
		return 0;
	int kind = ensure_kind(s, fd);
	if (kind < 0) {
		if (kind == -EBADF)   /* closed behind our back (see below) */
			kn->flags |= EV_DROP;
		return 0;
	}
	uint32_t r = 0;
	if (!(s->state & SLOT_NOPOLL)) {
		if (kn->status & KN_FRESH) {
			r = s->revents;
		} else {
			int p = sys_poll1(fd, POLLIN | POLLOUT | POLLRDHUP);
			if (p < 0) {
				/* a batch answer must not outlive this call
				 * (only TCP knotes get one, and there fpriv
				 * holds nothing else) */
				if (kind == KQ_FD_TCP)
					kn->fpriv &= (uint8_t)~(FPRIV_INQ | FPRIV_SPACE);
				return 0;
			}
			if (p & POLLNVAL) {
				/* closed behind our back: FreeBSD's knote died
				 * with the close (the core drops it) */
				kn->flags |= EV_DROP;
				return 0;
			}
			r = (uint32_t)p;
		}
	}
	kn->flags &= ~EV_EOF;
	kn->fflags = 0;
	int fire = kn->filter == EVFILT_READ ? read_event(kq, kn, s, r)
					     : write_event(kq, kn, s, r);
	if (kq->exact_eof && !(kn->flags & EV_EOF) && !(s->state & SLOT_NOPOLL)) {
		int p = sys_poll1(fd, POLLIN | POLLOUT | POLLRDHUP);
		if (p > 0 && (p & (POLLHUP | POLLRDHUP | POLLERR))) {
			kn->fflags = 0;
			fire = kn->filter == EVFILT_READ ? read_event(kq, kn, s, (uint32_t)p)
							 : write_event(kq, kn, s, (uint32_t)p);
		}
	}
	/* An end of file reported for a number that names another file now
	 * is the old file's (slot_gone), and the counts that came with it
	 * the new file's, which FIONREAD answers for whatever it is.  It
	 * comes once a connection or a pipe, so it is asked about, unless
	 * the descriptor is private (fdtab.c, births): only a copy keeps a
	 * file and its entry alive after a close, and a private one has
	 * none, so its reports are its own file's. */
	if (__builtin_expect(fire && (kn->flags & EV_EOF), 0) && !kq_fdtab_seems_private(fd) &&
	    slot_gone(kq, s, kn, fd))
		return 0;
	/* A level report found false demotes the slot (demote()), but not
	 * a listener's readable report: that condition is its poll's own
	 * (the accept queue is not empty), which epoll asks again before it
	 * reports a level entry, so a report found false lost a race (a
	 * thread of another kqueue holding the listener accepted first) and
	 * does not come back.  Demoted, the knote would be queued again
	 * after each record and polled at the next call, with a wake-up for
	 * it: per connection, in a server whose threads each have a kqueue
	 * holding the listener. */
	if (!fire && (kn->status & (KN_LEVELSRC | KN_FRESH)) == (KN_LEVELSRC | KN_FRESH) &&
	    !(is_listener(s->kind) && !(r & (EPOLLERR | EPOLLHUP))))
		demote(kq, kn);
	return fire;
}

/*
 * The direct path (scan.c): a report whose slot holds a single enabled
 * level knote without EV_CLEAR, EV_ONESHOT or EV_DISPATCH, on a level entry,
 * is evaluated and copied out at once.  Through the ready queue it would be
 * activated, queued, taken off again and evaluated, with the same result:
 * such a knote is never queued again after a delivery (epoll reports it
 * again while it holds), and nothing else in the call looks at it.  TCP
 * knotes among enough reports stay on the queue, where their counts come
 * in one batch (fd_deliver).  The commonest record (data on a pipe, a FIFO
 * or a TCP connection) is made by kq_fd_direct_read() before this is asked
 * (scan.c, direct_record); this evaluates the rest through the filter.
 * Returns -1 when the report must take the general path (nothing was
 * done), else the number of records written at *out (0 or 1).
 */
int kq_fd_report_direct(struct kqueue *kq, uint64_t tag, uint32_t revents,
			struct kevent *out, int nreports)
{
	struct kq_fdslot *s = report_slot(kq, tag);
	struct knote *kn;
	if (!s || (tag & TAG_WRSET) || (s->state & SLOT_WEPOLL) ||
	    !(kn = s->head) || kn->link)
		return -1;
	if ((kn->flags & (EV_ONESHOT | EV_CLEAR | EV_DISPATCH)) ||
	    (kn->status & (KN_LEVELSRC | KN_DISABLED | KN_QUEUED)) != KN_LEVELSRC ||
	    s->kind == KQ_FD_UNKNOWN || !report_activates(s, kn, tag, revents) ||
	    (s->kind == KQ_FD_TCP && nreports >= PREFETCH_MIN && kq_uring_usable()))
		return -1;
	s->revents = (uint16_t)revents;
	kq->nact++;   /* an activation, as kq_enqueue() counts them */
	kn->status |= KN_FRESH;
	int fire = fd_event(kq, kn);
	kn->status &= (uint8_t)~(KN_FRESH | KN_SNAPSHOT | KN_FORCED);
	if (!fire) {
		if (kn->flags & EV_DROP)
			kq_drop(kq, kn);
		return 0;
	}
	kq_copyout(out, kn);
	return 1;
}

/* Called by the scan for each epoll report on an fd entry (directly, by
 * kq_source_report: the hottest call there). */
void kq_fd_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	int fd = (int)(uint32_t)tag;
	struct kq_fdslot *s = report_slot(kq, tag);
	if (!s) {
		kq->nstale++;   /* see kq_scan: an orphaned entry */
		return;
	}
	if (!s->head) {
		if (s->state & SLOT_EPOLL)
			kq_fd_unpark(kq, fd);   /* see can_park() */
		else
			kq->nstale++;
		return;
	}
	/* A split slot's report keeps the other direction's bits. */
	uint32_t covered = ~0u;
	if (tag & TAG_WRSET)
		covered = EPOLLOUT | EPOLLHUP | EPOLLERR;
	else if (s->state & SLOT_WEPOLL)
		covered = ~(uint32_t)EPOLLOUT;
	s->revents = (uint16_t)((s->revents & ~covered) | (revents & covered));
	/* FreeBSD's queue is in activation order, a level knote going back
	 * to its tail each time it is delivered.  One report can activate
	 * several knotes of the slot; those the report leaves idle move to the
	 * tail of the slot's list, so that when they become ready they come
	 * after a knote that stayed ready (a WRITE knote delivered again and
	 * again before the READ knote's data came) and the list stays in the
	 * order FreeBSD would have queued them. */
	bool any = false;
	struct knote **pp = &s->head, *idle = NULL, **idletail = &idle;
	bool several = s->head->link != NULL;
	for (struct knote *kn; (kn = *pp) != NULL;) {
		if (!report_activates(s, kn, tag, revents)) {
			if (several && speaks_for(s, kn, tag)) {
				*pp = kn->link;
				kn->link = NULL;
				*idletail = kn;
				idletail = &kn->link;
			} else {
				pp = &kn->link;
			}
			continue;
		}
		any = true;
		kn->status |= KN_FRESH;
		kq_activate(kq, kn);
		pp = &kn->link;
	}
	*pp = idle;
	/* Nothing enabled wanted this report: bits kept for disabled knotes
	 * (see fd_arm) would make a level entry report it again at once.  A
	 * split slot's WRITE entry has its own trigger mode (SLOT_WET). */
	if (!any && !(s->state & ((tag & TAG_WRSET) ? SLOT_WET : SLOT_ET)))
		slot_sync(kq, s, fd, NULL, false);
}

/* Activates the READ knotes of a library-driven (regular file) slot. */
void kq_fd_activate_reads(struct kqueue *kq, int fd);
void kq_fd_activate_reads(struct kqueue *kq, int fd)
{
	struct kq_fdslot *s = kq_fdslot(kq, fd, false);
	for (struct knote *kn = s ? s->head : NULL; kn; kn = kn->link)
		if (kn->filter == EVFILT_READ)
			kq_activate(kq, kn);
}

/* The kqueue is being destroyed: the WRITE set goes (READ's vector only, so
 * it runs once; the inotify instance belongs to filter/vnode.c). */
static void fd_forget(struct kqueue *kq)
{
	kq_fd_own_close(kq->wrfd);
	kq->wrfd = -1;
	kq_fd_own_close(kq->diagfd);
	kq->diagfd = -1;
	kq_efdinfo_fini(kq, false);
}

static void fd_fini(struct kqueue *kq)
{
	fd_forget(kq);
	kq_efdinfo_fini(kq, true);
	kq_dgram_fini(kq);
}

const struct filterops kq_read_filtops = {
	.isfd = true,
	.attach = fd_attach,
	.detach = fd_detach,
	.event = fd_event,
	.arm = fd_arm,
	.delivered = kq_dgram_delivered,
	.fini = fd_fini,
	.forget = fd_forget,   /* only closes descriptors; frees nothing */
};

const struct filterops kq_write_filtops = {
	.isfd = true,
	.attach = fd_attach,
	.detach = fd_detach,
	.event = fd_event,
	.arm = fd_arm,
};

/* The nested WRITE set (see split entries above) is ready: its reports are
 * the kqueue's too. */
#define WRSET_MAX 512
static void wrset_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	struct epoll_event evs[WRSET_MAX];
	int r = kq_epoll_wait(kq->wrfd, evs, WRSET_MAX, 0);
	if (r > 0)
		kq_scan_reports(kq, evs, r);
}

const struct kq_source kq_fd_source = {
	.report = kq_fd_report,
	.harvest = fd_harvest,
	.deliver = fd_deliver,
};
const struct kq_source kq_wrset_source = { .report = wrset_report };
