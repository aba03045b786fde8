/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer harness: bytes -> a sequence of kqueue operations on a small
 * ident space (3 pipes, EVFILT_USER idents 1-3, EVFILT_TIMER ident 2), each
 * result checked against a single-threaded reference model of FreeBSD's
 * kqueue (changes, receipts and errors, delivery, and the filters' rules,
 * with libkq's documented deviations).
 *
 * Operations: changelists of 1-3 changes (EV_ADD with any of EV_ONESHOT,
 * EV_CLEAR, EV_DISPATCH, EV_RECEIPT, EV_DISABLE; EV_DELETE; EV_ENABLE;
 * EV_DISABLE; flags 0; EV_KEEPUDATA; EV_CLEAR on USER knotes; invalid
 * combinations; USER triggers with NOTE_FFAND/OR/COPY) with 0-4 event slots
 * (receipts, error records, "no room" results), pipe writes and reads,
 * closing either end, reopening, and zero-timeout waits.
 *
 * What the model checks exactly:
 *  - every kevent() return value, errno, and every EV_ERROR/receipt record
 *    (ident, filter, flags, fflags, data, udata, ext);
 *  - every returned event record: it must belong to a live knote that must
 *    or may be reported now, with exactly the expected flags (stored flags
 *    plus EV_EOF), fflags, data (bytes buffered, free space, EV_EOF with data
 *    0 for a pipe without reader, USER stored bits and data) and udata;
 *  - a call that returns fewer records than asked for must have returned
 *    every knote that must be reported (level knotes whose condition holds,
 *    EV_CLEAR/EV_DISPATCH knotes with an activation pending, triggered USER
 *    knotes);
 *  - EV_CLEAR / EV_DISPATCH / EV_ONESHOT bookkeeping after each delivery.
 * Where FreeBSD's pipes report activations Linux cannot see (a read
 * re-activating an EV_CLEAR knote, any pipe traffic re-activating
 * WRITE|EV_CLEAR, one-shot records copied without re-validation), the model
 * allows the record but does not require it.
 *
 * The same code runs without libFuzzer through fuzz/replay.c, which replays
 * the committed corpus in ctest.  KQ_FUZZ_TOLERATE (environment, off by
 * default) lets fuzzing go on past known libkq defects (fuzz/crashes/README):
 * "clear-dup" accepts a repeated EV_CLEAR record of an activation already
 * delivered, "eof-mix" a pipe record whose data is that of a state of the
 * pipe since the last delivery but whose EV_EOF may be wrong (an EV_CLEAR
 * knote may then report the current state later), "poll-empty" a zero-timeout call that leaves out knotes that
 * must be reported (they must come within the next calls).
 * KQ_FUZZ_TRACE=1 prints every operation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/event.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NP        3        /* pipes */
#define NU        3        /* EVFILT_USER idents 1..NU */
#define TIMER_ID  2
#define NEVER_FD  700      /* a descriptor number that is never open */
#define LEVEL_CAP 16384    /* bytes a pipe may hold: keeps WRITE ready */
#define MAXK      40
#define HIST      24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ */
/* input and trace                                                      */

static const uint8_t *in_p;
static size_t in_n;

static bool more(void)
{
	return in_n > 0;
}

static unsigned next(void)
{
	if (!in_n)
		return 0;
	in_n--;
	return *in_p++;
}

#define TRACE_LINES 48
static char trace_buf[TRACE_LINES][160];
static unsigned trace_pos;
static bool trace_all;   /* KQ_FUZZ_TRACE=1: print every operation */

static void trace(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(trace_buf[trace_pos % TRACE_LINES], sizeof trace_buf[0], fmt, ap);
	va_end(ap);
	if (trace_all)
		fprintf(stderr, "  %s\n", trace_buf[trace_pos % TRACE_LINES]);
	trace_pos++;
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kq_ops: model mismatch: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nlast operations:\n");
	unsigned first = trace_pos > TRACE_LINES ? trace_pos - TRACE_LINES : 0;
	for (unsigned i = first; i < trace_pos; i++)
		fprintf(stderr, "  %s\n", trace_buf[i % TRACE_LINES]);
	abort();
}

static const char *fname(short f)
{
	switch (f) {
	case EVFILT_READ:  return "READ";
	case EVFILT_WRITE: return "WRITE";
	case EVFILT_USER:  return "USER";
	case EVFILT_TIMER: return "TIMER";
	default:           return "?";
	}
}

static void fmt_ev(char *b, size_t n, const struct kevent *e)
{
	snprintf(b, n, "{%" PRIuPTR ", %s, flags 0x%x, fflags 0x%x, data %" PRId64 ", udata %p}",
		 e->ident, fname(e->filter), e->flags, e->fflags, e->data, e->udata);
}

/* ------------------------------------------------------------------ */
/* the model                                                            */

struct fpipe {
	int rfd, wfd;        /* -1 when closed */
	int lastr, lastw;    /* numbers they had, for EBADF cases */
	int level, cap;
	bool reof, weof;     /* writer gone / reader gone */
};

struct mk {
	bool used;
	short filter;
	uintptr_t ident;
	uint16_t stflags;    /* stored flags, as returned */
	void *udata;
	bool en;
	/* EVFILT_USER */
	bool trig;
	uint32_t sff;
	int64_t sdata;
	/* activations (EV_CLEAR): must / may be reported */
	bool pend, may;
	/* EV_ONESHOT: activated since creation.  Pipe knotes: the (data,
	 * EV_EOF) values the filter computed since the last delivery (one-shot
	 * records are copied as last computed) */
	bool osact;
	int nh;
	bool hov;
	int64_t hd[HIST];
	bool he[HIST];
	/* EVFILT_TIMER */
	bool oneshot0, armed;
	/* KQ_FUZZ_TOLERATE=clear-dup: the last record, repeatable until the
	 * next activation */
	bool dup_ok;
	struct kevent last;
};

static int kq = -1;
static struct fpipe P[NP];
static struct mk K[MAXK];
static bool tol_cleardup, tol_eofmix, tol_pollempty;

#define ONESHOT_(f)  (((f) & EV_ONESHOT) != 0)
#define DISPATCH_(f) (!ONESHOT_(f) && ((f) & EV_DISPATCH))
#define CLEAR_(f)    (!ONESHOT_(f) && ((f) & EV_CLEAR))

static struct mk *find(short filter, uintptr_t ident)
{
	for (int i = 0; i < MAXK; i++)
		if (K[i].used && K[i].filter == filter && K[i].ident == ident)
			return &K[i];
	return NULL;
}

static bool isfd(short filter)
{
	return filter == EVFILT_READ || filter == EVFILT_WRITE;
}

/* Which pipe end the number is now, or -1. */
static int where(uintptr_t fd, int *end)
{
	for (int p = 0; p < NP; p++) {
		if (P[p].rfd >= 0 && (uintptr_t)P[p].rfd == fd) {
			*end = 0;
			return p;
		}
		if (P[p].wfd >= 0 && (uintptr_t)P[p].wfd == fd) {
			*end = 1;
			return p;
		}
	}
	return -1;
}

/* The filter's verdict now, with the data and EV_EOF it reports. */
static bool cond(const struct mk *k, int64_t *data, bool *eof)
{
	int end = -1, p;
	*data = 0;
	*eof = false;
	switch (k->filter) {
	case EVFILT_READ:
		p = where(k->ident, &end);
		if (p < 0 || end != 0)
			return false;
		*data = P[p].level;
		*eof = P[p].reof;
		return P[p].level > 0 || P[p].reof;
	case EVFILT_WRITE:
		p = where(k->ident, &end);
		if (p < 0 || end != 1)
			return false;
		*eof = P[p].weof;
		*data = P[p].weof ? 0 : P[p].cap - P[p].level;
		return P[p].weof || P[p].cap - P[p].level >= PIPE_BUF;
	case EVFILT_USER:
		*data = k->sdata;
		return k->trig;
	default:
		*data = 1;
		return false;   /* timers: "may" only (they fire asynchronously) */
	}
}

static void hist_add(struct mk *k)
{
	int64_t d;
	bool e;
	cond(k, &d, &e);
	for (int i = 0; i < k->nh; i++)
		if (k->hd[i] == d && k->he[i] == e)
			return;
	if (k->nh < HIST) {
		k->hd[k->nh] = d;
		k->he[k->nh] = e;
		k->nh++;
	} else {
		k->hov = true;
	}
}

/* FreeBSD's filter evaluation after a change or a KNOTE() from the object;
 * `must` says the activation is one libkq also sees (epoll edge,
 * re-evaluation), otherwise it is FreeBSD-only ("may"). */
static void activate(struct mk *k, bool must)
{
	int64_t d;
	bool e;
	bool ok = cond(k, &d, &e);
	if (isfd(k->filter))
		hist_add(k);
	if (ONESHOT_(k->stflags)) {
		if (ok)
			k->osact = true;
		return;
	}
	if (!ok)
		return;
	if (must)
		k->pend = true;
	else
		k->may = true;
	k->dup_ok = false;
}

enum { EVT_WRITE, EVT_READ, EVT_CLOSE_W, EVT_CLOSE_R };

/* A pipe's state changed: FreeBSD runs KNOTE() on the knote list shared by
 * the READ knotes of its read end and the WRITE knotes of its write end. */
static void pipe_event(int p, int evt)
{
	for (int i = 0; i < MAXK; i++) {
		struct mk *k = &K[i];
		if (!k->used || !isfd(k->filter))
			continue;
		bool rd = k->filter == EVFILT_READ && P[p].rfd >= 0 &&
			  k->ident == (uintptr_t)P[p].rfd;
		bool wr = k->filter == EVFILT_WRITE && P[p].wfd >= 0 &&
			  k->ident == (uintptr_t)P[p].wfd;
		if (!rd && !wr)
			continue;
		bool must = rd ? (evt == EVT_WRITE || evt == EVT_CLOSE_W)
			       : evt == EVT_CLOSE_R;
		activate(k, must);
	}
}

static void drop_fd(int fd)
{
	for (int i = 0; i < MAXK; i++)
		if (K[i].used && isfd(K[i].filter) && K[i].ident == (uintptr_t)fd)
			K[i].used = false;
}

/* The expected record of a knote reported now. */
static void expected(const struct mk *k, struct kevent *x)
{
	int64_t d;
	bool e;
	cond(k, &d, &e);
	EV_SET(x, k->ident, k->filter, k->stflags | (e ? EV_EOF : 0),
	       k->filter == EVFILT_USER ? k->sff : 0, d, k->udata);
	if (k->filter == EVFILT_TIMER)
		x->data = 1;
}

static bool must_report(const struct mk *k)
{
	int64_t d;
	bool e;
	if (!k->en || k->filter == EVFILT_TIMER)
		return false;
	bool ok = cond(k, &d, &e);
	if (ONESHOT_(k->stflags) || k->filter == EVFILT_USER || !CLEAR_(k->stflags))
		return ok;
	return ok && k->pend;
}

static bool same_ev(const struct kevent *a, const struct kevent *b)
{
	return a->ident == b->ident && a->filter == b->filter && a->flags == b->flags &&
	       a->fflags == b->fflags && a->data == b->data && a->udata == b->udata &&
	       !b->ext[0] && !b->ext[1] && !b->ext[2] && !b->ext[3];
}

/* Whether record r is one the knote may give now. */
static bool may_report(const struct mk *k, const struct kevent *r)
{
	struct kevent x;
	int64_t d;
	bool e;
	if (!k->en)
		return false;
	expected(k, &x);
	bool ok = cond(k, &d, &e);
	if (k->filter == EVFILT_TIMER)
		return k->armed && same_ev(&x, r);
	if (ONESHOT_(k->stflags)) {
		if (ok && same_ev(&x, r))
			return true;
		if (!k->osact)
			return false;
		if (k->filter == EVFILT_USER)
			return same_ev(&x, r);
		/* copied as last computed, without re-validation */
		if (r->ident != x.ident || r->filter != x.filter || r->fflags != 0 ||
		    r->udata != x.udata || (r->flags & ~EV_EOF) != k->stflags)
			return false;
		if (k->hov)
			return true;
		for (int i = 0; i < k->nh; i++)
			if (k->hd[i] == r->data && k->he[i] == ((r->flags & EV_EOF) != 0))
				return true;
		return false;
	}
	if (!ok || !same_ev(&x, r))
		return false;
	if (k->filter == EVFILT_USER || !CLEAR_(k->stflags))
		return true;
	return k->pend || k->may;
}

static void delivered(struct mk *k)
{
	k->last = (struct kevent){ 0 };
	k->nh = 0;
	k->hov = false;
	if (isfd(k->filter))
		hist_add(k);   /* the state reported now */
	if (ONESHOT_(k->stflags)) {
		k->used = false;
		return;
	}
	if (k->stflags & EV_CLEAR) {
		k->pend = k->may = false;
		if (k->filter == EVFILT_USER)
			k->trig = false;
	}
	if (k->stflags & EV_DISPATCH)
		k->en = false;
}

/* KQ_FUZZ_TOLERATE=eof-mix: a record of a pipe knote whose data is that of
 * a state since its last delivery (EV_EOF not checked). */
static bool stale_state(const struct mk *k, const struct kevent *r)
{
	if (!isfd(k->filter) || !k->en || r->udata != k->udata || r->fflags != 0 ||
	    (r->flags & ~EV_EOF) != k->stflags)
		return false;
	/* EV_EOF may come from another moment than the data */
	for (int i = 0; i < k->nh; i++)
		if (k->hd[i] == r->data)
			return true;
	return k->hov;
}

/* Checks the records of a scan of `nev` slots that returned n; returns how
 * many knotes that must be reported it left out although it had room (0
 * unless allowed). */
static int check_scan(const struct kevent *ev, int n, int nev, const char *what,
		      bool allow_missing)
{
	int missing = 0;
	bool hit[MAXK] = { false }, skip[8] = { false };
	char b[200];
	if (n < 0 || n > nev)
		fail("%s returned %d for %d slots", what, n, nev);
	for (int i = 0; i < n; i++) {
		fmt_ev(b, sizeof b, &ev[i]);
		trace("  -> %s", b);
		struct mk *k = find(ev[i].filter, ev[i].ident);
		if (!k)
			fail("%s: record %s of no live knote (phantom or stale)", what, b);
		int ki = (int)(k - K);
		if (hit[ki])
			fail("%s: knote reported twice in one call: %s", what, b);
		hit[ki] = true;
		if (!may_report(k, &ev[i])) {
			if (tol_cleardup && k->dup_ok && same_ev(&k->last, &ev[i]))
				continue;
			if (tol_eofmix && stale_state(k, &ev[i])) {
				skip[i] = true;
				continue;
			}
			struct kevent x;
			char bx[200];
			expected(k, &x);
			fmt_ev(bx, sizeof bx, &x);
			fail("%s: record %s not expected now (knote: enabled %d, pending %d, "
			     "may %d, triggered %d, one-shot activated %d; a record now would "
			     "be %s)", what, b, k->en, k->pend, k->may, k->trig, k->osact, bx);
		}
	}
	if (n < nev)
		for (int i = 0; i < MAXK; i++)
			if (K[i].used && !hit[i] && must_report(&K[i])) {
				struct kevent x;
				expected(&K[i], &x);
				fmt_ev(b, sizeof b, &x);
				if (allow_missing) {
					trace("  (left out: %s)", b);
					missing++;
					continue;
				}
				fail("%s returned %d of %d slots without the pending %s (lost)",
				     what, n, nev, b);
			}
	for (int i = 0; i < n; i++) {
		struct mk *k = find(ev[i].filter, ev[i].ident);
		if (!k)
			continue;
		bool clear_fd = isfd(k->filter) && CLEAR_(k->stflags);
		struct kevent keep = ev[i];
		delivered(k);
		if (clear_fd && k->used && i < 8 && skip[i]) {
			/* a stale state was reported: the current one may follow */
			k->may = true;
		} else if (clear_fd && k->used) {
			k->dup_ok = true;
			k->last = keep;
		}
	}
	return missing;
}

/* ------------------------------------------------------------------ */
/* one change, as FreeBSD's kqueue_register */

static int model_change(struct kevent *c)
{
	unsigned short fl = c->flags;
	if ((fl & (EV_ENABLE | EV_DISABLE)) == (EV_ENABLE | EV_DISABLE))
		return EINVAL;
	if ((fl & (EV_ADD | EV_KEEPUDATA)) == (EV_ADD | EV_KEEPUDATA))
		return EINVAL;
	int end = -1;
	if (isfd(c->filter) && where(c->ident, &end) < 0)
		return EBADF;
	struct mk *k = find(c->filter, c->ident);
	if (!k) {
		if (!(fl & EV_ADD))
			return ENOENT;
		/* a create echoes fflags and data 0, whatever happens next */
		uint32_t ff = c->fflags;
		int64_t data = c->data;
		c->fflags = 0;
		c->data = 0;
		if (c->filter == EVFILT_WRITE) {
			int p = where(c->ident, &end);
			if (end == 1 && P[p].weof)
				return EPIPE;
		}
		for (int i = 0; i < MAXK; i++)
			if (!K[i].used) {
				k = &K[i];
				break;
			}
		if (!k)
			fail("model: knote table full");
		memset(k, 0, sizeof *k);
		k->used = true;
		k->filter = c->filter;
		k->ident = c->ident;
		k->stflags = fl & ~(EV_ADD | EV_DELETE | EV_ENABLE | EV_DISABLE | EV_FORCEONESHOT);
		if (c->filter == EVFILT_TIMER) {
			k->stflags |= EV_CLEAR;   /* forced for relative timers */
			k->oneshot0 = (fl & EV_ONESHOT) && data == 0;
			k->armed = k->oneshot0;
		}
		k->udata = c->udata;
		k->en = !(fl & EV_DISABLE);
		if (c->filter == EVFILT_USER) {
			/* NOTE_TRIGGER and the control bits of a create are not
			 * stored (libkq's documented choice) */
			k->sff = ff & NOTE_FFLAGSMASK;
			k->sdata = data;
		}
		if (k->en)
			activate(k, true);
		return 0;
	}
	if (fl & EV_DELETE) {
		k->used = false;
		return 0;
	}
	if (fl & EV_ENABLE)
		k->en = true;
	else if (fl & EV_DISABLE)
		k->en = false;
	if (!(fl & EV_KEEPUDATA))
		k->udata = c->udata;
	if (c->filter == EVFILT_USER) {
		uint32_t bits = c->fflags & NOTE_FFLAGSMASK;
		if (c->fflags & NOTE_TRIGGER)
			k->trig = true;
		switch (c->fflags & NOTE_FFCTRLMASK) {
		case NOTE_FFAND:  k->sff &= bits; break;
		case NOTE_FFOR:   k->sff |= bits; break;
		case NOTE_FFCOPY: k->sff = bits; break;
		default:          break;
		}
		k->sdata = c->data;
		if (fl & EV_CLEAR)
			k->trig = false;
		c->fflags = bits;   /* the receipt echoes no control bits */
	}
	if (c->filter == EVFILT_TIMER && (fl & EV_ADD))
		k->armed = k->oneshot0;   /* a re-add restarts the timer */
	if (k->en)
		activate(k, true);
	return 0;
}

/* ------------------------------------------------------------------ */
/* a kevent() call: changes, then error/receipt records or a scan */

static void do_kevent(struct kevent *ch, int nch, int nev)
{
	struct kevent out[8], want[8], echo[3];
	char b[200], b2[200];
	int nrec = 0, expect_ret = INT_MIN, expect_err = 0;

	memcpy(echo, ch, sizeof *ch * (size_t)nch);
	for (int i = 0; i < nch; i++) {
		fmt_ev(b, sizeof b, &ch[i]);
		trace("change %s", b);
	}
	trace("kevent(%d changes, %d slots, zero timeout)", nch, nev);
	memset(out, 0xa5, sizeof out);
	struct timespec z = { 0, 0 };
	int r = kevent(kq, ch, nch, out, nev, &z);
	int err = errno;

	int room = nev;
	for (int i = 0; i < nch; i++) {
		int e = model_change(&echo[i]);
		if (e || (ch[i].flags & EV_RECEIPT)) {
			if (room == 0) {
				expect_ret = e ? -1 : 0;
				expect_err = e;
				break;
			}
			want[nrec] = echo[i];
			want[nrec].flags = EV_ERROR;
			want[nrec].data = e;
			nrec++;
			room--;
		}
	}
	if (expect_ret == INT_MIN && nrec > 0)
		expect_ret = nrec;
	if (expect_ret != INT_MIN) {
		if (r != expect_ret || (r == -1 && err != expect_err))
			fail("kevent() returned %d (errno %d), expected %d (errno %d)", r,
			     r == -1 ? err : 0, expect_ret, expect_err);
		for (int i = 0; i < nrec; i++) {
			fmt_ev(b, sizeof b, &out[i]);
			fmt_ev(b2, sizeof b2, &want[i]);
			trace("  -> %s", b);
			if (!same_ev(&want[i], &out[i]))
				fail("error/receipt record %d is %s, expected %s", i, b, b2);
		}
		return;
	}
	if (r < 0)
		fail("kevent() failed: %s", strerror(err));
	check_scan(out, r, nev, "kevent()", tol_pollempty);
}

/* ------------------------------------------------------------------ */
/* operations                                                           */

static const uint16_t types[8] = {
	0, EV_ONESHOT, EV_CLEAR, EV_DISPATCH, EV_DISPATCH | EV_CLEAR,
	EV_ONESHOT | EV_CLEAR, EV_ONESHOT | EV_DISPATCH, EV_CLEAR,
};

static uint32_t user_ff(void)
{
	static const uint32_t ctl[4] = { NOTE_FFNOP, NOTE_FFAND, NOTE_FFOR, NOTE_FFCOPY };
	unsigned f = next();
	uint32_t ff = ctl[f >> 6] | (f & 0x1f) | ((uint32_t)(next() & 0x0f) << 16);
	if (f & 0x20)
		ff |= NOTE_TRIGGER;
	return ff;
}

/* Fills one change from the input; false if it would name the wrong end of
 * a pipe or a descriptor that is not a pipe end (reused numbers), which the
 * model leaves out. */
static bool build_change(struct kevent *c, bool *timer_used)
{
	unsigned b = next();
	short filter = b % 4 == 0 ? EVFILT_READ : b % 4 == 1 ? EVFILT_WRITE :
		       b % 4 == 2 ? EVFILT_USER : EVFILT_TIMER;
	uintptr_t ident;
	unsigned pick = next();
	if (filter == EVFILT_READ || filter == EVFILT_WRITE) {
		unsigned p = pick % (NP + 1);
		int fd = p == NP ? NEVER_FD :
			 filter == EVFILT_READ ? (P[p].rfd >= 0 ? P[p].rfd : P[p].lastr)
					       : (P[p].wfd >= 0 ? P[p].wfd : P[p].lastw);
		if (fd < 0)
			fd = NEVER_FD;
		int end = -1;
		if (where((uintptr_t)fd, &end) >= 0) {
			if (end != (filter == EVFILT_READ ? 0 : 1))
				return false;
		} else if (fcntl(fd, F_GETFD) >= 0) {
			/* a closed pipe's number now used by something else
			 * (one of libkq's own descriptors, e.g. a timerfd) */
			return false;
		}
		ident = (uintptr_t)fd;
	} else if (filter == EVFILT_USER) {
		ident = 1 + pick % NU;
	} else {
		/* one TIMER change per call, so that the kind read below is
		 * the knote's when the change is applied */
		if (*timer_used)
			return false;
		*timer_used = true;
		ident = TIMER_ID;
	}

	unsigned a = next(), x = next();
	uint16_t type = types[(a >> 4) % 8];
	unsigned short fl;
	switch (a % 10) {
	case 0: case 1: fl = EV_ADD | type; break;
	case 2: fl = EV_DELETE; break;
	case 3: fl = EV_ENABLE; break;
	case 4: fl = EV_DISABLE; break;
	case 5: fl = 0; break;
	case 6: fl = EV_ADD | EV_DISABLE | type; break;
	case 7: fl = EV_ADD | EV_DELETE | type; break;
	case 8: fl = EV_ADD | EV_ENABLE | type; break;
	default: fl = (x & 0x40) ? (EV_ENABLE | EV_DISABLE) : (EV_ADD | EV_KEEPUDATA); break;
	}
	if (x & 1)
		fl |= EV_RECEIPT;
	if ((x & 2) && !(fl & EV_ADD))
		fl |= EV_KEEPUDATA;
	if ((x & 4) && !(fl & EV_ADD) && filter == EVFILT_USER)
		fl |= EV_CLEAR;   /* resets the triggered state */
	uint32_t ff = 0;
	int64_t data = 0;
	if (filter == EVFILT_USER) {
		ff = user_ff();
		data = (int64_t)next();
	} else if (filter == EVFILT_TIMER) {
		/* a timer keeps its kind: one-shot firing at once, or periodic
		 * with a period the run never reaches */
		struct mk *k = find(EVFILT_TIMER, TIMER_ID);
		bool os = k ? k->oneshot0 : (x & 8) != 0;
		if (fl & EV_ADD) {
			fl &= ~(EV_ONESHOT | EV_CLEAR | EV_DISPATCH);
			fl |= os ? EV_ONESHOT : (type & EV_DISPATCH);
		}
		data = os ? 0 : 3600000;
	}
	EV_SET(c, ident, filter, fl, ff, data, (void *)(uintptr_t)(0x100 + next()));
	return true;
}

static void op_changes(int nch)
{
	struct kevent ch[3];
	int n = 0;
	bool timer_used = false;
	for (int i = 0; i < nch; i++)
		if (build_change(&ch[n], &timer_used))
			n++;
	if (timer_used) {
		/* the first timer creates libkq's timerfd, which takes the
		 * lowest free number: a closed number named in the same call
		 * may be open by the time its change is applied */
		int m = 0;
		for (int i = 0; i < n; i++) {
			int end = -1;
			if (isfd(ch[i].filter) && where(ch[i].ident, &end) < 0)
				continue;
			ch[m++] = ch[i];
		}
		n = m;
	}
	int nev = (int)(next() % 5);
	if (n == 0 && nev == 0)
		return;
	do_kevent(ch, n, nev);
}

static void op_trigger(void)
{
	struct kevent c;
	unsigned x = next();
	unsigned short fl = (x & 1) ? EV_ENABLE : 0;
	if (x & 2)
		fl |= EV_KEEPUDATA;
	if (x & 4)
		fl |= EV_RECEIPT;
	EV_SET(&c, 1 + (x >> 4) % NU, EVFILT_USER, fl, user_ff() | NOTE_TRIGGER,
	       (int64_t)next(), (void *)(uintptr_t)(0x200 + next()));
	do_kevent(&c, 1, (int)(next() % 3));
}

static void op_wait(void)
{
	struct kevent ev[8];
	int nev = 1 + (int)(next() % 8);
	struct timespec z = { 0, 0 };
	trace("wait(%d)", nev);
	memset(ev, 0xa5, sizeof ev);
	int r = kevent(kq, NULL, 0, ev, nev, &z);
	if (r < 0)
		fail("wait: kevent() failed: %s", strerror(errno));
	check_scan(ev, r, nev, "wait", tol_pollempty);
}

static void op_write(void)
{
	static const char buf[4096];
	int p = (int)(next() % NP);
	size_t n = 1 + next() * 16 + next() % 16;
	if (P[p].wfd < 0)
		return;
	if (P[p].rfd >= 0 && P[p].level + (int)n > LEVEL_CAP)
		n = (size_t)(LEVEL_CAP - P[p].level);
	if (n == 0)
		return;
	if (n > sizeof buf)
		n = sizeof buf;
	trace("write(pipe %d = fd %d, %zu)", p, P[p].wfd, n);
	ssize_t r = write(P[p].wfd, buf, n);
	if (P[p].rfd < 0) {
		if (r != -1 || errno != EPIPE)
			fail("write to a pipe without reader returned %zd", r);
		return;
	}
	if (r != (ssize_t)n)
		fail("write(%zu) returned %zd (errno %d)", n, r, errno);
	P[p].level += (int)n;
	pipe_event(p, EVT_WRITE);
}

static void op_read(bool all)
{
	static char buf[LEVEL_CAP];
	int p = (int)(next() % NP);
	size_t n = all ? sizeof buf : 1 + next() * 17;
	if (P[p].rfd < 0)
		return;
	trace("read(pipe %d = fd %d, %zu)", p, P[p].rfd, n);
	ssize_t r = read(P[p].rfd, buf, n);
	if (P[p].level == 0 && !P[p].reof) {
		if (r != -1 || errno != EAGAIN)
			fail("read of an empty pipe returned %zd", r);
		return;
	}
	ssize_t want = (ssize_t)n < P[p].level ? (ssize_t)n : P[p].level;
	if (r != want)
		fail("read(%zu) of a pipe holding %d returned %zd", n, P[p].level, r);
	if (r > 0) {
		P[p].level -= (int)r;
		pipe_event(p, EVT_READ);
	}
}

static void close_end(int p, int end)
{
	int *fd = end == 0 ? &P[p].rfd : &P[p].wfd;
	if (*fd < 0)
		return;
	trace("close(pipe %d %s end = fd %d)", p, end ? "write" : "read", *fd);
	drop_fd(*fd);
	if (close(*fd) != 0)
		fail("close: %s", strerror(errno));
	if (end == 0)
		P[p].lastr = *fd;
	else
		P[p].lastw = *fd;
	*fd = -1;
	if (end == 0) {
		P[p].weof = true;
		pipe_event(p, EVT_CLOSE_R);
	} else {
		P[p].reof = true;
		pipe_event(p, EVT_CLOSE_W);
	}
}

static void open_pipe(int p)
{
	int fds[2];
	close_end(p, 0);
	close_end(p, 1);
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
		fail("pipe2: %s", strerror(errno));
	P[p].rfd = fds[0];
	P[p].wfd = fds[1];
	P[p].level = 0;
	P[p].reof = P[p].weof = false;
	P[p].cap = fcntl(fds[1], F_GETPIPE_SZ);
	if (P[p].cap < LEVEL_CAP + PIPE_BUF)
		fail("pipe capacity %d too small for the model", P[p].cap);
	trace("pipe %d = {%d, %d}", p, fds[0], fds[1]);
}

/* At the end: a one-shot timer that fired must be reported. */
static void final_checks(void)
{
	struct kevent ev[16];
	struct timespec z = { 0, 0 }, t = { 0, 10000000 };
	int r;
	for (int round = 0; round < 8; round++) {
		trace("final wait(16)");
		r = kevent(kq, NULL, 0, ev, 16, &z);
		if (r < 0)
			fail("final wait: %s", strerror(errno));
		if (!check_scan(ev, r, 16, "final wait", tol_pollempty && round < 7))
			break;
	}
	for (int tries = 0; tries < 300; tries++) {
		struct mk *k = find(EVFILT_TIMER, TIMER_ID);
		if (!k || !k->en || !k->armed)
			return;
		trace("wait(16, 10 ms) for the timer");
		r = kevent(kq, NULL, 0, ev, 16, &t);
		if (r < 0)
			fail("timer wait: %s", strerror(errno));
		check_scan(ev, r, 16, "timer wait", tol_pollempty);
	}
	fail("a one-shot timer of 0 ms was not reported within 3 s");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	if (!init) {
		init = true;
		signal(SIGPIPE, SIG_IGN);
		const char *t = getenv("KQ_FUZZ_TOLERATE");
		tol_cleardup = t && strstr(t, "clear-dup");
		tol_eofmix = t && strstr(t, "eof-mix");
		tol_pollempty = t && strstr(t, "poll-empty");
		t = getenv("KQ_FUZZ_TRACE");
		trace_all = t && *t && *t != '0';
	}
	in_p = data;
	in_n = size;
	trace_pos = 0;
	memset(K, 0, sizeof K);
	kq = kqueue();
	if (kq < 0)
		fail("kqueue: %s", strerror(errno));
	for (int p = 0; p < NP; p++) {
		P[p].rfd = P[p].wfd = -1;
		P[p].lastr = P[p].lastw = -1;
		open_pipe(p);
	}
	while (more()) {
		unsigned op = next() % 16;
		switch (op) {
		case 0: case 1: case 2: op_changes(1); break;
		case 3: op_changes(2 + (int)(next() % 2)); break;
		case 4: op_trigger(); break;
		case 5: case 6: op_write(); break;
		case 7: op_read(false); break;
		case 8: op_read(true); break;
		case 9: close_end((int)(next() % NP), (int)(next() % 2)); break;
		case 10: open_pipe((int)(next() % NP)); break;
		default: op_wait(); break;
		}
	}
	final_checks();
	for (int p = 0; p < NP; p++) {
		close_end(p, 0);
		close_end(p, 1);
	}
	close(kq);
	kq = -1;
	return 0;
}
