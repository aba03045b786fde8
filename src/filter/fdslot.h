/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What filter/fd.c shares with the scan's zero-timeout path (scan.c,
 * kq_poll): the bits of a descriptor slot and of its epoll tag, and the
 * commonest record of all, taken inline.
 */
#ifndef KQ_FDSLOT_H
#define KQ_FDSLOT_H

#include "kq.h"
#include "sys.h"
#include "filter/fdkind.h"

#include <sys/ioctl.h>

#define SLOT_EPOLL   0x01   /* an entry exists in the main set */
#define SLOT_ET      0x02   /* ... and it is edge-triggered */
#define SLOT_NOPOLL  0x04   /* epoll refused the fd; the library drives it */
#define SLOT_IN      0x08   /* the main entry has the READ bits */
#define SLOT_OUT     0x10   /* the main entry has the WRITE bits */
#define SLOT_DEMOTED 0x20   /* level reports turned out false: stay edge */
#define SLOT_WEPOLL  0x40   /* the WRITE knote has its own entry in kq->wrfd */
#define SLOT_WET     0x80   /* ... and it is edge-triggered */

/* A TCP READ knote's data holds its SIOCINQ answer, a TCP WRITE knote's
 * its send space, from this call's batch (fd_deliver,
 * fd_harvest); TCP READ and WRITE knotes use fpriv for nothing
 * else. */
#define FPRIV_INQ     0x02
#define FPRIV_SPACE   0x04

/* epoll_event.data of an entry: generation and fd; bit 63 marks the entry
 * in the WRITE set.  (Bit 31 stays clear: fds are below 2^31, and that is
 * how the scan tells descriptor entries from its own tags.) */
#define TAG_WRSET (UINT64_C(1) << 63)

/* From this many TCP knotes to evaluate on, their counts come in one
 * io_uring batch (filter/fd.c, struct prefetch). */
#define PREFETCH_MIN 4

/*
 * The record kq_fd_report_direct() makes most often, with nothing but its
 * tests: data arriving on a pipe, a FIFO or a TCP connection whose slot
 * holds one plain level READ knote on a level entry (no EV_CLEAR,
 * EV_ONESHOT, EV_DISPATCH, EV_WAKEONE, NOTE_LOWAT), the report saying
 * readable and nothing else.  The count comes from FIONREAD, as
 * read_event() takes it.  Returns 1 with the record written at *out, or 0
 * with nothing done: kq_fd_report_direct() then decides.  The caller has
 * checked that the ready queue is empty (no knote is KN_QUEUED).
 */
static inline __attribute__((always_inline))
int kq_fd_direct_read(struct kqueue *kq, uint64_t tag, uint32_t revents,
		      struct kevent *out, int nreports)
{
	uint32_t fd = (uint32_t)tag;
	/* every test expected to pass: the straight line is the record */
	if (__builtin_expect(fd >= kq->nfds, 0))
		return 0;
	struct kq_fdslot *s = &kq->fds[fd];
	struct knote *kn = s->head;
	/* the generation, and not the WRITE set's (TAG_WRSET: bit 31 here) */
	if (__builtin_expect((uint32_t)(tag >> 32) != (s->gen & 0x7fffffff) ||
			     (s->state & SLOT_WEPOLL) || !kn || kn->link ||
			     kn->filter != EVFILT_READ ||
			     (kn->flags & (EV_ONESHOT | EV_CLEAR | EV_DISPATCH | EV_WAKEONE | EV_DROP)) ||
			     (kn->status & (KN_LEVELSRC | KN_DISABLED)) != KN_LEVELSRC ||
			     (revents & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != EPOLLIN ||
			     kq->exact_eof, 0))
		return 0;
	if (s->kind != KQ_FD_PIPE && s->kind != KQ_FD_FIFO &&
	    __builtin_expect(s->kind != KQ_FD_TCP || (kn->sfflags & NOTE_LOWAT) ||
			     (kn->fpriv & FPRIV_INQ) || nreports >= PREFETCH_MIN, 0))
		return 0;
	/* Everything but the count is written before the ioctl, so that
	 * after it nothing is loaded again.  A refusal leaves a record the
	 * caller overwrites and fields the filter sets again. */
	uint16_t flags = kn->flags & (uint16_t)~EV_EOF;
	kn->flags = flags;
	kn->fflags = 0;
	out->ident = kn->ident;
	out->filter = EVFILT_READ;
	out->flags = flags;
	out->fflags = 0;
	out->udata = kn->udata;
	kq_copyout_ext(out, kn);
	int n = 0;
	if (__builtin_expect(sys_ioctl_int((int)fd, FIONREAD, &n) != 0 || n <= 0, 0))
		return 0;
	s->revents = (uint16_t)revents;
	kq->nact++;   /* an activation, as kq_enqueue() counts them */
	kn->data = n;
	out->data = n;
	return 1;
}

#endif
