/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bound of the changes a signal handler leaves for the kevent() its
 * own thread was interrupted inside: 512 wait, in order; the rest of the
 * handler's changes fail with ENOMEM, each with its own EV_ERROR receipt,
 * and none of those is ever applied.
 *
 * A timer sends SIGALRM to the main thread every 100 us while it adds and
 * deletes a pipe's READ knote in kevent() calls.  Each handler run first
 * sends one change with EV_RECEIPT that enables a knote nobody added: an
 * ENOENT receipt means the kqueue was free and the call was made whole
 * (nothing more to do in that run); a receipt of 0 means the change was
 * queued (the interrupted call holds the kqueue).  The first run that is
 * queued then sends 600 NOTE_TRIGGER changes on EV_ONESHOT EVFILT_USER
 * knotes in one call: 511 must be queued behind the probe (receipt 0), 89
 * refused (receipt ENOMEM).  Then exactly the 511 come out, in the order
 * they were queued, with FreeBSD's fields.  Twice, on a new kqueue each
 * time.
 */
#include "t_storm.h"

#define FIRST  1000
#define BATCH  600
#define QUEUE  512          /* the documented bound */
#define PROBE  999          /* never added */

static int kq;
static struct kevent ch[BATCH], rec[BATCH];
static volatile sig_atomic_t done, got, direct, bad_probe;
static int nrec, probe_err;

static void on_alarm(int sig)
{
	(void)sig;
	int e = errno;
	t_watch_handled();
	if (done) {
		errno = e;
		return;
	}
	struct kevent p, r;
	EV_SET(&p, PROBE, EVFILT_USER, EV_ENABLE | EV_RECEIPT, 0, 0, NULL);
	int n = kevent(kq, &p, 1, &r, 1, NULL);
	if (n != 1 || r.ident != PROBE || r.flags != EV_ERROR ||
	    (r.data != 0 && r.data != ENOENT)) {
		bad_probe++;
		probe_err = n < 0 ? errno : (int)r.data;
	} else if (r.data == ENOENT) {
		direct++;
	} else {
		nrec = kevent(kq, ch, BATCH, rec, BATCH, NULL);
		got = nrec < 0 ? -errno : 1;
		done = 1;
	}
	errno = e;
}

/* The records of the queued triggers: in the order they were queued. */
static uintptr_t next;

static void take_in_order(const struct kevent *ev, int n)
{
	for (int i = 0; i < n; i++, next++) {
		if (ev[i].ident != next)
			T_FAIL("record of ident %lu, want ident %lu",
			       (unsigned long)ev[i].ident, (unsigned long)next);
		t_trigger_check(&ev[i], FIRST, FIRST + QUEUE - 1);
	}
}

/* One round on a fresh kqueue: the handler's batch, its receipts, then
 * the records of what it queued. */
static void round_on_new_kqueue(int q0)
{
	kq = t_kqueue();
	done = got = direct = 0;
	nrec = 0;
	for (int i = 0; i < BATCH; i++) {
		uintptr_t id = FIRST + (uintptr_t)i;
		t_change(kq, id, EVFILT_USER, EV_ADD | EV_ONESHOT, 0, 0, (void *)id);
		EV_SET(&ch[i], id, EVFILT_USER, EV_RECEIPT, NOTE_TRIGGER, 0, (void *)id);
	}
	sigset_t alrm;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	T_EQ(sigprocmask(SIG_UNBLOCK, &alrm, NULL), 0);
	struct t_storm st;
	t_storm_start(&st, SIGALRM, 100000);
	struct kevent two[2];
	t_watch_stage("kevent");
	while (!done && !t_storm_over(&st, 10000)) {
		EV_SET(&two[0], q0, EVFILT_READ, EV_ADD, 0, 0, NULL);
		EV_SET(&two[1], q0, EVFILT_READ, EV_DELETE, 0, 0, NULL);
		int n = kevent(kq, two, 2, NULL, 0, NULL);
		if (n != 0)
			T_FAIL("kevent() with changes: %d (%s)", n, strerror(errno));
		t_watch_tick();
	}
	t_storm_stop_quiet(&st);
	if (bad_probe)
		T_FAIL("%d probes went wrong (last: %s)", (int)bad_probe, strerror(probe_err));
	if (!done)
		T_SKIP("in 10 s no handler run found the kqueue held by the loop "
		       "it interrupted (%d found it free)", (int)direct);
	if (got < 0)
		T_FAIL("the handler's batch failed: %s", strerror(-got));
	T_EQ(nrec, BATCH);
	for (int i = 0; i < BATCH; i++) {
		const struct kevent *r = &rec[i];
		intptr_t want = i < QUEUE - 1 ? 0 : ENOMEM;
		if (r->ident != FIRST + (uintptr_t)i || r->filter != EVFILT_USER ||
		    r->flags != EV_ERROR || r->fflags != NOTE_TRIGGER ||
		    r->data != want || r->udata != (void *)r->ident)
			T_FAIL("receipt %d: {ident=%lu filter=%d flags=0x%x fflags=0x%x "
			       "data=%lld udata=%p}, want data %ld", i,
			       (unsigned long)r->ident, r->filter, r->flags, r->fflags,
			       (long long)r->data, r->udata, (long)want);
	}
	/* the interrupted call applied the queue before it returned */
	next = FIRST;
	t_drain(kq, take_in_order);
	T_EQ(next, FIRST + QUEUE - 1);
	T_EQ(close(kq), 0);
}

int main(void)
{
	t_watch_start("kevent-handler-queue-bound: a handler's changes beyond "
		      "the queue's bound fail with ENOMEM", 2000, 30000);
	int q[2];
	T_ASSERT(pipe(q) == 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	T_ASSERT(sigaction(SIGALRM, &sa, NULL) == 0);
	/* the second kqueue may be the first one's object again, with the
	 * queue that object kept: it must start empty */
	round_on_new_kqueue(q[0]);
	round_on_new_kqueue(q[0]);
	t_watch_done();
	return 0;
}
