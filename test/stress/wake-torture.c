/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wake-up torture: hunts lost wake-ups, i.e. a thread asleep in kevent()
 * with no timeout that is not woken although a record is due to it.
 *
 * A run is a sequence of scenarios (the seed picks their order and
 * parameters), each lasting a few hundred milliseconds to a few seconds:
 *   one      one kqueue, 1, 2 or 8 waiters, mutators, maybe workers
 *   multi    several kqueues, each with its own waiters
 *   nested   an inner kqueue registered (EVFILT_READ) in an outer one; the
 *            waiters sleep on the outer one and drain the inner one with
 *            zero-timeout calls when it reports
 *   poller   nng's shape: one poll thread asleep with no timeout hands
 *            every dispatched descriptor to a worker thread, which does the
 *            I/O and re-arms it (EV_ENABLE|EV_DISPATCH) from its own thread,
 *            while mutators add, delete, trigger and write concurrently
 *   churn    a closer thread closes kqueues under sleeping waiters and
 *            makes new ones
 * In half the scenarios a mover thread also dup2()s onto the numbers libkq
 * holds for itself, which moves libkq's descriptors under the sleepers.
 * Waiters always sleep with a NULL timeout.  Some put their re-arms into
 * their own next kevent() call (changelist and wait in one call, as
 * libevent does).  Every scenario ends by closing its kqueues while the
 * waiters sleep in them.
 *
 * Watched objects are pipes, AF_UNIX stream socketpairs, UDP sockets on
 * 127.0.0.1 (READ and WRITE watches) and EVFILT_USER idents.  Each object
 * has a mutex; every operation on it (a change, a write, a read, a close,
 * the handling of a record) is made under it, so the harness's belief about
 * the knote is exact except for records in flight.  A record's udata names
 * the object, the watch, the object's generation (bumped by each close) and
 * the registration (bumped by each EV_ADD).
 *
 * The oracle.  A watch is "due" when it is registered, enabled (for
 * EV_DISPATCH: re-enabled since its last record; for EV_ONESHOT: re-added),
 * not handed to a worker, and:
 *   READ   the descriptor has unread data (FIONREAD).  Every record is
 *          handled by draining the descriptor to EAGAIN under the object's
 *          mutex, so data still there afterwards arrived after the last
 *          record, or the knote was (re-)enabled or added since: FreeBSD
 *          reports it, level or EV_CLEAR alike.
 *   WRITE  (EV_DISPATCH or EV_ONESHOT only) the socket is writable.
 *   USER   a trigger not covered by a record: triggers carry a sequence
 *          number with NOTE_FFCOPY, so a record's fflags say which triggers
 *          it covers.  A trigger made while the knote is disabled is due
 *          once it is enabled (FreeBSD).
 * A watchdog samples every object every 20 ms; a watch that stays due,
 * with no record for it meanwhile, for longer than the bound fails the run.
 * Closing a kqueue must make every thread asleep in kevent() on it return
 * within the bound.  A record of an object generation closed, or of a
 * registration deleted, before the kevent() call that returned it began is
 * a phantom, and fails the run too.  On a failure the seed, the scenario,
 * the object's state and the operations that led there (a global log of
 * the last 65536 operations, stamped by one counter) are printed.
 *
 * Usage: wake-torture [seed]
 *   KQ_TORTURE_SEED     the seed (also the first argument)
 *   KQ_TORTURE_BOUND_MS how long a due record may be late (default 1000;
 *                       3000 in sanitizer builds)
 *   KQ_TORTURE_SCENARIO run only this scenario kind (one, multi, nested,
 *                       poller, churn)
 *   KQ_STRESS_SECONDS   duration bound (default 20)
 *   KQ_STRESS_OPS       operation bound (default 10^7); whichever first
 *   KQ_TORTURE_HOLD=1   on a failure, report and then stay (for a debugger)
 * Exit 0 pass, 1 fail, 77 skip.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/event.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer's close() interceptor marks the number closed before it
 * calls into libkq's close(), which only then takes the kqueue locks to
 * remove the number's knotes; a concurrent kevent() that queried the
 * descriptor under those locks therefore looks unordered with the close.
 * The ordering is libkq's to keep and TSan cannot see it: ignore reports
 * whose stack holds one of this program's closes (they touch nothing else
 * that is shared). */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
	return "race:obj_close_fds\nrace:kq_close_checked\n";
}
#endif

#define MAX_OBJ    48
#define MAX_KQ     3
#define MAX_THR    24
#define NEV        32
#define LOG_BITS   16
#define LOG_SIZE   (1u << LOG_BITS)
#define USER_BASE  100000
#define NEST_IDX   0xff
#define SEQ_MASK   0xffffffu
#define PIPE_CAP   2048      /* bytes a stream object may hold unread */
#define DGRAM_CAP  16        /* datagrams a UDP object may hold */
#define SAMPLE_NS  20000000  /* the watchdog's period */

/* ------------------------------------------------------------------ */
/* configuration, clock, random numbers                                */

static int cfg_seconds = 20;
static long long cfg_ops = 10000000;
static int64_t cfg_bound_ns;
static uint64_t cfg_seed;
static int cfg_only = -1;
static bool cfg_hold;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

struct rng { uint64_t s; };

static uint64_t rnd(struct rng *r)
{
	/* splitmix64: any seed, including 0, gives a good sequence */
	uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static unsigned rn(struct rng *r, unsigned n)
{
	return (unsigned)((rnd(r) >> 16) % n);
}

static bool chance(struct rng *r, unsigned pct)
{
	return rn(r, 100) < pct;
}

/* ------------------------------------------------------------------ */
/* the operation log                                                   */

enum op {
	OP_WRITE, OP_READ, OP_ADD, OP_DEL, OP_EN, OP_DIS, OP_REARM, OP_TRIG,
	OP_CLOSE, OP_OPEN, OP_REC, OP_DRAIN, OP_HREARM, OP_HAND, OP_WREARM,
	OP_INFL, OP_CALL, OP_RET, OP_NEST, OP_NESTARM, OP_KQCLOSE, OP_KQCLOSED,
	OP_KQNEW, OP_DUE, OP_ERRREC, OP_STALE, OP_BEGIN, OP_MOVE, OP_NOP
};

static const char *const op_name[] = {
	"write", "read", "add", "delete", "enable", "disable", "rearm", "trigger",
	"close", "open", "record", "drain", "handler-rearm", "hand-off",
	"worker-rearm", "queue-in-call", "kevent-enter", "kevent-return",
	"inner-drain", "inner-rearm", "kq-close", "kq-closed", "kq-new",
	"due", "error-record", "stale-record", "call-begin", "dup2-onto-libkq", "mark"
};

/* Stamps order every logged event: one counter, so that "returned
 * before that call began" is a comparison of two stamps. */
static _Atomic uint64_t g_clock = 1;

struct logent {
	_Atomic uint64_t seq;   /* written last */
	_Atomic int64_t ns;
	_Atomic uint64_t a;     /* thread | op | object | watch | gen */
	_Atomic uint64_t b;     /* two arguments */
};

static struct logent g_log[LOG_SIZE];
static int64_t g_t0;

static uint64_t lg(int thr, int op, int obj, int w, uint32_t gen, int64_t x, int64_t y)
{
	uint64_t s = atomic_fetch_add(&g_clock, 1);
	struct logent *e = &g_log[s & (LOG_SIZE - 1)];
	atomic_store_explicit(&e->ns, now_ns(), memory_order_relaxed);
	atomic_store_explicit(&e->a, (uint64_t)(uint8_t)thr << 56 | (uint64_t)(uint8_t)op << 48 |
			      (uint64_t)(uint8_t)obj << 40 | (uint64_t)(uint8_t)w << 32 | gen,
			      memory_order_relaxed);
	atomic_store_explicit(&e->b, (uint64_t)(uint32_t)x << 32 | (uint32_t)y,
			      memory_order_relaxed);
	atomic_store_explicit(&e->seq, s, memory_order_release);
	return s;
}

static const char *kind_name(int k);
static const char *wname(int obj, int w);

static void print_ent(uint64_t s, const struct logent *e)
{
	uint64_t a = atomic_load_explicit(&e->a, memory_order_relaxed);
	uint64_t b = atomic_load_explicit(&e->b, memory_order_relaxed);
	int64_t ns = atomic_load_explicit(&e->ns, memory_order_relaxed);
	int thr = (int)(int8_t)(a >> 56), op = (int)(a >> 48) & 0xff;
	int obj = (int)(a >> 40) & 0xff, w = (int)(a >> 32) & 0xff;
	int32_t x = (int32_t)(b >> 32), y = (int32_t)b;
	char who[16];
	if (thr == -1)
		snprintf(who, sizeof who, "main");
	else if (thr == -2)
		snprintf(who, sizeof who, "dog");
	else
		snprintf(who, sizeof who, "t%d", thr);
	fprintf(stderr, "    #%-9" PRIu64 " %10.6f %-5s %-14s", s, (double)(ns - g_t0) / 1e9,
		who, op <= OP_NOP ? op_name[op] : "?");
	if (obj == NEST_IDX)
		fprintf(stderr, " inner-kq");
	else if (obj != 0xfe)
		fprintf(stderr, " obj %d %s gen %u", obj, wname(obj, w), (unsigned)(a & 0xffffffff));
	fprintf(stderr, " [%d %d]\n", x, y);
}

/* The last `max` entries (all when obj < 0, else those naming obj; by
 * thread when thr >= 0), oldest first. */
static void dump_log(int obj, int thr, int max)
{
	uint64_t end = atomic_load(&g_clock);
	uint64_t pick[256];
	int n = 0;
	if (max > 256)
		max = 256;
	for (uint64_t s = end; s-- > 1 && end - s <= LOG_SIZE && n < max;) {
		struct logent *e = &g_log[s & (LOG_SIZE - 1)];
		if (atomic_load_explicit(&e->seq, memory_order_acquire) != s)
			continue;
		uint64_t a = atomic_load_explicit(&e->a, memory_order_relaxed);
		if (obj >= 0 && (int)((a >> 40) & 0xff) != obj)
			continue;
		if (thr >= 0 && (int)(int8_t)(a >> 56) != thr)
			continue;
		pick[n++] = s;
	}
	while (n-- > 0)
		print_ent(pick[n], &g_log[pick[n] & (LOG_SIZE - 1)]);
}

/* ------------------------------------------------------------------ */
/* objects                                                             */

enum kind { K_PIPE, K_STREAM, K_UDP, K_USER, K_N };
enum { W_MAIN, W_WRITE, NW };   /* W_MAIN: READ, or USER */

struct watch {
	short filter;
	bool reg, en;
	unsigned short mflags;   /* EV_CLEAR / EV_DISPATCH / EV_ONESHOT */
	uint32_t rver;           /* registration: bumped by every EV_ADD */
	int held;                /* in the worker queue */
	int inflight;            /* a re-arm in a waiter's own pending call */
	uint32_t tseq, cseq;     /* USER: last trigger made / covered */
	uint64_t recs;
	int64_t last_rec_ns;
	int64_t due_since;       /* watchdog: first sample found due, or 0 */
	uint64_t due_recs;
	uint32_t del_rver;       /* the last registration deleted, and when */
	uint64_t del_stamp;
};

struct obj {
	pthread_mutex_t mu;
	int idx, kind, kqi;
	bool nng;                /* poller scenario: its READ is the polled one */
	bool open;
	int rfd, wfd;
	uint32_t gen;
	int queued;              /* bytes (stream) or datagrams (UDP) unread */
	struct watch w[NW];
	uint32_t cgen[8];        /* generations closed, and when close() returned */
	uint64_t cstamp[8];
	int busy;                /* watchdog rounds that found the mutex taken */
};

static struct obj g_obj[MAX_OBJ];
static _Atomic int g_nobj;

static const char *kind_name(int k)
{
	static const char *const n[] = { "pipe", "stream", "udp", "user" };
	return k >= 0 && k < K_N ? n[k] : "?";
}

static const char *wname(int obj, int w)
{
	(void)obj;
	return w == W_WRITE ? "WRITE" : "READ/USER";
}

static const char *mode_name(unsigned short f)
{
	static char buf[4][48];
	static _Atomic unsigned k;
	char *b = buf[atomic_fetch_add(&k, 1) & 3];
	snprintf(b, 48, "%s%s%s%s", f ? "" : "level", (f & EV_CLEAR) ? "EV_CLEAR " : "",
		 (f & EV_DISPATCH) ? "EV_DISPATCH " : "", (f & EV_ONESHOT) ? "EV_ONESHOT " : "");
	return b;
}

static void *ud_make(int idx, int w, uint32_t gen, uint32_t rver)
{
	return (void *)(uintptr_t)((uint64_t)(uint8_t)idx << 56 | (uint64_t)(w & 1) << 55 |
				   (uint64_t)(gen & 0x7fffff) << 32 | rver);
}

/* ------------------------------------------------------------------ */
/* scenarios, kqueues, threads                                         */

enum sc_kind { SC_ONE, SC_MULTI, SC_NESTED, SC_POLLER, SC_CHURN, SC_N };
static const char *const sc_name[] = { "one", "multi", "nested", "poller", "churn" };

enum role { R_WAITER, R_MUTATOR, R_WORKER, R_CLOSER, R_MOVER };

/* Mutator operation weights */
enum mop { M_WRITE, M_READ, M_ADD, M_DEL, M_EN, M_DIS, M_REARM, M_TRIG, M_CLOSE, M_N };

struct scen {
	int kind, num;
	uint64_t seed;
	int nkq, nwait, nmut, nwork, nobj, ms;
	bool evstyle;            /* waiters queue re-arms into their own call */
	unsigned short nest;     /* EV_DISPATCH or 0: the inner kqueue's knote */
	unsigned wt[M_N];
	unsigned p_now, p_hand, p_later, p_infl;   /* after a dispatch/oneshot record */
	int churn_ms;
	bool mover;              /* a thread dup2()s onto libkq's own numbers */
};

struct kqslot {
	_Atomic int fd;          /* -1 while closed */
	_Atomic unsigned epoch;  /* bumped by each close */
};

struct thr {
	pthread_t th;
	int id, role, kqi;
	struct rng r;
	_Atomic uint64_t call;   /* stamp taken before a sleeping kevent(), 0 outside */
	_Atomic int64_t busy_ns; /* when a kevent() that must not sleep began, or 0 */
	_Atomic uint64_t busy_stamp;
	long long ops, recs, calls, wakes;
	/* re-arms for the waiter's own next call */
	struct kevent ch[NEV];
	int chobj[NEV], chw[NEV];
	int nch;
	unsigned ch_epoch;
};

static struct scen g_sc;
static pthread_mutex_t g_sclock = PTHREAD_MUTEX_INITIALIZER;   /* g_sc, g_checking */
static bool g_checking;
static struct kqslot g_kq[MAX_KQ];
static struct thr g_thr[MAX_THR];
static int g_nthr;
static _Atomic int g_stop_mut;    /* mutators, workers, closer: leave */
static _Atomic int g_stop;        /* waiters: leave once the kqueue is closed */
static _Atomic int g_failed;
static _Atomic int g_hush, g_hushed;   /* mutators pause for a quiet check */
static _Atomic long long g_ops_total;
static _Atomic int64_t g_sc_t0;
static pthread_mutex_t g_nest_mu = PTHREAD_MUTEX_INITIALIZER;

/* the worker queue: watches (obj * NW + w) handed over by a record */
static pthread_mutex_t g_wq_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wq_cv = PTHREAD_COND_INITIALIZER;
static int g_wq[MAX_OBJ * NW + 1];
static int g_wq_head, g_wq_tail;

/* per scenario kind: what a run did */
struct stats {
	int runs;
	double secs;
	long long ops, recs, due_met, close_wakes, calls, kq_closes, quiet, quiet_met;
};
static struct stats g_st[SC_N];
static _Atomic long long g_due_met, g_close_wakes, g_kq_closes;

/* ------------------------------------------------------------------ */
/* failure reports                                                     */

static void fail_begin(void)
{
	if (atomic_exchange(&g_failed, 1)) {
		for (;;)
			pause();   /* someone else is reporting; it exits */
	}
	fflush(stdout);
}

static void print_scenario(void)
{
	const struct scen *s = &g_sc;
	int64_t t = now_ns();
	fprintf(stderr, "  seed %" PRIu64 " (KQ_TORTURE_SEED=%" PRIu64 "), scenario #%d \"%s\" "
		"(scenario seed %" PRIu64 "): %d kqueue(s), %d waiter(s), %d mutator(s), "
		"%d worker(s), %d objects, %s%s%s; %.3f s into the run, %.3f s into the "
		"scenario\n", cfg_seed, cfg_seed, s->num, sc_name[s->kind], s->seed, s->nkq,
		s->nwait, s->nmut, s->nwork, s->nobj, s->evstyle ? "re-arms in the waiter's call" :
		"re-arms in separate calls", s->kind == SC_NESTED ?
		(s->nest ? ", inner kqueue EV_DISPATCH" : ", inner kqueue level") : "",
		s->mover ? ", dup2() onto libkq's numbers" : "",
		(double)(t - g_t0) / 1e9, (double)(t - atomic_load(&g_sc_t0)) / 1e9);
}

static void print_threads(void)
{
	static const char *const rn_[] = { "waiter", "mutator", "worker", "closer", "mover" };
	uint64_t now = atomic_load(&g_clock);
	for (int i = 0; i < g_nthr; i++) {
		struct thr *t = &g_thr[i];
		uint64_t c = atomic_load(&t->call);
		fprintf(stderr, "  t%d %s", t->id, rn_[t->role]);
		if (t->role == R_WAITER)
			fprintf(stderr, " on kq %d: %s", t->kqi, c ? "inside kevent(NULL timeout)" :
				"not in kevent()");
		if (c)
			fprintf(stderr, " since stamp #%" PRIu64 " (%" PRIu64 " stamps ago)", c,
				now - c);
		int64_t b = atomic_load(&t->busy_ns);
		if (b)
			fprintf(stderr, " inside a kevent() that must not sleep for %.3f s, since "
				"stamp #%" PRIu64, (double)(now_ns() - b) / 1e9,
				(uint64_t)atomic_load(&t->busy_stamp));
		fprintf(stderr, "\n");
	}
}

static void print_watch(const struct obj *o, int w)
{
	const struct watch *x = &o->w[w];
	int64_t t = now_ns();
	fprintf(stderr, "  object %d (%s, fds %d/%d, gen %u, kq %d%s) watch %s: %s%s, %s, "
		"%s, held %d, in flight %d, registration %u, %llu records",
		o->idx, kind_name(o->kind), o->rfd, o->wfd, o->gen, o->kqi,
		o->nng ? ", polled" : "", x->filter == EVFILT_READ ? "EVFILT_READ" :
		x->filter == EVFILT_WRITE ? "EVFILT_WRITE" : "EVFILT_USER",
		x->reg ? "registered " : "not registered", x->reg ? mode_name(x->mflags) : "",
		x->en ? "enabled" : "disabled", x->held ? "held" : "not held", x->held,
		x->inflight, x->rver, (unsigned long long)x->recs);
	if (x->last_rec_ns)
		fprintf(stderr, ", last record %.3f s ago", (double)(t - x->last_rec_ns) / 1e9);
	if (x->filter == EVFILT_USER)
		fprintf(stderr, ", trigger seq %u, covered %u", x->tseq, x->cseq);
	else if (o->open) {
		int n = -1;
		ioctl(o->rfd, FIONREAD, &n);
		struct pollfd p = { o->rfd, POLLIN | POLLOUT, 0 };
		poll(&p, 1, 0);
		fprintf(stderr, ", FIONREAD %d, poll 0x%x, queued %d", n, p.revents, o->queued);
	}
	if (x->due_since)
		fprintf(stderr, ", due for %.3f s", (double)(t - x->due_since) / 1e9);
	fprintf(stderr, "\n");
}

static _Noreturn void fail_exit(void)
{
	fprintf(stderr, "wake-torture: FAIL (seed %" PRIu64 ")\n", cfg_seed);
	fflush(stderr);
	if (cfg_hold) {
		fprintf(stderr, "wake-torture: pid %d kept for a debugger (KQ_TORTURE_HOLD)\n",
			(int)getpid());
		for (;;)
			pause();
	}
	_exit(1);
}

/* ------------------------------------------------------------------ */
/* changes and descriptor work, all under the object's mutex           */

static int kq_fd(int kqi)
{
	return atomic_load(&g_kq[kqi].fd);
}

static uintptr_t ident_of(const struct obj *o)
{
	return o->kind == K_USER ? (uintptr_t)(USER_BASE + o->idx) : (uintptr_t)o->rfd;
}

static void change_of(struct kevent *ch, const struct obj *o, int w, unsigned short flags,
		      unsigned fflags)
{
	EV_SET(ch, ident_of(o), o->w[w].filter, flags, fflags, 0,
	       ud_make(o->idx, w, o->gen, o->w[w].rver));
}

/* A kevent() that must not sleep (changes only, or a zero timeout) is
 * watched: one that does not return within the bound is a thread stuck in
 * libkq, e.g. waiting for a consumer that was never woken. */
static void busy_begin(struct thr *t, int obj, int w, uint32_t gen, int op, int arg)
{
	if (t->role == R_CLOSER || t->id >= MAX_THR - 1)
		return;
	atomic_store(&t->busy_stamp, lg(t->id, OP_BEGIN, obj, w, gen, op, arg));
	atomic_store(&t->busy_ns, now_ns());
}

static void busy_end(struct thr *t)
{
	atomic_store(&t->busy_ns, 0);
}

/* One change on the object's kqueue; 0 or the errno. */
static int wchange(struct thr *t, struct obj *o, int w, int op, unsigned short flags,
		   unsigned fflags)
{
	struct kevent ch;
	int fd = kq_fd(o->kqi);
	if (fd < 0)
		return EBADF;
	change_of(&ch, o, w, flags, fflags);
	busy_begin(t, o->idx, w, o->gen, op, flags);
	int err = kevent(fd, &ch, 1, NULL, 0, NULL) < 0 ? errno : 0;
	busy_end(t);
	lg(t->id, op, o->idx, w, o->gen, flags, err);
	t->ops++;
	return err;
}

static _Noreturn void bad_errno(struct thr *t, struct obj *o, int w, const char *what,
				int err)
{
	fail_begin();
	fprintf(stderr, "wake-torture: FAIL: %s on object %d watch %d by t%d failed: %s\n", what,
		o->idx, w, t->id, strerror(err));
	print_scenario();
	print_watch(o, w);
	fprintf(stderr, "  last 64 operations on the object:\n");
	dump_log(o->idx, -1, 64);
	fail_exit();
}

/* Applies the outcome of a change whose errno is err: a knote libkq no
 * longer has (a one-shot that fired, a kqueue closed) is not registered. */
static bool change_ok(struct thr *t, struct obj *o, int w, const char *what, int err)
{
	if (!err)
		return true;
	if (err == ENOENT || err == EBADF) {
		o->w[w].reg = false;
		return false;
	}
	bad_errno(t, o, w, what, err);
}

static int drain(struct thr *t, struct obj *o)
{
	char buf[4096];
	int total = 0;
	if (!o->open || o->kind == K_USER)
		return 0;
	for (;;) {
		ssize_t r = o->kind == K_UDP ? recv(o->rfd, buf, sizeof buf, 0) :
			    read(o->rfd, buf, sizeof buf);
		if (r > 0) {
			total += (int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	o->queued = 0;
	lg(t->id, OP_DRAIN, o->idx, 0, o->gen, total, 0);
	t->ops++;
	return total;
}

static void obj_close_fds(struct thr *t, struct obj *o)
{
	if (!o->open)
		return;
	lg(t ? t->id : -1, OP_CLOSE, o->idx, 0, o->gen, o->rfd, o->wfd);
	close(o->rfd);
	if (o->wfd >= 0)
		close(o->wfd);
	uint64_t s = lg(t ? t->id : -1, OP_NOP, o->idx, 0, o->gen, 0, 0);
	o->cgen[o->gen & 7] = o->gen;
	o->cstamp[o->gen & 7] = s;
	o->open = false;
	o->rfd = o->wfd = -1;
	o->gen++;
	for (int w = 0; w < NW; w++) {
		o->w[w].reg = false;
		o->w[w].due_since = 0;
	}
}

static void die(const char *what)
{
	fail_begin();
	fprintf(stderr, "wake-torture: FAIL: %s: %s\n", what, strerror(errno));
	fail_exit();
}

static void obj_open(struct thr *t, struct obj *o)
{
	int p[2];
	o->queued = 0;
	switch (o->kind) {
	case K_PIPE:
		if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
			die("pipe2");
		o->rfd = p[0];
		o->wfd = p[1];
		break;
	case K_STREAM:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, p) != 0)
			die("socketpair");
		o->rfd = p[0];
		o->wfd = p[1];
		break;
	case K_UDP: {
		struct sockaddr_in sin;
		socklen_t len = sizeof sin;
		memset(&sin, 0, sizeof sin);
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		o->rfd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		o->wfd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (o->rfd < 0 || o->wfd < 0)
			die("socket(AF_INET, SOCK_DGRAM)");
		if (bind(o->rfd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
		    getsockname(o->rfd, (struct sockaddr *)&sin, &len) != 0 ||
		    connect(o->wfd, (struct sockaddr *)&sin, sizeof sin) != 0)
			die("bind/connect on 127.0.0.1");
		break;
	}
	default:
		o->rfd = o->wfd = -1;
		break;
	}
	o->open = o->kind != K_USER;
	if (o->open)
		lg(t ? t->id : -1, OP_OPEN, o->idx, 0, o->gen, o->rfd, o->wfd);
}

static unsigned short pick_mode(struct rng *r, const struct obj *o, int w)
{
	if (o->w[w].filter == EVFILT_WRITE || o->nng)
		return chance(r, 80) ? EV_DISPATCH : EV_ONESHOT;
	if (o->kind == K_USER) {
		static const unsigned short m[] = { EV_CLEAR, EV_CLEAR | EV_DISPATCH, EV_ONESHOT };
		return m[rn(r, 3)];
	}
	static const unsigned short m[] = { 0, EV_CLEAR, EV_DISPATCH, EV_DISPATCH | EV_CLEAR,
					    EV_ONESHOT };
	return m[rn(r, 5)];
}

static void do_add(struct thr *t, struct obj *o, int w, bool disabled)
{
	struct watch *x = &o->w[w];
	x->mflags = pick_mode(&t->r, o, w);
	x->rver++;
	x->reg = true;
	x->en = !disabled;
	x->due_since = 0;
	if (x->filter == EVFILT_USER)
		x->cseq = x->tseq;   /* a new knote: nothing pending */
	int err = wchange(t, o, w, OP_ADD, EV_ADD | x->mflags | (disabled ? EV_DISABLE : 0), 0);
	if (err == EBADF) {
		x->reg = false;
		return;
	}
	if (err)
		bad_errno(t, o, w, "EV_ADD", err);
}

static void do_delete(struct thr *t, struct obj *o, int w)
{
	struct watch *x = &o->w[w];
	int err = wchange(t, o, w, OP_DEL, EV_DELETE, 0);
	x->reg = false;
	x->del_rver = x->rver;
	x->del_stamp = lg(t->id, OP_NOP, o->idx, w, o->gen, 0, 0);
	if (err && err != ENOENT && err != EBADF)
		bad_errno(t, o, w, "EV_DELETE", err);
}

/* A dispatched knote's EV_ENABLE, or a fired one-shot's re-add. */
static void do_rearm(struct thr *t, struct obj *o, int w, int op)
{
	struct watch *x = &o->w[w];
	if (x->mflags & EV_ONESHOT) {
		x->rver++;
		x->reg = true;
		x->en = true;
		if (x->filter == EVFILT_USER)
			x->cseq = x->tseq;
		int err = wchange(t, o, w, op, EV_ADD | x->mflags, 0);
		if (err == EBADF)
			x->reg = false;
		else if (err)
			bad_errno(t, o, w, "EV_ADD|EV_ONESHOT", err);
		return;
	}
	x->en = true;
	change_ok(t, o, w, "EV_ENABLE|EV_DISPATCH", wchange(t, o, w, op, EV_ENABLE | EV_DISPATCH, 0));
}

static bool rearmable(const struct watch *x)
{
	if (x->mflags & EV_ONESHOT)
		return !x->reg;
	return x->reg && !x->en && (x->mflags & EV_DISPATCH);
}

static void do_write(struct thr *t, struct obj *o)
{
	char buf[64];
	if (!o->open)
		return;
	size_t n = 1 + rn(&t->r, sizeof buf);
	if (o->queued >= (o->kind == K_UDP ? DGRAM_CAP : PIPE_CAP))
		return;
	memset(buf, 'a' + (int)(n % 26), n);
	ssize_t r = o->kind == K_UDP ? send(o->wfd, buf, n, 0) : write(o->wfd, buf, n);
	if (r > 0)
		o->queued += o->kind == K_UDP ? 1 : (int)r;
	lg(t->id, OP_WRITE, o->idx, 0, o->gen, (int)r, o->queued);
	t->ops++;
}

static void do_read(struct thr *t, struct obj *o)
{
	char buf[64];
	if (!o->open)
		return;
	size_t n = 1 + rn(&t->r, sizeof buf);
	ssize_t r = o->kind == K_UDP ? recv(o->rfd, buf, n, 0) : read(o->rfd, buf, n);
	if (r > 0)
		o->queued -= o->kind == K_UDP ? 1 : (int)r;
	if (o->queued < 0 || (r < 0 && errno == EAGAIN))
		o->queued = 0;
	lg(t->id, OP_READ, o->idx, 0, o->gen, (int)r, o->queued);
	t->ops++;
}

static void do_trigger(struct thr *t, struct obj *o)
{
	struct watch *x = &o->w[W_MAIN];
	uint32_t s = (x->tseq + 1) & SEQ_MASK;
	int err = wchange(t, o, W_MAIN, OP_TRIG, 0, NOTE_TRIGGER | NOTE_FFCOPY | s);
	if (change_ok(t, o, W_MAIN, "NOTE_TRIGGER", err))
		x->tseq = s;
}

/* ------------------------------------------------------------------ */
/* records                                                             */

static void phantom(struct thr *t, struct obj *o, int w, const struct kevent *e,
		    uint64_t call_stamp, const char *why, uint64_t end_stamp)
{
	fail_begin();
	fprintf(stderr, "wake-torture: FAIL: phantom record: %s ended at stamp #%" PRIu64
		", before the kevent() call that returned the record began (#%" PRIu64 "); "
		"record {ident %" PRIuPTR ", filter %d, flags 0x%x, fflags 0x%x, data %" PRId64
		", udata %p} to t%d\n", why, end_stamp, call_stamp, e->ident, e->filter,
		e->flags, e->fflags, e->data, e->udata, t->id);
	print_scenario();
	print_watch(o, w);
	fprintf(stderr, "  last 64 operations on object %d:\n", o->idx);
	dump_log(o->idx, -1, 64);
	fprintf(stderr, "  last 64 operations:\n");
	dump_log(-1, -1, 64);
	fail_exit();
}

static void queue_work(int key)
{
	pthread_mutex_lock(&g_wq_mu);
	g_wq[g_wq_tail] = key;
	g_wq_tail = (g_wq_tail + 1) % (MAX_OBJ * NW + 1);
	pthread_cond_signal(&g_wq_cv);
	pthread_mutex_unlock(&g_wq_mu);
}

static void nest_drain(struct thr *t);

/* One record returned by a kevent() call that began at call_stamp. */
static void on_record(struct thr *t, const struct kevent *e, uint64_t call_stamp)
{
	uint64_t ud = (uint64_t)(uintptr_t)e->udata;
	int idx = (int)(ud >> 56), w = (int)(ud >> 55) & 1;
	uint32_t gen = (uint32_t)(ud >> 32) & 0x7fffff, rver = (uint32_t)ud;
	t->recs++;
	if (idx == NEST_IDX) {
		lg(t->id, OP_REC, NEST_IDX, 0, 0, e->flags, (int)e->data);
		nest_drain(t);
		return;
	}
	if (idx >= atomic_load(&g_nobj)) {
		fail_begin();
		fprintf(stderr, "wake-torture: FAIL: record with unknown udata %p (ident %" PRIuPTR
			", filter %d, flags 0x%x)\n", e->udata, e->ident, e->filter, e->flags);
		print_scenario();
		fail_exit();
	}
	struct obj *o = &g_obj[idx];
	pthread_mutex_lock(&o->mu);
	struct watch *x = &o->w[w];
	if (e->flags & EV_ERROR) {
		/* a change of this waiter's own call that failed */
		lg(t->id, OP_ERRREC, idx, w, gen, (int)e->data, 0);
		if (gen == (o->gen & 0x7fffff) && rver == x->rver)
			change_ok(t, o, w, "a change in the waiter's call", (int)e->data);
		pthread_mutex_unlock(&o->mu);
		return;
	}
	lg(t->id, OP_REC, idx, w, gen, e->flags, (int)(e->filter == EVFILT_USER ? e->fflags :
							   (unsigned)e->data));
	if (gen != (o->gen & 0x7fffff)) {
		int k = gen & 7;
		if (o->cgen[k] == gen && o->cstamp[k] < call_stamp)
			phantom(t, o, w, e, call_stamp, "its descriptor's close()", o->cstamp[k]);
		lg(t->id, OP_STALE, idx, w, gen, 0, 0);
		pthread_mutex_unlock(&o->mu);
		return;
	}
	if (rver != x->rver) {
		if (rver == x->del_rver && x->del_stamp < call_stamp)
			phantom(t, o, w, e, call_stamp, "its knote's EV_DELETE", x->del_stamp);
		lg(t->id, OP_STALE, idx, w, gen, (int)rver, (int)x->rver);
		pthread_mutex_unlock(&o->mu);
		return;
	}
	if (e->filter != x->filter || e->ident != ident_of(o)) {
		fail_begin();
		fprintf(stderr, "wake-torture: FAIL: record {ident %" PRIuPTR ", filter %d} carries "
			"the udata of object %d's watch %d (ident %" PRIuPTR ", filter %d)\n",
			e->ident, e->filter, idx, w, ident_of(o), x->filter);
		print_scenario();
		fail_exit();
	}
	if (x->due_since)
		atomic_fetch_add_explicit(&g_due_met, 1, memory_order_relaxed);
	x->recs++;
	x->last_rec_ns = now_ns();
	x->due_since = 0;
	if (x->filter == EVFILT_USER) {
		uint32_t s = e->fflags & SEQ_MASK;
		if (((x->tseq - s) & SEQ_MASK) >= (SEQ_MASK >> 1)) {
			fail_begin();
			fprintf(stderr, "wake-torture: FAIL: EVFILT_USER record with fflags %u, but the "
				"last trigger made was %u\n", s, x->tseq);
			print_scenario();
			print_watch(o, w);
			dump_log(idx, -1, 64);
			fail_exit();
		}
		if (((s - x->cseq) & SEQ_MASK) < (SEQ_MASK >> 1))
			x->cseq = s;
	}
	if (x->mflags & EV_ONESHOT)
		x->reg = false;
	else if (x->mflags & EV_DISPATCH)
		x->en = false;
	if (x->held) {
		/* the worker that has it drains after this */
		pthread_mutex_unlock(&o->mu);
		return;
	}
	if (w == W_MAIN)
		drain(t, o);
	if (x->mflags & (EV_ONESHOT | EV_DISPATCH)) {
		const struct scen *s = &g_sc;
		unsigned p = rn(&t->r, s->p_now + s->p_hand + s->p_later + s->p_infl);
		if (o->nng && w == W_MAIN && s->nwork)
			p = s->p_now;   /* the poll thread hands it to a worker */
		if (p < s->p_now) {
			if (o->nng && w == W_MAIN && s->nwork) {
				x->held++;
				lg(t->id, OP_HAND, idx, w, o->gen, 0, 0);
				queue_work(idx * NW + w);
			} else {
				do_rearm(t, o, w, OP_HREARM);
			}
		} else if (p < s->p_now + s->p_hand && s->nwork) {
			x->held++;
			lg(t->id, OP_HAND, idx, w, o->gen, 0, 0);
			queue_work(idx * NW + w);
		} else if (p >= s->p_now + s->p_hand + s->p_later && t->role == R_WAITER &&
			   o->kqi == t->kqi && t->nch < NEV / 2 &&
			   (t->nch == 0 || t->ch_epoch == atomic_load(&g_kq[t->kqi].epoch))) {
			/* in the waiter's next call: registered and enabled
			 * from now on, as far as the oracle is concerned */
			if (x->mflags & EV_ONESHOT) {
				x->rver++;
				x->reg = true;
				if (x->filter == EVFILT_USER)
					x->cseq = x->tseq;
				change_of(&t->ch[t->nch], o, w, EV_ADD | x->mflags, 0);
			} else {
				change_of(&t->ch[t->nch], o, w, EV_ENABLE | EV_DISPATCH, 0);
			}
			x->en = true;
			x->inflight++;
			if (t->nch == 0)
				t->ch_epoch = atomic_load(&g_kq[t->kqi].epoch);
			t->chobj[t->nch] = idx;
			t->chw[t->nch++] = w;
			lg(t->id, OP_INFL, idx, w, o->gen, 0, 0);
		}
		/* else: left disarmed, a mutator re-arms it */
	}
	pthread_mutex_unlock(&o->mu);
}

/* The inner kqueue reported: take all it has, without waiting. */
static void nest_drain(struct thr *t)
{
	static const struct timespec zero = { 0, 0 };
	struct kevent ev[NEV];
	int ifd = kq_fd(1);
	if (ifd < 0)
		return;
	for (int round = 0; round < 64; round++) {
		uint64_t cs = lg(t->id, OP_NOP, NEST_IDX, 0, 0, 0, 0);
		busy_begin(t, NEST_IDX, 0, 0, OP_NEST, 0);
		int n = kevent(ifd, NULL, 0, ev, NEV, &zero);
		busy_end(t);
		lg(t->id, OP_NEST, NEST_IDX, 0, 0, n, n < 0 ? errno : 0);
		t->ops++;
		if (n < 0)
			return;
		for (int i = 0; i < n; i++)
			on_record(t, &ev[i], cs);
		if (n < NEV)
			break;
	}
	if (g_sc.nest & EV_DISPATCH) {
		struct kevent ch;
		int ofd = kq_fd(0);
		pthread_mutex_lock(&g_nest_mu);
		EV_SET(&ch, (uintptr_t)ifd, EVFILT_READ, EV_ENABLE | EV_DISPATCH, 0, 0,
		       ud_make(NEST_IDX, 0, 0, 0));
		busy_begin(t, NEST_IDX, 0, 0, OP_NESTARM, 0);
		int r = ofd >= 0 ? kevent(ofd, &ch, 1, NULL, 0, NULL) : 0;
		busy_end(t);
		lg(t->id, OP_NESTARM, NEST_IDX, 0, 0, r, r < 0 ? errno : 0);
		pthread_mutex_unlock(&g_nest_mu);
	}
}

/* ------------------------------------------------------------------ */
/* threads                                                             */

static void flush_pending(struct thr *t)
{
	for (int i = 0; i < t->nch; i++) {
		struct obj *o = &g_obj[t->chobj[i]];
		pthread_mutex_lock(&o->mu);
		o->w[t->chw[i]].inflight--;
		pthread_mutex_unlock(&o->mu);
	}
	t->nch = 0;
}

static void *waiter_main(void *arg)
{
	struct thr *t = arg;
	struct kevent ev[NEV];
	int nev = 1 + (int)rn(&t->r, NEV);
	long long last = 0;
	for (;;) {
		uint64_t cs = lg(t->id, OP_CALL, 0xfe, 0, 0, t->nch, t->kqi);
		atomic_store(&t->call, cs);
		int fd = kq_fd(t->kqi);
		if (fd < 0 || (t->nch && t->ch_epoch != atomic_load(&g_kq[t->kqi].epoch))) {
			atomic_store(&t->call, 0);
			flush_pending(t);
			if (fd < 0) {
				if (atomic_load(&g_stop))
					break;
				sleep_ns(100000);
			}
			continue;
		}
		int n = kevent(fd, t->ch, t->nch, ev, nev, NULL);
		int err = n < 0 ? errno : 0;
		atomic_store(&t->call, 0);
		lg(t->id, OP_RET, 0xfe, 0, 0, n, err);
		t->calls++;
		flush_pending(t);
		if (n < 0) {
			if (err != EBADF && err != EINTR) {
				errno = err;
				die("kevent(wait)");
			}
			if (err == EBADF && atomic_load(&g_stop))
				break;
			continue;
		}
		for (int i = 0; i < n; i++)
			on_record(t, &ev[i], cs);
		t->ops++;
		if (t->ops - last >= 16) {
			atomic_fetch_add_explicit(&g_ops_total, t->ops - last, memory_order_relaxed);
			last = t->ops;
		}
	}
	atomic_fetch_add_explicit(&g_ops_total, t->ops - last, memory_order_relaxed);
	return NULL;
}

static void *worker_main(void *arg)
{
	struct thr *t = arg;
	long long last = 0;
	for (;;) {
		pthread_mutex_lock(&g_wq_mu);
		while (g_wq_head == g_wq_tail && !atomic_load(&g_stop_mut))
			pthread_cond_wait(&g_wq_cv, &g_wq_mu);
		if (g_wq_head == g_wq_tail) {
			pthread_mutex_unlock(&g_wq_mu);
			atomic_fetch_add_explicit(&g_ops_total, t->ops - last, memory_order_relaxed);
			break;
		}
		int key = g_wq[g_wq_head];
		g_wq_head = (g_wq_head + 1) % (MAX_OBJ * NW + 1);
		pthread_mutex_unlock(&g_wq_mu);
		if (chance(&t->r, 30))
			sched_yield();   /* a worker's I/O takes a while */
		struct obj *o = &g_obj[key / NW];
		int w = key % NW;
		pthread_mutex_lock(&o->mu);
		struct watch *x = &o->w[w];
		if (w == W_MAIN)
			drain(t, o);
		if (rearmable(x))
			do_rearm(t, o, w, OP_WREARM);
		x->held--;
		pthread_mutex_unlock(&o->mu);
		if (t->ops - last >= 16) {
			atomic_fetch_add_explicit(&g_ops_total, t->ops - last, memory_order_relaxed);
			last = t->ops;
		}
	}
	return NULL;
}

static bool busy(const struct obj *o)
{
	for (int w = 0; w < NW; w++)
		if (o->w[w].held || o->w[w].inflight)
			return true;
	return false;
}

static void mutate(struct thr *t, struct obj *o)
{
	const struct scen *s = &g_sc;
	unsigned sum = 0, p;
	for (int i = 0; i < M_N; i++)
		sum += s->wt[i];
	p = rn(&t->r, sum);
	int op = 0;
	while (p >= s->wt[op])
		p -= s->wt[op++];
	int w = (o->kind == K_STREAM || o->kind == K_UDP) && chance(&t->r, 35) ? W_WRITE : W_MAIN;
	struct watch *x = &o->w[w];
	bool skip = busy(o);
	if (o->kind == K_USER && (op == M_WRITE || op == M_READ))
		op = M_TRIG;
	if (o->kind != K_USER && op == M_TRIG)
		op = M_WRITE;
	switch (op) {
	case M_WRITE:
		do_write(t, o);
		break;
	case M_READ:
		do_read(t, o);
		break;
	case M_TRIG:
		if (!skip && x->reg)
			do_trigger(t, o);
		break;
	case M_ADD:
		if (!skip && !x->reg)
			do_add(t, o, w, chance(&t->r, 15));
		break;
	case M_DEL:
		if (!skip && x->reg && !o->nng)
			do_delete(t, o, w);
		break;
	case M_EN:
		if (!skip && x->reg && !x->en) {
			x->en = true;
			change_ok(t, o, w, "EV_ENABLE", wchange(t, o, w, OP_EN, EV_ENABLE, 0));
		}
		break;
	case M_DIS:
		if (!skip && x->reg && x->en && !o->nng) {
			x->en = false;
			change_ok(t, o, w, "EV_DISABLE", wchange(t, o, w, OP_DIS, EV_DISABLE, 0));
		}
		break;
	case M_REARM:
		if (!skip && rearmable(x))
			do_rearm(t, o, w, OP_REARM);
		else if (!skip && !x->reg && o->nng)
			do_add(t, o, w, false);
		break;
	case M_CLOSE:
		if (!skip && o->kind != K_USER) {
			obj_close_fds(t, o);
			obj_open(t, o);
			t->ops++;
		}
		break;
	}
}

static void *mutator_main(void *arg)
{
	struct thr *t = arg;
	int nobj = atomic_load(&g_nobj);
	long long last = 0;
	while (!atomic_load_explicit(&g_stop_mut, memory_order_relaxed)) {
		if (atomic_load_explicit(&g_hush, memory_order_relaxed)) {
			atomic_fetch_add(&g_hushed, 1);
			while (atomic_load(&g_hush) && !atomic_load(&g_stop_mut))
				sleep_ns(50000);
			atomic_fetch_sub(&g_hushed, 1);
		}
		struct obj *o = &g_obj[rn(&t->r, (unsigned)nobj)];
		pthread_mutex_lock(&o->mu);
		mutate(t, o);
		pthread_mutex_unlock(&o->mu);
		if (t->ops - last >= 64) {
			atomic_fetch_add_explicit(&g_ops_total, t->ops - last, memory_order_relaxed);
			last = t->ops;
		}
		if (chance(&t->r, 2))
			sched_yield();
	}
	atomic_fetch_add_explicit(&g_ops_total, t->ops - last, memory_order_relaxed);
	return NULL;
}

/*
 * Closes kqueue k while its waiters sleep in it, and fails the run unless
 * every waiter that was inside kevent() then leaves it within the bound.
 * Objects of k lose their knotes with it.  Locks every object of k so no
 * change is made to the number meanwhile.
 */
static void kq_close_checked(struct thr *t, int k)
{
	int nobj = atomic_load(&g_nobj), tid = t ? t->id : -1;
	for (int i = 0; i < nobj; i++)
		if (g_obj[i].kqi == k)
			pthread_mutex_lock(&g_obj[i].mu);
	int fd = atomic_exchange(&g_kq[k].fd, -1);
	atomic_fetch_add(&g_kq[k].epoch, 1);
	lg(tid, OP_KQCLOSE, 0xfe, 0, 0, k, fd);
	if (fd >= 0 && close(fd) != 0)
		die("close(kqueue)");
	uint64_t cs = lg(tid, OP_KQCLOSED, 0xfe, 0, 0, k, fd);
	for (int i = 0; i < nobj; i++) {
		if (g_obj[i].kqi != k)
			continue;
		for (int w = 0; w < NW; w++) {
			if (g_obj[i].w[w].reg) {
				g_obj[i].w[w].del_rver = g_obj[i].w[w].rver;
				g_obj[i].w[w].del_stamp = cs;
			}
			g_obj[i].w[w].reg = false;
			g_obj[i].w[w].due_since = 0;
		}
		pthread_mutex_unlock(&g_obj[i].mu);
	}
	atomic_fetch_add(&g_kq_closes, 1);
	int64_t deadline = now_ns() + cfg_bound_ns;
	for (int i = 0; i < g_nthr; i++) {
		struct thr *w = &g_thr[i];
		if (w->role != R_WAITER || w->kqi != k)
			continue;
		uint64_t c;
		bool was = false;
		while ((c = atomic_load(&w->call)) != 0 && c < cs) {
			was = true;
			if (now_ns() > deadline) {
				fail_begin();
				fprintf(stderr, "wake-torture: FAIL: lost wake-up at close(): kqueue %d "
					"(fd %d) was closed at stamp #%" PRIu64 ", but waiter t%d, "
					"inside kevent() with no timeout since stamp #%" PRIu64 ", "
					"has not returned after %.3f s\n", k, fd, cs, w->id, c,
					(double)cfg_bound_ns / 1e9);
				print_scenario();
				print_threads();
				fprintf(stderr, "  last 32 operations of t%d:\n", w->id);
				dump_log(-1, w->id, 32);
				fprintf(stderr, "  last 64 operations:\n");
				dump_log(-1, -1, 64);
				fail_exit();
			}
			sleep_ns(200000);
		}
		if (was)
			atomic_fetch_add(&g_close_wakes, 1);
	}
}

static void kq_make(int k)
{
	int fd = kqueue();
	if (fd < 0)
		die("kqueue()");
	lg(-1, OP_KQNEW, 0xfe, 0, 0, k, fd);
	atomic_store(&g_kq[k].fd, fd);
}

static void *closer_main(void *arg)
{
	struct thr *t = arg;
	while (!atomic_load(&g_stop_mut)) {
		sleep_ns((int64_t)(g_sc.churn_ms / 2 + (int)rn(&t->r, (unsigned)g_sc.churn_ms)) *
			 1000000);
		if (atomic_load(&g_stop_mut))
			break;
		int k = (int)rn(&t->r, (unsigned)g_sc.nkq);
		kq_close_checked(t, k);
		t->ops++;
		if (chance(&t->r, 50))
			sleep_ns(rn(&t->r, 3000000));
		int fd = kqueue();
		if (fd < 0)
			die("kqueue()");
		lg(t->id, OP_KQNEW, 0xfe, 0, 0, k, fd);
		atomic_store(&g_kq[k].fd, fd);
	}
	return NULL;
}

/*
 * The mover: dup2() of /dev/null onto a number libkq holds for itself (an
 * epoll set, its waitset, the wake eventfd: high numbers, out of the
 * program's way), then close() of it as the program's own.  On FreeBSD
 * the number is free; libkq moves its descriptor to another number while
 * the waiters sleep, and nothing may be lost.
 */
static int g_move_floor;
static _Atomic long long g_moves, g_unmoved;

static int mover_pick(struct rng *r)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -1;
	int c[64], n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (fd < g_move_floor || fd == dirfd(d))
			continue;
		char path[64], l[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t k = readlink(path, l, sizeof l - 1);
		if (k <= 0)
			continue;
		l[k] = 0;
		if ((strstr(l, "eventpoll") || strstr(l, "eventfd") || strstr(l, "inotify")) &&
		    n < 64)
			c[n++] = fd;
	}
	closedir(d);
	return n ? c[rn(r, (unsigned)n)] : -1;
}

static void *mover_main(void *arg)
{
	struct thr *t = arg;
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0)
		die("/dev/null");
	while (!atomic_load(&g_stop_mut)) {
		sleep_ns(1000000 + (int64_t)rn(&t->r, 10000000));
		int h = mover_pick(&t->r);
		if (h < 0)
			continue;
		lg(t->id, OP_MOVE, 0xfe, 0, 0, h, null);
		/* the number may have been freed meanwhile (a kqueue closed):
		 * then it is a free number, and dup2() takes it all the same.
		 * EBUSY: a descriptor of a filter's, which does not move (the
		 * split WRITE set, the signal eventfd) */
		if (dup2(null, h) == h) {
			close(h);
			atomic_fetch_add(&g_moves, 1);
		} else if (errno == EBUSY) {
			atomic_fetch_add(&g_unmoved, 1);
		} else {
			die("dup2() onto a number libkq holds for itself");
		}
		t->ops++;
	}
	close(null);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* the watchdog                                                        */

static int64_t g_hard_deadline;

static bool due(struct obj *o, int w)
{
	struct watch *x = &o->w[w];
	if (!x->reg || !x->en || x->held)
		return false;
	if (x->filter == EVFILT_USER)
		return x->tseq != x->cseq;
	if (!o->open)
		return false;
	if (x->filter == EVFILT_READ) {
		int n = 0;
		return ioctl(o->rfd, FIONREAD, &n) == 0 && n > 0;
	}
	if (!(x->mflags & (EV_DISPATCH | EV_ONESHOT)))
		return false;
	struct pollfd p = { o->rfd, POLLOUT, 0 };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
}

static void lost(struct obj *o, int w, int64_t now, int64_t since, const char *how)
{
	fail_begin();
	fprintf(stderr, "wake-torture: FAIL: lost wake-up: object %d's %s watch has been due "
		"for %.3f s (bound %.3f s) with no record (%s)\n", o->idx,
		o->w[w].filter == EVFILT_WRITE ? "WRITE" : o->w[w].filter == EVFILT_READ ?
		"READ" : "USER", (double)(now - since) / 1e9,
		(double)cfg_bound_ns / 1e9, how);
	print_scenario();
	print_watch(o, w);
	print_threads();
	fprintf(stderr, "  last 64 operations on object %d:\n", o->idx);
	dump_log(o->idx, -1, 64);
	fprintf(stderr, "  last 64 operations:\n");
	dump_log(-1, -1, 64);
	fail_exit();
}

static void *watchdog_main(void *arg)
{
	(void)arg;
	for (;;) {
		sleep_ns(SAMPLE_NS);
		int64_t now = now_ns();
		if (now > g_hard_deadline) {
			fail_begin();
			fprintf(stderr, "wake-torture: FAIL: the run passed its hard deadline "
				"(a thread does not come back)\n");
			print_scenario();
			print_threads();
			dump_log(-1, -1, 64);
			fail_exit();
		}
		pthread_mutex_lock(&g_sclock);
		if (!g_checking) {
			pthread_mutex_unlock(&g_sclock);
			continue;
		}
		for (int i = 0; i < g_nthr; i++) {
			struct thr *t = &g_thr[i];
			int64_t b = atomic_load(&t->busy_ns);
			if (!b || now_ns() - b <= cfg_bound_ns)
				continue;
			fail_begin();
			fprintf(stderr, "wake-torture: FAIL: t%d has been inside a kevent() that must "
				"not sleep (a change, or a zero timeout) for %.3f s (bound %.3f s): "
				"libkq lost a wake-up it waits for\n", t->id,
				(double)(now_ns() - b) / 1e9, (double)cfg_bound_ns / 1e9);
			print_scenario();
			print_threads();
			fprintf(stderr, "  the call (stamp #%" PRIu64 ") and the last 32 operations of "
				"t%d:\n", (uint64_t)atomic_load(&t->busy_stamp), t->id);
			dump_log(-1, t->id, 32);
			fprintf(stderr, "  last 64 operations:\n");
			dump_log(-1, -1, 64);
			fail_exit();
		}
		int nobj = atomic_load(&g_nobj);
		for (int i = 0; i < nobj; i++) {
			struct obj *o = &g_obj[i];
			if (pthread_mutex_trylock(&o->mu) != 0) {
				/* a change or a handler holds it: never for long */
				if (++o->busy * (int64_t)SAMPLE_NS > 3 * cfg_bound_ns + 2000000000) {
					fail_begin();
					fprintf(stderr, "wake-torture: FAIL: object %d's mutex held for "
						"over %.1f s (an operation does not return)\n", i,
						(double)(o->busy * (int64_t)SAMPLE_NS) / 1e9);
					print_scenario();
					print_threads();
					dump_log(i, -1, 64);
					fail_exit();
				}
				continue;
			}
			o->busy = 0;
			now = now_ns();
			for (int w = 0; w < NW; w++) {
				struct watch *x = &o->w[w];
				if (!due(o, w)) {
					x->due_since = 0;
				} else if (!x->due_since || x->recs != x->due_recs) {
					x->due_since = now;
					x->due_recs = x->recs;
					lg(-2, OP_DUE, i, w, o->gen, 0, 0);
				} else if (now - x->due_since > cfg_bound_ns) {
					lost(o, w, now, x->due_since, "seen by the watchdog");
				}
			}
			pthread_mutex_unlock(&o->mu);
		}
		pthread_mutex_unlock(&g_sclock);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* running scenarios                                                   */

/*
 * Activity masks lost wake-ups: any later event wakes the sleeper, which
 * then also collects what it missed.  So the mutators pause now and then,
 * and every watch due at that moment must get its record (or stop being
 * due, e.g. a closed kqueue) within the bound.  Mostly this takes well
 * under a millisecond.
 */
static long long g_quiet_checks, g_quiet_met;

static void quiet_check(bool hush)
{
	static bool want[MAX_OBJ][NW];
	static uint64_t recs0[MAX_OBJ][NW];
	int nobj = atomic_load(&g_nobj), pending = 0;
	int64_t t0 = now_ns(), deadline = t0 + cfg_bound_ns;
	if (hush) {
		atomic_store(&g_hush, 1);
		while (atomic_load(&g_hushed) < g_sc.nmut && now_ns() < deadline)
			sleep_ns(20000);
	}
	lg(-1, OP_NOP, 0xfe, 0, 0, 1, 0);
	for (int i = 0; i < nobj; i++) {
		struct obj *o = &g_obj[i];
		pthread_mutex_lock(&o->mu);
		for (int w = 0; w < NW; w++) {
			want[i][w] = due(o, w);
			recs0[i][w] = o->w[w].recs;
			pending += want[i][w];
		}
		pthread_mutex_unlock(&o->mu);
	}
	int64_t t1 = now_ns();
	deadline = t1 + cfg_bound_ns;
	g_quiet_checks++;
	while (pending) {
		sleep_ns(100000);
		pending = 0;
		int64_t now = now_ns();
		for (int i = 0; i < nobj; i++) {
			struct obj *o = &g_obj[i];
			for (int w = 0; w < NW; w++) {
				if (!want[i][w])
					continue;
				pthread_mutex_lock(&o->mu);
				if (o->w[w].recs != recs0[i][w] || !due(o, w)) {
					want[i][w] = false;
					g_quiet_met++;
				} else if (now > deadline) {
					lost(o, w, now, t1, "a quiet check: the mutators were paused");
				} else {
					pending++;
				}
				pthread_mutex_unlock(&o->mu);
			}
		}
	}
	if (hush)
		atomic_store(&g_hush, 0);
}

static void plan(struct scen *s, struct rng *r, int kind, int num)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->num = num;
	s->seed = rnd(r);
	s->ms = 300 + (int)rn(r, 2700);
	s->nkq = 1;
	s->nmut = 2 + (int)rn(r, 2);
	s->nobj = 12 + (int)rn(r, 21);
	s->evstyle = chance(r, 50);
	static const int waiters[] = { 1, 2, 8 };
	s->nwait = waiters[rn(r, 3)];
	s->nwork = chance(r, 50) ? 2 : 0;
	s->p_now = 30;
	s->p_hand = 25;
	s->p_later = 20;
	s->p_infl = s->evstyle ? 40 : 0;
	unsigned wt[M_N] = { 30, 8, 10, 5, 10, 8, 12, 15, 1 };
	for (int i = 0; i < M_N; i++)
		s->wt[i] = wt[i] / 2 + rn(r, wt[i] + 1);
	switch (kind) {
	case SC_MULTI:
		s->nkq = 2 + (int)rn(r, 2);
		s->nwait = s->nkq * (1 + (int)rn(r, 2));
		break;
	case SC_NESTED:
		s->nkq = 2;
		s->nwait = 1 << rn(r, 3);
		s->nest = chance(r, 50) ? EV_DISPATCH : 0;
		break;
	case SC_POLLER:
		s->nwait = 1;
		s->nwork = 2 + (int)rn(r, 3);
		s->nmut = 2;
		s->nobj = 16 + (int)rn(r, 9);
		s->p_now = 40;
		s->p_hand = 40;
		s->p_later = 20;
		break;
	case SC_CHURN:
		s->nkq = 1 + (int)rn(r, 2);
		s->nwait = s->nkq * (1 << rn(r, 3));
		s->churn_ms = 5 + (int)rn(r, 60);
		break;
	}
	s->mover = g_move_floor > 0 && chance(r, 50);
	if (s->nwait + s->nmut + s->nwork + 2 > MAX_THR)
		s->nwait = MAX_THR - 2 - s->nmut - s->nwork;
}

static struct thr *new_thr(int role, int kqi, void *(*fn)(void *))
{
	struct thr *t = &g_thr[g_nthr];
	memset(t, 0, sizeof *t);
	t->id = g_nthr++;
	t->role = role;
	t->kqi = kqi;
	t->r.s = g_sc.seed ^ (UINT64_C(0x1234567) * (uint64_t)(t->id + 1));
	atomic_store(&t->call, 0);
	atomic_store(&t->busy_ns, 0);
	int err = pthread_create(&t->th, NULL, fn, t);
	if (err) {
		errno = err;
		die("pthread_create");
	}
	return t;
}

static void run_scenario(const struct scen *plan_)
{
	struct rng r = { plan_->seed };
	pthread_mutex_lock(&g_sclock);
	g_sc = *plan_;
	g_checking = false;
	pthread_mutex_unlock(&g_sclock);
	const struct scen *s = &g_sc;
	int64_t t0 = now_ns();
	atomic_store(&g_sc_t0, t0);
	long long ops0 = atomic_load(&g_ops_total);
	long long due0 = atomic_load(&g_due_met), cw0 = atomic_load(&g_close_wakes);
	long long kc0 = atomic_load(&g_kq_closes);
	long long q0 = g_quiet_checks, qm0 = g_quiet_met;
	atomic_store(&g_stop_mut, 0);
	atomic_store(&g_stop, 0);
	g_wq_head = g_wq_tail = 0;
	pthread_mutex_lock(&g_sclock);
	g_nthr = 0;
	pthread_mutex_unlock(&g_sclock);

	for (int k = 0; k < s->nkq; k++) {
		kq_make(k);
		atomic_store(&g_kq[k].epoch, 0);
	}
	/* the objects: a third polled by nng's pattern in the poller */
	for (int i = 0; i < s->nobj; i++) {
		struct obj *o = &g_obj[i];
		pthread_mutex_lock(&o->mu);
		uint32_t gen = o->gen + 1;
		memset(&o->w, 0, sizeof o->w);
		memset(o->cgen, 0xff, sizeof o->cgen);
		o->idx = i;
		o->gen = gen;
		o->busy = 0;
		o->kind = (int)rn(&r, K_N);
		o->nng = s->kind == SC_POLLER && i < s->nobj / 2;
		if (o->nng)
			o->kind = chance(&r, 50) ? K_STREAM : K_UDP;
		o->kqi = s->kind == SC_NESTED ? (chance(&r, 75) ? 1 : 0) : i % s->nkq;
		o->w[W_MAIN].filter = o->kind == K_USER ? EVFILT_USER : EVFILT_READ;
		o->w[W_WRITE].filter = EVFILT_WRITE;
		obj_open(NULL, o);
		pthread_mutex_unlock(&o->mu);
	}
	atomic_store(&g_nobj, s->nobj);
	if (s->kind == SC_NESTED) {
		struct kevent ch;
		EV_SET(&ch, (uintptr_t)kq_fd(1), EVFILT_READ, EV_ADD | s->nest, 0, 0,
		       ud_make(NEST_IDX, 0, 0, 0));
		if (kevent(kq_fd(0), &ch, 1, NULL, 0, NULL) != 0)
			die("registering the inner kqueue in the outer one");
	}
	/* initial registrations, made as a mutator would */
	struct thr boot;
	memset(&boot, 0, sizeof boot);
	boot.id = MAX_THR - 1;
	boot.r.s = rnd(&r);
	for (int i = 0; i < s->nobj; i++) {
		struct obj *o = &g_obj[i];
		pthread_mutex_lock(&o->mu);
		do_add(&boot, o, W_MAIN, false);
		if (o->nng && chance(&r, 60))
			do_add(&boot, o, W_WRITE, false);
		pthread_mutex_unlock(&o->mu);
	}

	pthread_mutex_lock(&g_sclock);
	for (int i = 0; i < s->nwait; i++)
		new_thr(R_WAITER, s->kind == SC_NESTED ? 0 : i % s->nkq, waiter_main);
	for (int i = 0; i < s->nmut; i++)
		new_thr(R_MUTATOR, 0, mutator_main);
	for (int i = 0; i < s->nwork; i++)
		new_thr(R_WORKER, 0, worker_main);
	if (s->kind == SC_CHURN)
		new_thr(R_CLOSER, 0, closer_main);
	if (s->mover)
		new_thr(R_MOVER, 0, mover_main);
	g_checking = true;
	pthread_mutex_unlock(&g_sclock);

	int64_t end = t0 + (int64_t)s->ms * 1000000;
	int64_t run_end = g_t0 + (int64_t)cfg_seconds * 1000000000;
	while (now_ns() < end && now_ns() < run_end && atomic_load(&g_ops_total) < cfg_ops) {
		sleep_ns(10000000 + (int64_t)rn(&r, 50000000));
		quiet_check(true);
	}

	/* wind down: the mutators first, then close the kqueues under the
	 * sleeping waiters */
	atomic_store(&g_stop_mut, 1);
	pthread_mutex_lock(&g_wq_mu);
	pthread_cond_broadcast(&g_wq_cv);
	pthread_mutex_unlock(&g_wq_mu);
	for (int i = 0; i < g_nthr; i++)
		if (g_thr[i].role != R_WAITER)
			pthread_join(g_thr[i].th, NULL);
	/* a last look: whatever is due now must still come */
	quiet_check(false);
	sleep_ns(2 * SAMPLE_NS);
	pthread_mutex_lock(&g_sclock);
	g_checking = false;
	pthread_mutex_unlock(&g_sclock);
	atomic_store(&g_stop, 1);
	for (int k = 0; k < s->nkq; k++)
		kq_close_checked(NULL, k);
	for (int i = 0; i < g_nthr; i++)
		if (g_thr[i].role == R_WAITER)
			pthread_join(g_thr[i].th, NULL);
	for (int i = 0; i < s->nobj; i++) {
		pthread_mutex_lock(&g_obj[i].mu);
		obj_close_fds(NULL, &g_obj[i]);
		pthread_mutex_unlock(&g_obj[i].mu);
	}

	struct stats *st = &g_st[s->kind];
	st->runs++;
	st->secs += (double)(now_ns() - t0) / 1e9;
	st->ops += atomic_load(&g_ops_total) - ops0;
	st->due_met += atomic_load(&g_due_met) - due0;
	st->close_wakes += atomic_load(&g_close_wakes) - cw0;
	st->kq_closes += atomic_load(&g_kq_closes) - kc0;
	st->quiet += g_quiet_checks - q0;
	st->quiet_met += g_quiet_met - qm0;
	for (int i = 0; i < g_nthr; i++) {
		st->recs += g_thr[i].recs;
		st->calls += g_thr[i].calls;
	}
}

static long long env_num(const char *name, long long def)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	long long n = strtoll(v, &end, 0);
	if (*end) {
		fprintf(stderr, "wake-torture: bad %s=%s\n", name, v);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	if (sizeof(void *) < 8) {
		fprintf(stderr, "SKIP: udata must hold 64 bits\n");
		return 77;
	}
	cfg_seconds = (int)env_num("KQ_STRESS_SECONDS", 20);
	cfg_ops = env_num("KQ_STRESS_OPS", 10000000);
#ifdef SANITIZED
	cfg_bound_ns = env_num("KQ_TORTURE_BOUND_MS", 3000) * 1000000;
#else
	cfg_bound_ns = env_num("KQ_TORTURE_BOUND_MS", 1000) * 1000000;
#endif
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	cfg_seed = (uint64_t)env_num("KQ_TORTURE_SEED",
				     (long long)(((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
						 (uint64_t)getpid()) & INT64_MAX);
	if (argc > 1)
		cfg_seed = strtoull(argv[1], NULL, 0);
	cfg_hold = env_num("KQ_TORTURE_HOLD", 0) != 0;
	const char *only = getenv("KQ_TORTURE_SCENARIO");
	if (only && *only) {
		for (int i = 0; i < SC_N; i++)
			if (strcmp(only, sc_name[i]) == 0)
				cfg_only = i;
		if (cfg_only < 0) {
			fprintf(stderr, "wake-torture: unknown scenario %s\n", only);
			return 2;
		}
	}
	if (cfg_seconds < 1 || cfg_ops < 1 || cfg_bound_ns < 1000000) {
		fprintf(stderr, "wake-torture: bad configuration\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* libkq's own numbers are the highest it may use, below the last
	 * eighth of the limit (at most 4096): far above the harness's */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur >= 1024)
		g_move_floor = (int)((rl.rlim_cur < 4096 ? rl.rlim_cur : 4096) / 2);
	for (int i = 0; i < MAX_OBJ; i++) {
		pthread_mutex_init(&g_obj[i].mu, NULL);
		g_obj[i].rfd = g_obj[i].wfd = -1;
	}
	for (int k = 0; k < MAX_KQ; k++)
		atomic_store(&g_kq[k].fd, -1);
	printf("wake-torture: seed %" PRIu64 " (KQ_TORTURE_SEED), up to %lld operations or %d s, "
	       "bound %lld ms\n", cfg_seed, cfg_ops, cfg_seconds,
	       (long long)(cfg_bound_ns / 1000000));
	fflush(stdout);

	g_t0 = now_ns();
	g_hard_deadline = g_t0 + (int64_t)cfg_seconds * 1000000000 + 60 * (int64_t)1000000000 +
			  10 * cfg_bound_ns;
	pthread_t wd;
	if (pthread_create(&wd, NULL, watchdog_main, NULL) != 0)
		die("pthread_create");
	pthread_detach(wd);

	struct rng master = { cfg_seed };
	int order[SC_N];
	for (int i = 0; i < SC_N; i++)
		order[i] = i;
	for (int i = SC_N - 1; i > 0; i--) {
		int j = (int)rn(&master, (unsigned)i + 1), tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	int64_t run_end = g_t0 + (int64_t)cfg_seconds * 1000000000;
	int num = 0;
	while (now_ns() < run_end && atomic_load(&g_ops_total) < cfg_ops) {
		struct scen s;
		int kind = cfg_only >= 0 ? cfg_only : order[num % SC_N];
		plan(&s, &master, kind, num);
		run_scenario(&s);
		num++;
	}
	double el = (double)(now_ns() - g_t0) / 1e9;
	long long ops = atomic_load(&g_ops_total);
	printf("wake-torture: PASS: %d scenarios, %lld operations in %.1f s (%.0f/s)\n", num, ops,
	       el, ops / el);
	printf("  %-7s %5s %6s %10s %9s %9s %7s %8s %8s %8s %8s\n", "kind", "runs", "secs",
	       "operations", "calls", "records", "quiet", "q-met", "due-met", "kq-close",
	       "close-wk");
	for (int i = 0; i < SC_N; i++) {
		const struct stats *st = &g_st[i];
		printf("  %-7s %5d %6.1f %10lld %9lld %9lld %7lld %8lld %8lld %8lld %8lld\n",
		       sc_name[i], st->runs, st->secs, st->ops, st->calls, st->recs, st->quiet,
		       st->quiet_met, st->due_met, st->kq_closes, st->close_wakes);
	}
	printf("  dup2() onto libkq's own numbers: %lld moved, %lld refused (EBUSY)\n",
	       atomic_load(&g_moves), atomic_load(&g_unmoved));
	if (atomic_load(&g_unmoved) > 20 && atomic_load(&g_moves) == 0) {
		printf("wake-torture: FAIL: no dup2() onto libkq's numbers moved one\n");
		return 1;
	}
	printf("  wake-ups checked: q-met (watches due at a quiet check, then met), due-met "
	       "(due at a watchdog sample, then met), close-wk (waiters asleep in a kqueue "
	       "that close() woke)\n");
	return 0;
}
