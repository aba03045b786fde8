/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_SIGNAL: count every time a signal is sent to the process, without
 * taking it away from the program.
 *
 * While a signal has knotes, libkq's own handler is installed for it, and the
 * program's disposition is kept aside and honoured by that handler: the
 * program's handler is called, SIG_IGN does nothing (so an "ignored" signal
 * is still counted, as on FreeBSD), SIG_DFL performs the default action
 * (terminate, stop) after counting.  sigaction() and signal() are caught
 * (exported below) so a program changing its disposition later changes the
 * kept one, and the last EV_DELETE puts the program's disposition back.
 *
 * Counting: the handler adds 1 per delivery to a per-signal counter and
 * writes a process-wide eventfd.  A signal the program blocks is not
 * delivered; it stays pending.  A signalfd on the watched set, never read
 * (reading would take the signal from the program), wakes the kqueues when
 * one becomes pending, and the pending set is then counted once per pending
 * episode (pending_counted), so its later delivery is not counted twice.
 * Linux keeps one pending instance of a standard signal, so sends while it
 * is pending are not seen: the kernel drops such a send before it notifies
 * any signalfd, and no handler runs for it, so it leaves no trace at all.
 * That is not only the blocked case.  A process-directed send is pending
 * from the send until the thread the kernel picked (the main thread first,
 * if it does not block the signal, even asleep in kevent()) is scheduled
 * and takes it; sends from other threads or processes in that window are
 * dropped.  A send the kernel gives the sending thread itself (raise(), or
 * kill() when that thread is the one picked) is taken before the call
 * returns, so back-to-back sends of that kind each count.
 *
 * A blocked real-time signal is queued once per send, but is visible here
 * only as a pending bit: nothing counts the instances without taking
 * them (PTRACE_PEEKSIGINFO needs a tracer in another process, and SigQ in
 * /proc is the whole user's total).  Counting them by taking them all
 * (sigtimedwait() with a zero timeout, or a signalfd read) and queueing
 * them back with rt_sigqueueinfo()/rt_tgsigqueueinfo() and their siginfo
 * was weighed and rejected, because the program could see it:
 *  - while they are out, another thread sees them gone: sigpending(), a
 *    zero-timeout sigtimedwait() and an unblock (POSIX wants a pending
 *    unblocked signal delivered before pthread_sigmask() returns) find
 *    nothing;
 *  - a send arriving between the last take and the re-queue (another
 *    process cannot be held off) lands ahead of the older instances,
 *    breaking the FIFO order the program may rely on (a sequence number
 *    in si_value), and no repair is atomic either;
 *  - taking an instance gives its slot back to the user's
 *    RLIMIT_SIGPENDING; if any process of that user takes the slot
 *    first, the re-queue fails with EAGAIN (a sigqueue() instance is lost)
 *    or goes in without its siginfo (a kill() instance);
 *  - a take sees the caller's own thread-directed instances first and
 *    then the process's, without saying which was which, and other
 *    threads' own queues not at all;
 *  - every re-queue is itself a send that wakes the signalfd, and so every
 *    kqueue, which would take and re-queue again while the signal stays
 *    blocked.
 * None of that is confined to multi-threaded programs except the first.
 * So a blocked real-time signal counts one while its instances wait, and
 * each further instance when it is delivered or taken (below): the total
 * is exact for instances the program takes, late by design.
 *
 * sigwait(), sigwaitinfo() and sigtimedwait() are caught too: the signal
 * they return ends its pending episode (and is counted then if no kqueue
 * had looked yet), so the next send counts again.  Both fds are registered
 * edge-triggered in every kqueue that has signal knotes; they belong to the
 * process, not a kqueue.
 *
 * A vfork() child runs in this memory until it execs or exits, with a copy
 * of the dispositions (libkq's handler included).  There the exported calls
 * only make the real call and the handler counts nothing (fork.c,
 * kq_foreign_process): what the child changes or receives is its own, and
 * the kept dispositions and counts stay the parent's.
 *
 * Where signalfd() is refused (a sandbox, or ENOSYS), the handler still
 * counts deliveries; blocked signals are looked for by scan_pending() when
 * a call begins or is about to sleep (see process_fds, kq_signal_woke).
 *
 * Each knote remembers the counter value it last reported (seen).
 *
 * Never watched for real (accepted, never fire, as FreeBSD accepts any
 * ident): SIGKILL, SIGSTOP, numbers out of range, and the real-time signals
 * glibc reserves for itself (below SIGRTMIN).  SIGCHLD set to SIG_IGN keeps
 * the real SIG_IGN: it means "reap children automatically", and FreeBSD does
 * not count an ignored SIGCHLD either.
 */
#include "kq.h"
#include "sys.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>

#define NSIGS 65

/* glibc's own entry point, reached without going through our sigaction. */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

struct sigstate {
	atomic_uint_fast64_t count;          /* sends seen (see top) */
	atomic_uint_fast64_t delivered;      /* handler entries, for scan_pending */
	atomic_int           pending_counted;
	atomic_int           progsel;        /* which prog[] entry is current */
	/* knotes, all kqueues: changed under sig_lock, read without it by
	 * sigaction()'s fast path */
	atomic_int           watchers;
	struct sigaction     prog[2];        /* the program's disposition */
};

/* Held only with signals blocked (sig_take): sigaction() and signal()
 * are async-signal-safe, so a handler may call them while its thread is
 * inside a section under this lock. */
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigstate sigs[NSIGS];
static sigset_t watched;                  /* sig_lock */
static int sig_wakefd = -1;               /* sig_lock to create or move */
/* What the handler writes: sig_wakefd itself, or the write end of the
 * pipe standing in for the eventfd (see wake_pipe) */
static int sig_wakewr = -1;               /* sig_lock to create or move */
static int sig_sfd = -1;                  /* sig_lock */
static atomic_uint_fast64_t handler_runs;  /* kq_signal_runs() */

/* Per kqueue: its signal knotes (kq->lock). */
struct kq_sigs {
	struct knote **v;
	unsigned       n, cap;
	unsigned       chld_holds;   /* EVFILT_PROC knotes woken by SIGCHLD */
	bool           registered;   /* the process fds are in kq's epoll set */
};

static void sig_take(sigset_t *old)
{
	kq_signals_block(old);
	pthread_mutex_lock(&sig_lock);
}

static void sig_drop(const sigset_t *old)
{
	pthread_mutex_unlock(&sig_lock);
	kq_signals_restore(old);
}

static bool catchable(int sig)
{
	return sig > 0 && sig < NSIGS && sig != SIGKILL && sig != SIGSTOP &&
	       (sig < 32 || sig >= SIGRTMIN);
}

static const struct sigaction *prog_of(int sig)
{
	return &sigs[sig].prog[atomic_load_explicit(&sigs[sig].progsel, memory_order_acquire)];
}

static void prog_set(int sig, const struct sigaction *act)
{
	int next = !atomic_load(&sigs[sig].progsel);
	sigs[sig].prog[next] = *act;
	atomic_store_explicit(&sigs[sig].progsel, next, memory_order_release);
}

static bool default_ignores(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH;
}

/* The program asked for SIG_DFL: do what the kernel would have done. */
static void default_action(int sig)
{
	if (default_ignores(sig))
		return;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, ours;
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, sig);
	__sigaction(sig, &dfl, &ours);
	pthread_sigmask(SIG_UNBLOCK, &set, &old);
	raise(sig);   /* terminates, or stops until SIGCONT */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	__sigaction(sig, &ours, NULL);
}

static void wake_process(void);

static void kq_sig_handler(int sig, siginfo_t *info, void *uc)
{
	int e = errno;
	struct sigstate *s = &sigs[sig];
	/* A vfork() child inherits this handler and runs it in the parent's
	 * memory: a signal sent to the child is not the parent's to count. */
	bool foreign = kq_foreign_process();
	if (!foreign) {
		atomic_fetch_add(&handler_runs, 1);
		atomic_fetch_add(&s->delivered, 1);
		if (!atomic_exchange(&s->pending_counted, 0))
			atomic_fetch_add(&s->count, 1);
		wake_process();
	}

	/* SA_RESETHAND takes effect on entry, as the kernel's: the program's
	 * handler already sees (and may raise the signal into) SIG_DFL */
	struct sigaction p = *prog_of(sig);
	if ((p.sa_flags & SA_RESETHAND) && foreign) {
		/* the kernel would reset the child's disposition only */
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		__sigaction(sig, &dfl, NULL);
	} else if (p.sa_flags & SA_RESETHAND) {
		struct sigaction *cur = &s->prog[atomic_load(&s->progsel)];
		cur->sa_handler = SIG_DFL;
		cur->sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
	}
	if (p.sa_flags & SA_SIGINFO) {
		void (*fn)(int, siginfo_t *, void *) = p.sa_sigaction;
		if (p.sa_handler != SIG_IGN && p.sa_handler != SIG_DFL && fn)
			fn(sig, info, uc);
	} else if (p.sa_handler == SIG_DFL) {
		default_action(sig);
	} else if (p.sa_handler != SIG_IGN) {
		p.sa_handler(sig);
	}
	errno = e;
}

/* Puts the handler that implements the kept disposition in place.  sig_lock. */
static int install(int sig)
{
	const struct sigaction *p = prog_of(sig);
	struct sigaction ours;
	memset(&ours, 0, sizeof ours);
	if (sig == SIGCHLD && !(p->sa_flags & SA_SIGINFO) && p->sa_handler == SIG_IGN) {
		ours = *p;
	} else {
		ours.sa_sigaction = kq_sig_handler;
		ours.sa_mask = p->sa_mask;
		ours.sa_flags = SA_SIGINFO | (p->sa_flags &
			(SA_RESTART | SA_ONSTACK | SA_NODEFER | SA_NOCLDSTOP | SA_NOCLDWAIT));
		/* An ignored signal, or a default action that does not end the
		 * process, never interrupts a system call in the kernel: our
		 * handler standing in for it must at least restart what can
		 * be restarted (nanosleep, poll and a few more still see
		 * EINTR: docs/differences.md). */
		if (!(p->sa_flags & SA_SIGINFO) &&
		    (p->sa_handler == SIG_IGN || p->sa_handler == SIG_DFL))
			ours.sa_flags |= SA_RESTART;
	}
	int e = errno, r = __sigaction(sig, &ours, NULL);
	r = r < 0 ? -errno : 0;
	errno = e;
	return r;
}

/* The pending set: count signals that became pending since last looked at.
 * Only the parties that end an episode clear its flag: the handler and the
 * sigwait family.  A scan must not, even when the signal is no longer
 * pending: the kernel may have dequeued it for a thread whose handler has
 * not started yet, and that handler would count it a second time.
 *
 * sigpending() is a snapshot: a thread that does not block the signal may
 * take it (and its handler count it) between the snapshot and our claim of
 * the episode.  The handler bumps `delivered` first; if that moved while we
 * looked and our claim is still standing, the handler came before the claim
 * and has counted this very send, so the claim is withdrawn.  (Had it come
 * after, it would have found and cleared our claim instead of counting.) */
static bool scan_pending(void)
{
	bool counted = false;
	uint64_t before[NSIGS];
	for (int sig = 1; sig < NSIGS; sig++)
		before[sig] = atomic_load(&sigs[sig].delivered);
	sigset_t pend;
	if (sigpending(&pend) != 0)
		return false;
	for (int sig = 1; sig < NSIGS; sig++) {
		if (!catchable(sig) || !sigismember(&watched, sig))
			continue;
		struct sigstate *s = &sigs[sig];
		if (!sigismember(&pend, sig))
			continue;
		int zero = 0, one = 1;
		if (!atomic_compare_exchange_strong(&s->pending_counted, &zero, 1))
			continue;
		atomic_fetch_add(&s->count, 1);
		if (atomic_load(&s->delivered) != before[sig] &&
		    atomic_compare_exchange_strong(&s->pending_counted, &one, 0))
			atomic_fetch_sub(&s->count, 1);
		else
			counted = true;
	}
	return counted;
}

/*
 * The signal eventfd is written without a lock (by the handler above, and
 * by a thread that finds a signal pending): in a window counted by the
 * parity of sig_wgen, as a kqueue's numbers are used (wake.h, W9), so that
 * a move of the descriptor (kq_signal_renumber) waits until no write can
 * still name the old number.
 */
static atomic_uint sig_wgen, sig_win[2];

static void wake_process(void)
{
	unsigned g = kq_win_enter_atomic(&sig_wgen, sig_win);
	uint64_t one = 1;
	syscall(SYS_write, __atomic_load_n(&sig_wakewr, __ATOMIC_RELAXED), &one, sizeof one);
	atomic_fetch_sub_explicit(&sig_win[g], 1, memory_order_release);
}

/*
 * Where eventfd2 is refused (EPERM, EACCES, ENOSYS), a pipe stands in for
 * the signal eventfd: the handler writes its write end, and the kqueues
 * hold its read end, edge-triggered, as they hold the eventfd.  The pipe
 * is never emptied: kqueues share it, and a report still waiting in one
 * kqueue's set is dropped by epoll if the file no longer polls readable
 * when that kqueue harvests, had another kqueue drained it meanwhile.  A
 * write to a pipe that is not empty still makes a report (Linux wakes
 * epoll at every pipe write, except 5.5 to 5.13, which woke it only for a
 * write to an empty pipe; 5.10's later stable releases have the fix), and
 * the bytes are read back to one once they pass SIG_PIPE_DRAIN,
 * so the pipe never fills and drops a write.
 */
#define SIG_PIPE_DRAIN 4096
static atomic_flag sig_draining = ATOMIC_FLAG_INIT;

static int wake_pipe(void)
{
	int p[2];
	int err = sys_pipe(p);
	if (err)
		return err;
	sig_wakefd = kq_fd_own(p[0]);
	__atomic_store_n(&sig_wakewr, kq_fd_own(p[1]), __ATOMIC_RELAXED);
	return 0;
}

/* Under a kqueue's lock, so no move (move.c) changes sig_wakefd. */
static void wake_pipe_drain(void)
{
	int n = 0;
	if (sig_wakewr == sig_wakefd || KQ_SYSCALL(SYS_ioctl, sig_wakefd, FIONREAD, &n) != 0 ||
	    n < SIG_PIPE_DRAIN || atomic_flag_test_and_set(&sig_draining))
		return;
	char buf[SIG_PIPE_DRAIN];
	/* the handler only adds: one byte stays */
	for (long left = n - 1, r; left > 0; left -= r) {
		r = sys_read(sig_wakefd, buf, left < (long)sizeof buf ? (size_t)left : sizeof buf);
		if (r <= 0)
			break;
	}
	atomic_flag_clear(&sig_draining);
}

/* move.c: the signalfd or the signal eventfd at a new number, with
 * kq_glock and every kqueue's lock held (the order: kqueues, then
 * sig_lock); the kqueues that hold their entries have them re-keyed. */
bool kq_signal_renumber(int old, int new)
{
	pthread_mutex_lock(&sig_lock);
	bool wake = old >= 0 && old == sig_wakefd, sfd = old >= 0 && old == sig_sfd;
	if (old >= 0 && old == sig_wakewr && !wake) {
		/* the stand-in pipe's write end: only the handler names it */
		__atomic_store_n(&sig_wakewr, new, __ATOMIC_RELAXED);
		atomic_fetch_add(&sig_wgen, 1);
		pthread_mutex_unlock(&sig_lock);
		return true;
	}
	if (wake || sfd) {
		for (struct kqueue *kq = kq_live; kq; kq = kq->gnext)
			if (kq->sigs && kq->sigs->registered)
				kq_entry_rekey(kq, old, new, EPOLLIN | EPOLLET, KQ_TAG_SIGNAL);
		if (wake) {
			/* an eventfd is both ends; a pipe's read end is not
			 * written */
			if (sig_wakewr == old)
				__atomic_store_n(&sig_wakewr, new, __ATOMIC_RELAXED);
			__atomic_store_n(&sig_wakefd, new, __ATOMIC_RELAXED);
			atomic_fetch_add(&sig_wgen, 1);
		} else {
			sig_sfd = new;
		}
	}
	pthread_mutex_unlock(&sig_lock);
	return wake || sfd;
}

/* Whether a write begun before the last move may still name its number. */
bool kq_signal_writes_open(void)
{
	return atomic_load(&sig_win[(atomic_load(&sig_wgen) & 1) ^ 1]) != 0;
}

/* Set once signalfd() was refused (see process_fds): a blocked signal is
 * then counted by the next scan, and wakes nothing. */
static atomic_bool sfd_refused;

uint64_t kq_signal_runs(void)
{
	return atomic_load_explicit(&handler_runs, memory_order_relaxed);
}

/* With a signalfd on the watched set, a watched signal makes epoll report
 * before the kernel checks for a signal, and a sleeping kevent() returns
 * the record.  Without one (refused), the handler's run after the sleep
 * was interrupted is all there is: that EINTR is taken for a wake-up, and
 * the record is reported as the signalfd would have had it (FreeBSD's
 * send activates the knote and wakes the sleeper). */
bool kq_signal_woke(uint64_t runs)
{
	return atomic_load_explicit(&sfd_refused, memory_order_relaxed) &&
	       kq_signal_runs() != runs;
}

static int process_fds(void)
{
	if (sig_wakefd < 0) {
		int fd = sys_eventfd();
		if (fd < 0 && !sys_refused(fd))
			return fd;
		if (fd < 0) {
			int err = wake_pipe();
			if (err)
				return err;
		} else {
			/* out of the program's way and never its to close: a
			 * signal handler writes it (hide.c) */
			sig_wakefd = kq_fd_own(fd);
			__atomic_store_n(&sig_wakewr, sig_wakefd, __ATOMIC_RELAXED);
		}
	}
	if (atomic_load(&sfd_refused))
		return 0;
	int e = errno;
	int fd = signalfd(sig_sfd, &watched, SFD_NONBLOCK | SFD_CLOEXEC);
	int err = fd < 0 ? -errno : 0;
	errno = e;
	/* A sandbox older than signalfd() (or a kernel without it): the
	 * handler still counts every delivery; only a signal that becomes
	 * pending while blocked goes unseen until a kevent() call looks
	 * (signal_begin, signal_sleep), as docs/differences.md says.  Only
	 * the first call can be refused: later ones change the set of an
	 * existing descriptor. */
	if (err && sig_sfd < 0 && sys_refused(err)) {
		atomic_store(&sfd_refused, true);
		return 0;
	}
	if (err)
		return err;
	sig_sfd = fd == sig_sfd ? fd : kq_fd_own(fd);
	return 0;
}

bool kq_signal_owns(int fd)
{
	return fd >= 0 && (fd == sig_wakefd || fd == sig_wakewr || fd == sig_sfd);
}

/* A knote starts watching sig.  sig_lock held. */
static int watch(int sig)
{
	if (!catchable(sig))
		return 0;
	/* counted before the disposition is read: sigaction()'s fast path
	 * looks at the count after its own change (see there) */
	if (atomic_fetch_add(&sigs[sig].watchers, 1) > 0)
		return 0;
	struct sigaction cur;
	int e = errno, r = __sigaction(sig, NULL, &cur);
	errno = e;
	if (r != 0) {
		atomic_fetch_sub(&sigs[sig].watchers, 1);
		return -EINVAL;
	}
	prog_set(sig, &cur);
	/* FreeBSD counts only sends after the knote exists. */
	sigset_t pend;
	atomic_store(&sigs[sig].pending_counted,
		     sigpending(&pend) == 0 && sigismember(&pend, sig));
	sigaddset(&watched, sig);
	int err = process_fds();
	if (!err)
		err = install(sig);
	if (err) {
		sigdelset(&watched, sig);
		atomic_fetch_sub(&sigs[sig].watchers, 1);
	}
	return err;
}

static void unwatch(int sig)
{
	if (!catchable(sig))
		return;
	if (atomic_load(&sigs[sig].watchers) > 1) {
		atomic_fetch_sub(&sigs[sig].watchers, 1);
		return;
	}
	/* the program's disposition back before the count says so, or a
	 * sigaction() taking the fast path in between would be undone */
	int e = errno;
	__sigaction(sig, prog_of(sig), NULL);
	errno = e;
	atomic_store(&sigs[sig].watchers, 0);
	sigdelset(&watched, sig);
	atomic_store(&sigs[sig].pending_counted, 0);
	process_fds();   /* narrows the signalfd's set */
}

/* ---- per kqueue ---- */

static int kq_sigs_get(struct kqueue *kq, struct kq_sigs **out)
{
	struct kq_sigs *ks = kq->sigs;
	if (!ks) {
		ks = calloc(1, sizeof *ks);
		if (!ks)
			return -ENOMEM;
		kq->sigs = ks;
	}
	*out = ks;
	return 0;
}

/* The process fds into kq's epoll set, once. */
static int kq_sigs_register(struct kqueue *kq, struct kq_sigs *ks)
{
	if (!ks->registered && sig_wakefd >= 0) {
		int err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, sig_wakefd,
					EPOLLIN | EPOLLET, KQ_TAG_SIGNAL);
		if (!err && sig_sfd >= 0)
			err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, sig_sfd,
					    EPOLLIN | EPOLLET, KQ_TAG_SIGNAL);
		if (err) {
			sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, sig_wakefd, 0, 0);
			return err;
		}
		ks->registered = true;
	}
	return 0;
}

static int kq_sigs_add(struct kqueue *kq, struct knote *kn)
{
	struct kq_sigs *ks;
	int err = kq_sigs_get(kq, &ks);
	if (err)
		return err;
	if (ks->n == ks->cap) {
		unsigned cap = ks->cap ? ks->cap * 2 : 8;
		struct knote **v = realloc(ks->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		ks->v = v;
		ks->cap = cap;
	}
	err = kq_sigs_register(kq, ks);
	if (err)
		return err;
	ks->v[ks->n++] = kn;
	return 0;
}

static void kq_sigs_unregister_idle(struct kqueue *kq, struct kq_sigs *ks)
{
	if (ks->n == 0 && ks->chld_holds == 0 && ks->registered && !kq->dead) {
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, sig_wakefd, 0, 0);
		if (sig_sfd >= 0)
			sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, sig_sfd, 0, 0);
		ks->registered = false;
	}
}

static void kq_sigs_remove(struct kqueue *kq, struct knote *kn)
{
	struct kq_sigs *ks = kq->sigs;
	if (!ks)
		return;
	for (unsigned i = 0; i < ks->n; i++) {
		if (ks->v[i] == kn) {
			ks->v[i] = ks->v[--ks->n];
			break;
		}
	}
	kq_sigs_unregister_idle(kq, ks);
}

/* Whether the kernel's disposition for sig is the one install() puts there. */
static bool installed_ours(int sig, const struct sigaction *cur)
{
	if ((cur->sa_flags & SA_SIGINFO) && cur->sa_sigaction == kq_sig_handler)
		return true;
	const struct sigaction *p = prog_of(sig);
	return sig == SIGCHLD && !(p->sa_flags & SA_SIGINFO) && p->sa_handler == SIG_IGN &&
	       !(cur->sa_flags & SA_SIGINFO) && cur->sa_handler == SIG_IGN;
}

/*
 * A call that binds to the C library's sigaction() rather than libkq's (a
 * library linked before libkq in the lookup order, libevent setting SIG_IGN
 * right after its EV_ADD; a raw system call) replaces libkq's handler, and
 * the signal would stop being counted for good.  Before kevent() sleeps on
 * a kqueue with signal knotes (scan.c), each of its signals is checked: a
 * foreign disposition is taken as the program's new one, as if it had come
 * through our sigaction(), and libkq's handler goes back.  Sends delivered
 * to the foreign disposition before that are lost (docs/differences.md).
 * One rt_sigaction query per watched signal, only when about to sleep.
 */
static void reclaim(int sig)
{
	struct sigaction cur;
	if (__sigaction(sig, NULL, &cur) != 0 || installed_ours(sig, &cur))
		return;
	/* again under the lock: the program's own sigaction() may be
	 * between its prog_set() and install() */
	sigset_t old;
	sig_take(&old);
	if (atomic_load(&sigs[sig].watchers) > 0 && __sigaction(sig, NULL, &cur) == 0 &&
	    !installed_ours(sig, &cur)) {
		prog_set(sig, &cur);
		install(sig);
	}
	sig_drop(&old);
}

static int64_t signal_sleep(struct kqueue *kq)
{
	struct kq_sigs *ks = kq->sigs;
	if (!ks || (ks->n == 0 && ks->chld_holds == 0))
		return -1;
	sigset_t seen;
	sigemptyset(&seen);
	int e = errno;
	if (ks->chld_holds) {
		sigaddset(&seen, SIGCHLD);
		reclaim(SIGCHLD);
	}
	for (unsigned i = 0; i < ks->n; i++) {
		uintptr_t id = ks->v[i]->ident;
		int sig = id < NSIGS ? (int)id : 0;
		if (!catchable(sig) || sigismember(&seen, sig))
			continue;
		sigaddset(&seen, sig);
		reclaim(sig);
	}
	if (sig_sfd < 0 && sig_wakefd >= 0 && scan_pending())
		wake_process();
	errno = e;
	return -1;
}

/* One of the process's signal fds reported: activate knotes with news. */
static void signal_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	struct kq_sigs *ks = kq->sigs;
	if (!ks)
		return;
	wake_pipe_drain();
	scan_pending();
	for (unsigned i = 0; i < ks->n; i++) {
		struct knote *kn = ks->v[i];
		uint64_t *seen = kn->fstate;
		if (kn->ident < NSIGS && atomic_load(&sigs[kn->ident].count) != *seen)
			kq_activate(kq, kn);
	}
	if (ks->chld_holds)
		kq_proc_sigchld(kq);
}

/* A call begins.  Without a signalfd, a blocked signal's send is seen
 * only by looking (as a zero-timeout kevent() right after a kill() must
 * see it); and a call that will not sleep still finds the exits no
 * SIGCHLD announced (the program ignores SIGCHLD: children are reaped
 * at once, unsignalled). */
static void signal_begin(struct kqueue *kq)
{
	struct kq_sigs *ks = kq->sigs;
	if (__builtin_expect(ks == NULL, 1))
		return;
	if (ks->n && atomic_load_explicit(&sfd_refused, memory_order_relaxed))
		signal_report(kq, 0, 0);
	else if (ks->chld_holds)
		kq_proc_sigchld(kq);
}

/*
 * EVFILT_PROC where pidfds are refused (filter/proc.c): kq is woken by
 * SIGCHLD as if it had a SIGCHLD knote, with libkq's handler honouring the
 * program's disposition as for a knote.  kq->lock held.
 */
int kq_signal_hold_chld(struct kqueue *kq)
{
	struct kq_sigs *ks;
	int err = kq_sigs_get(kq, &ks);
	if (err)
		return err;
	sigset_t old;
	sig_take(&old);
	err = watch(SIGCHLD);
	sig_drop(&old);
	if (err)
		return err;
	err = kq_sigs_register(kq, ks);
	if (err) {
		sig_take(&old);
		unwatch(SIGCHLD);
		sig_drop(&old);
		return err;
	}
	ks->chld_holds++;
	return 0;
}

void kq_signal_release_chld(struct kqueue *kq)
{
	struct kq_sigs *ks = kq->sigs;
	if (!ks || ks->chld_holds == 0)
		return;
	ks->chld_holds--;
	kq_sigs_unregister_idle(kq, ks);
	sigset_t old;
	sig_take(&old);
	unwatch(SIGCHLD);
	sig_drop(&old);
}

static int signal_attach(struct kqueue *kq, struct knote *kn)
{
	uint64_t *seen = malloc(sizeof *seen);
	if (!seen)
		return -ENOMEM;
	kn->flags |= EV_CLEAR;
	int sig = kn->ident < NSIGS ? (int)kn->ident : 0;
	sigset_t old;
	sig_take(&old);
	int err = watch(sig);
	sig_drop(&old);
	if (err) {
		free(seen);
		return err;
	}
	*seen = sig ? atomic_load(&sigs[sig].count) : 0;
	kn->fstate = seen;
	err = kq_sigs_add(kq, kn);
	if (err) {
		sig_take(&old);
		unwatch(sig);
		sig_drop(&old);
		free(seen);
		kn->fstate = NULL;
	}
	return err;
}

static void signal_detach(struct kqueue *kq, struct knote *kn)
{
	if (!kn->fstate)
		return;
	kq_sigs_remove(kq, kn);
	sigset_t old;
	sig_take(&old);
	unwatch(kn->ident < NSIGS ? (int)kn->ident : 0);
	sig_drop(&old);
	free(kn->fstate);
	kn->fstate = NULL;
}

static int signal_event(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	uint64_t *seen = kn->fstate;
	if (kn->ident >= NSIGS || !seen)
		return 0;
	scan_pending();
	uint64_t cur = atomic_load(&sigs[kn->ident].count);
	if (cur != *seen) {
		kn->data += (int64_t)(cur - *seen);
		*seen = cur;
	}
	kn->fflags = 0;
	return kn->data > 0;
}

/* Sends counted while disabled are reported on enable (FreeBSD). */
static int signal_arm(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	uint64_t *seen = kn->fstate;
	bool news = kn->ident < NSIGS && seen &&
		    atomic_load(&sigs[kn->ident].count) != *seen;
	return (news || kn->data > 0) ? 0 : 1;
}

static void signal_fini(struct kqueue *kq)
{
	if (!kq->sigs)
		return;
	free(kq->sigs->v);
	free(kq->sigs);
	kq->sigs = NULL;
}

const struct filterops kq_signal_filtops = {
	.isfd = false,
	.attach = signal_attach,
	.detach = signal_detach,
	.event = signal_event,
	.arm = signal_arm,
	.fini = signal_fini,
};

/* ---- fork ---- */

/* fork.c blocks signals around these. */
void kq_signal_fork_prepare(void)
{
	pthread_mutex_lock(&sig_lock);
}

void kq_signal_fork_parent(void)
{
	pthread_mutex_unlock(&sig_lock);
}

/* The child has no kqueues, so no signal knotes: the program's own
 * dispositions come back and libkq's process-wide fds go. */
void kq_signal_fork_child(void)
{
	/* `watched` (one page), not every sigs[] entry: reading the entries of
	 * signals never watched faulted in pages the parent never touched, in
	 * every fork child.  The prepare handler holds sig_lock, so the set is
	 * exactly the signals with watchers. */
	for (int sig = 1; sig < NSIGS; sig++) {
		if (!catchable(sig) || !sigismember(&watched, sig))
			continue;
		__sigaction(sig, prog_of(sig), NULL);
		atomic_store(&sigs[sig].watchers, 0);
		atomic_store(&sigs[sig].pending_counted, 0);
	}
	sigemptyset(&watched);
	kq_fd_own_close(sig_sfd);
	if (sig_wakewr != sig_wakefd)
		kq_fd_own_close(sig_wakewr);
	kq_fd_own_close(sig_wakefd);
	sig_sfd = sig_wakefd = sig_wakewr = -1;
	pthread_mutex_unlock(&sig_lock);   /* taken in the prepare handler */
}

/* ---- children that run no fork handlers ---- */

/*
 * A vfork() child (libkq's vfork(), libc/vfork.c) gets the program's own
 * dispositions in place of libkq's handler, in the child's own copy of
 * them: the kernel then keeps an ignored signal ignored across the exec, as
 * FreeBSD does (an exec resets a handler to the default, and libkq's
 * handler stands for SIG_IGN too).  Runs in the child, in the parent's
 * memory, which it only reads.
 */
__attribute__((used, visibility("hidden"))) void kq_vfork_child(void)
{
	for (int sig = 1; sig < NSIGS; sig++)
		if (catchable(sig) && atomic_load_explicit(&sigs[sig].watchers, memory_order_relaxed))
			__sigaction(sig, prog_of(sig), NULL);
}

static bool kept_ignored(int sig)
{
	const struct sigaction *p = prog_of(sig);
	return atomic_load_explicit(&sigs[sig].watchers, memory_order_relaxed) > 0 &&
	       !(p->sa_flags & SA_SIGINFO) && p->sa_handler == SIG_IGN &&
	       sig != SIGCHLD;   /* install() left SIGCHLD's SIG_IGN in place */
}

/*
 * posix_spawn() makes its child with clone() inside the C library, and the
 * child sets every handled signal to the default before its exec: a
 * watched signal the program ignores would stop being ignored.  For the
 * time of the spawn such signals are really ignored, with sig_lock held
 * and this thread's signals blocked.  A signal the kernel sends meanwhile to
 * this thread stays pending (it is blocked) and is counted after; one sent
 * to the process while another thread could take it is discarded by the
 * kernel and not counted (docs/differences.md).  Returns the set swapped
 * (0: none, and no lock held).
 */
uint64_t kq_signal_spawn_enter(sigset_t *old)
{
	uint64_t any = 0;
	for (int sig = 1; sig < NSIGS; sig++)
		if (catchable(sig) && kept_ignored(sig))
			any = 1;
	if (!any)
		return 0;
	uint64_t swapped = 0;
	sig_take(old);
	struct sigaction ign = { .sa_handler = SIG_IGN };
	for (int sig = 1; sig < NSIGS; sig++) {
		if (!catchable(sig) || !kept_ignored(sig))
			continue;
		if (__sigaction(sig, &ign, NULL) == 0)
			swapped |= (uint64_t)1 << (sig - 1);
	}
	if (!swapped)
		sig_drop(old);
	return swapped;
}

void kq_signal_spawn_leave(uint64_t swapped, const sigset_t *old)
{
	if (!swapped)
		return;
	for (int sig = 1; sig < NSIGS; sig++)
		if (swapped >> (sig - 1) & 1)
			install(sig);
	sig_drop(old);
}

/* ---- the program's sigaction() and sigwait family (libc/signal.c) ---- */

/* In a vfork() child (sharing the parent's memory until it execs or exits)
 * only the child's own disposition may change: the kept dispositions are
 * the parent's.  The real call is made; an old disposition that is libkq's
 * handler is shown as the kept one it stands for, which is what the child
 * inherited in effect (the handler honours it there too). */
/* An old disposition the kernel gave back that is libkq's handler is
 * shown as the kept one it stands for. */
static void shown_old(int sig, struct sigaction *oact)
{
	if (oact && (oact->sa_flags & SA_SIGINFO) && oact->sa_sigaction == kq_sig_handler)
		*oact = *prog_of(sig);
}

static int foreign_sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	int r = __sigaction(sig, act, oact);
	if (r == 0 && catchable(sig))
		shown_old(sig, oact);
	return r;
}

/* A knote started watching sig while the fast path below changed its
 * disposition, and may have taken the old one for the program's: make
 * `act` the kept one (or the real one, if the knote is gone again). */
/* Whether a disposition has the kernel discard the signal. */
static bool ignores(int sig, const struct sigaction *act)
{
	if (act->sa_flags & SA_SIGINFO)
		return false;
	return act->sa_handler == SIG_IGN ||
	       (act->sa_handler == SIG_DFL && default_ignores(sig));
}

/* The program made a watched signal ignored: the kernel discards a pending
 * instance then (POSIX), but it holds libkq's handler, so it is told of
 * SIG_IGN for a moment; the caller gives the handler back (install()).
 * That pending episode is over.  A send in between is discarded uncounted.
 * sig_lock held. */
static void discard_pending(int sig)
{
	/* a pending send no kqueue has looked at yet is counted first: it
	 * was sent while watched */
	scan_pending();
	struct sigaction ign = { .sa_handler = SIG_IGN };
	__sigaction(sig, &ign, NULL);
	atomic_store(&sigs[sig].pending_counted, 0);
	wake_process();
}

static void sigaction_again(int sig, const struct sigaction *act)
{
	sigset_t old;
	sig_take(&old);
	if (atomic_load(&sigs[sig].watchers) > 0) {
		prog_set(sig, act);
		if (ignores(sig, act))
			discard_pending(sig);
		install(sig);
	} else {
		__sigaction(sig, act, NULL);
	}
	sig_drop(&old);
}

/*
 * A signal no knote watches (nearly always) takes the fast path: the C
 * library's call, no lock, as async-signal-safe as glibc's.  watch()
 * counts a knote before it reads the disposition, so if the count is still
 * zero after the change, the knote (if any) reads the new disposition; if
 * not, the change is made again under the lock.
 */
int kq_signal_sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	if (!catchable(sig))
		return __sigaction(sig, act, oact);
	if (kq_foreign_process())
		return foreign_sigaction(sig, act, oact);
	if (atomic_load(&sigs[sig].watchers) == 0) {
		int r = __sigaction(sig, act, oact);
		if (r != 0)
			return r;
		shown_old(sig, oact);
		if (act && atomic_load(&sigs[sig].watchers) != 0)
			sigaction_again(sig, act);
		return 0;
	}
	sigset_t old;
	sig_take(&old);
	int r;
	if (atomic_load(&sigs[sig].watchers) == 0) {
		r = __sigaction(sig, act, oact);
	} else {
		if (oact)
			*oact = *prog_of(sig);
		r = 0;
		if (act) {
			prog_set(sig, act);
			if (ignores(sig, act))
				discard_pending(sig);
			r = install(sig);
			if (r < 0) {
				errno = -r;
				r = -1;
			}
		}
	}
	int e = errno;
	sig_drop(&old);
	errno = e;
	return r;
}

/* The program took a pending signal with one of the sigwait family: that
 * pending episode is over.  Count it if no kqueue counted it yet. */
void kq_signal_consumed(int sig)
{
	if (!catchable(sig) || !sigismember(&watched, sig))
		return;
	if (!atomic_exchange(&sigs[sig].pending_counted, 0)) {
		atomic_fetch_add(&sigs[sig].count, 1);
		wake_process();
	}
}

const struct kq_source kq_signal_source = {
	.report = signal_report, .begin = signal_begin, .sleep = signal_sleep,
};
