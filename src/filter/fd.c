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
 * (interpose.c), so connect() result checks keep working.
 */
#include "kq.h"
#include "sys.h"
#include "filter/fdkind.h"

#include <limits.h>

#define SLOT_EPOLL   0x01   /* an epoll entry exists */
#define SLOT_ET      0x02   /* ... and it is edge-triggered */
#define SLOT_NOPOLL  0x04   /* epoll refused the fd; the library drives it */
#define SLOT_IN      0x08   /* the entry has the READ bits */
#define SLOT_OUT     0x10   /* the entry has the WRITE bits */

#define FPRIV_WATCHED 0x0001 /* READ on a regular file: inotify watch held */

#define READ_BITS   (EPOLLIN | EPOLLRDHUP)
#define WRITE_BITS  (EPOLLOUT)

int  kq_vfile_watch(struct kqueue *kq, int fd);      /* filter/vfile.c */
void kq_vfile_unwatch(struct kqueue *kq, int fd);

static struct kq_fdslot *slot_of(struct kqueue *kq, const struct knote *kn)
{
	return kq_fdslot(kq, (int)kn->ident, false);
}

static uint64_t tag_of(const struct kq_fdslot *s, int fd)
{
	return ((uint64_t)s->gen << 32) | (uint32_t)fd;
}

/* The epoll events the entry should have, and which knotes epoll re-reports. */
static uint32_t entry_events(struct kq_fdslot *s)
{
	uint32_t all = 0, en = 0;
	bool clear = false;
	for (struct knote *kn = s->head; kn; kn = kn->link) {
		uint32_t bits = kn->filter == EVFILT_READ ? READ_BITS : WRITE_BITS;
		all |= bits;
		if (!(kn->status & KN_DISABLED))
			en |= bits;
		if (kn->flags & EV_CLEAR)
			clear = true;
	}
	bool et = clear || !en;
	for (struct knote *kn = s->head; kn; kn = kn->link) {
		if (et)
			kn->status &= ~KN_LEVELSRC;
		else
			kn->status |= KN_LEVELSRC;
	}
	return et ? (all | EPOLLET) : en;
}

static uint8_t entry_state(uint32_t ev)
{
	return SLOT_EPOLL | ((ev & EPOLLET) ? SLOT_ET : 0) |
	       ((ev & EPOLLIN) ? SLOT_IN : 0) | ((ev & EPOLLOUT) ? SLOT_OUT : 0);
}

static int watch_file(struct kqueue *kq, struct kq_fdslot *s, struct knote *kn)
{
	if (kn->filter != EVFILT_READ || s->kind != KQ_FD_FILE ||
	    (kn->fpriv & FPRIV_WATCHED))
		return 0;
	int err = kq_vfile_watch(kq, (int)kn->ident);
	if (!err)
		kn->fpriv |= FPRIV_WATCHED;
	return err;
}

static int ensure_kind(struct kq_fdslot *s, int fd)
{
	if (s->kind == KQ_FD_UNKNOWN) {
		int k = kq_fd_classify(fd);
		if (k < 0)
			return k;
		s->kind = (uint8_t)k;
	}
	return s->kind;
}

static int fd_attach(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);
	kn->fpriv = 0;
	if (kq_is_kqueue_fd(fd)) {
		/* FreeBSD: only EVFILT_READ on a kqueue, and never on itself */
		if (kn->filter != EVFILT_READ || fd == kq->ufd)
			return -EINVAL;
		s->kind = KQ_FD_KQUEUE;
	}
	if (kn->filter == EVFILT_WRITE && s->kind != KQ_FD_STREAM &&
	    s->kind != KQ_FD_DGRAM) {
		/* FreeBSD refuses a WRITE knote on a pipe whose reader is gone */
		int p = sys_poll1(fd, POLLOUT);
		if (p < 0)
			return p;
		if (p & POLLERR) {
			int k = ensure_kind(s, fd);
			if (k == KQ_FD_PIPE || k == KQ_FD_FIFO)
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
	int k = ensure_kind(s, fd);
	if (k < 0)
		return k;
	if (k != KQ_FD_FILE)
		s->kind = KQ_FD_ALWAYS;
	s->state = SLOT_NOPOLL;
	return watch_file(kq, s, kn);
}

static int fd_arm(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);

	if (s->state & SLOT_NOPOLL)
		return watch_file(kq, s, kn);
	uint32_t ev = entry_events(s);
	int err;
	if (!(s->state & SLOT_EPOLL)) {
		err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, ev, tag_of(s, fd));
		if (err == -EEXIST)
			err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_MOD, fd, ev, tag_of(s, fd));
		if (err == -EPERM)
			return nopoll_attach(kq, s, kn);
		if (err)
			return err;
		s->state = entry_state(ev);
		return 1;
	}
	/* An enabled knote always gets its MOD: that call is the
	 * re-evaluation.  A disabled one only needs it if the entry changes. */
	if ((kn->status & KN_DISABLED) && entry_state(ev) == s->state)
		return 1;
	err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_MOD, fd, ev, tag_of(s, fd));
	if (err == -ENOENT) {
		/* the number now names a file this set has never seen */
		err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, ev, tag_of(s, fd));
		if (err == -EPERM)
			return nopoll_attach(kq, s, kn);
	}
	if (err)
		return err;
	s->state = entry_state(ev);
	return 1;
}

static void fd_detach(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);
	if (!s)
		return;
	if (s->state & SLOT_NOPOLL) {
		if ((kn->fpriv & FPRIV_WATCHED) && !kq->dead)
			kq_vfile_unwatch(kq, fd);
	} else if ((s->state & SLOT_EPOLL) && s->head) {
		uint32_t ev = entry_events(s);
		if (!kq->dead)
			sys_epoll_ctl(kq->epfd, EPOLL_CTL_MOD, fd, ev, tag_of(s, fd));
		s->state = entry_state(ev);
		return;
	} else if (s->state & SLOT_EPOLL) {
		if (!kq->dead)
			sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, fd, 0, 0);
		s->gen++;
	}
	if (!s->head) {
		s->state = 0;
		s->kind = KQ_FD_UNKNOWN;
		s->revents = 0;
	}
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

static int64_t rcv_lowat(struct knote *kn, int fd)
{
	if (kn->sfflags & NOTE_LOWAT)
		return kn->sdata > 1 ? kn->sdata : 1;
	if (!(kn->fpriv & 0x8000)) {
		int v = 1;
		sys_getsockopt_int(fd, SOL_SOCKET, SO_RCVLOWAT, &v);
		if (v < 1)
			v = 1;
		kn->fpriv = (uint16_t)(0x8000 | (v > 0x7fff ? 0x7fff : v));
	}
	return kn->fpriv & 0x7fff;
}

static int read_event(struct kqueue *kq, struct knote *kn, struct kq_fdslot *s, uint32_t r)
{
	int fd = (int)kn->ident;
	int64_t n = 0;

	switch (s->kind) {
	case KQ_FD_PIPE:
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
		if (kq_fd_inq(fd, &n) == -EINVAL) {
			/* listen() was called after the knote was added */
			int k = kq_fd_classify(fd);
			if (k > 0 && k != KQ_FD_STREAM) {
				s->kind = (uint8_t)k;
				return read_event(kq, kn, s, r);
			}
		}
		kn->data = n;
		if (r & EPOLLRDHUP) {
			kn->flags |= EV_EOF;
			kn->fflags = sock_error(fd, r);
			return 1;
		}
		if (r & EPOLLERR)
			return 1;
		return n >= rcv_lowat(kn, fd);
	case KQ_FD_DGRAM:
		if (!(r & (EPOLLIN | EPOLLERR | EPOLLRDHUP)))
			return 0;
		kq_fd_inq(fd, &n);
		kn->data = n;
		if (r & EPOLLRDHUP) {
			kn->flags |= EV_EOF;
			kn->fflags = sock_error(fd, r);
		}
		return 1;
	case KQ_FD_LISTEN_INET:
	case KQ_FD_LISTEN_UNIX:
	case KQ_FD_LISTEN_OTHER:
		if (kq_listen_backlog(fd, s->kind, &n) != 0)
			n = (r & EPOLLIN) ? 1 : 0;
		kn->data = n;
		return n > 0;
	case KQ_FD_EVENTFD: {
		uint64_t c = 0;
		if (!(r & EPOLLIN))
			return 0;
		if (kq_eventfd_count(fd, &c) != 0)
			c = 1;
		kn->data = (int64_t)c;
		return 1;
	}
	case KQ_FD_KQUEUE: {
		struct kqueue *inner = kq_acquire(fd);
		if (!inner)
			return 0;
		n = kq_pending_count(inner);
		kq_release(inner);
		kn->data = n;
		return n > 0;
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
	(void)kq;

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
		kq_sock_space(fd, &n);
		kn->data = n;
		/* A socket that never connected reports OUT|HUP without RDHUP;
		 * both directions shut (peer gone, reset) show HUP and RDHUP. */
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
	case KQ_FD_DGRAM:
		kq_sock_space(fd, &n);
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
		kq_eventfd_count(fd, &c);
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

static int fd_event(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct kq_fdslot *s = slot_of(kq, kn);
	if (!s || ensure_kind(s, fd) < 0)
		return 0;
	uint32_t r = 0;
	if (!(s->state & SLOT_NOPOLL)) {
		if (kn->status & KN_FRESH) {
			r = s->revents;
		} else {
			int p = sys_poll1(fd, POLLIN | POLLOUT | POLLRDHUP);
			if (p < 0)
				return 0;
			r = (uint32_t)p;
		}
	}
	kn->flags &= ~EV_EOF;
	kn->fflags = 0;
	return kn->filter == EVFILT_READ ? read_event(kq, kn, s, r)
					 : write_event(kq, kn, s, r);
}

/* Called by the scan for each epoll report on an fd entry. */
void kq_fd_report(struct kqueue *kq, uint64_t tag, uint32_t revents);
void kq_fd_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	int fd = (int)(uint32_t)tag;
	struct kq_fdslot *s = kq_fdslot(kq, fd, false);
	if (!s || !s->head || s->gen != (uint32_t)(tag >> 32))
		return;
	s->revents = (uint16_t)revents;
	for (struct knote *kn = s->head; kn; kn = kn->link) {
		uint32_t care = kn->filter == EVFILT_READ
			? (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)
			: (EPOLLOUT | EPOLLHUP | EPOLLERR);
		if (!(revents & care))
			continue;
		kn->status |= KN_FRESH;
		kq_activate(kq, kn);
	}
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

const struct filterops kq_read_filtops = {
	.isfd = true,
	.attach = fd_attach,
	.detach = fd_detach,
	.event = fd_event,
	.arm = fd_arm,
};

const struct filterops kq_write_filtops = {
	.isfd = true,
	.attach = fd_attach,
	.detach = fd_detach,
	.event = fd_event,
	.arm = fd_arm,
};
