/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_PROC: a process's exit, forks and execs.
 *
 * NOTE_EXIT comes from a pidfd per knote, registered edge-triggered in the
 * kqueue's epoll set: it reports IN when the process exits (a zombie) and HUP
 * when it is reaped.  For a child of ours, waitid(P_PIDFD, WNOWAIT) gives the
 * wait status at exit without reaping it.  For any other process Linux gives
 * the status only after its parent reaped it (PIDFD_GET_INFO, Linux 6.13),
 * so that record waits for the HUP edge; kernels before 6.15 (no exit field
 * in PIDFD_GET_INFO) report status 0.
 *
 * NOTE_FORK, NOTE_EXEC and NOTE_TRACK come from the netlink process
 * connector: one socket per kqueue, opened when the first knote asks for one
 * of them and refusing the knote with ENOTSUP when the kernel has no
 * connector or does not let us listen to it (no silent knote that never
 * fires); a socket that could not be made for want of descriptors or
 * memory refuses it with that error (EMFILE, ENFILE, ENOMEM), which a
 * later EV_ADD may not meet.  The connector reports every process in
 * the system; events for pids this kqueue does not watch are skipped.
 * NOTE_TRACK makes a knote for each new child (same fflags and udata) whose
 * first record is NOTE_CHILD with data = the parent's pid; that record is
 * never merged with the child's own later notes (FreeBSD keeps them apart,
 * PR 180385).  A child already gone when its fork is read has its exit taken
 * from the connector's exit event.
 *
 * Where pidfd_open() is refused (a sandbox, an old kernel; see
 * proc_setup_nopidfd), a child's exit is watched through SIGCHLD and
 * waitid(WNOWAIT), and any other process's through the connector.
 *
 * A knote whose process exits without NOTE_EXIT requested and with nothing
 * else pending is dropped silently, as FreeBSD does (EV_DROP).
 */
#include "kq.h"
#include "sys.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* PIDFD_GET_INFO (Linux 6.13; PIDFD_INFO_EXIT since 6.15), first version of
 * the structure. */
struct kq_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t  exit_code;
};
#define KQ_PIDFD_INFO_EXIT 8
#define KQ_PIDFD_GET_INFO _IOWR(0xFF, 11, struct kq_pidfd_info)

#define PROC_NOTES (NOTE_EXIT | NOTE_FORK | NOTE_EXEC)
#define NEEDS_CONNECTOR (NOTE_FORK | NOTE_EXEC | NOTE_TRACK)

struct pstate {
	int      pidfd;          /* -1 when none (gone, or exit via connector) */
	uint32_t slot;           /* index in kq->procs->slots */
	uint32_t notes;          /* NOTE_FORK/EXEC/EXIT seen, not yet reported */
	int64_t  status;         /* wait status, once exited */
	int64_t  ppid;           /* for the pending NOTE_CHILD record */
	bool     exited;
	bool     child_pending;  /* a NOTE_CHILD record is due first */
	bool     trackerr;       /* NOTE_TRACK could not follow a child */
	bool     reported_child; /* the record just copied out was NOTE_CHILD */
	bool     cnref;          /* holds a reference on the connector */
	bool     waitchild;      /* no pidfd: a child of ours, seen by SIGCHLD */
	bool     chldref;        /* holds SIGCHLD (kq_signal_hold_chld) */
};

#define NO_SLOT UINT32_MAX

struct kq_procs {
	struct knote **slots;    /* pidfd tag -> knote */
	uint32_t      *gens;
	uint32_t       nslots;
	int            cnfd;     /* connector socket, or -1 */
	unsigned       ncn;      /* knotes that need the connector */
};

/* Tags of pidfd entries: bit 31 of the low word marks them (fd tags never
 * have it, and the internal tags are at the very top). */
#define PROC_TAG_BIT 0x80000000u
#define PROC_MAX_SLOTS 0x7fff0000u

static int procs_get(struct kqueue *kq, struct kq_procs **out)
{
	if (!kq->procs) {
		kq->procs = calloc(1, sizeof *kq->procs);
		if (!kq->procs)
			return -ENOMEM;
		kq->procs->cnfd = -1;
	}
	*out = kq->procs;
	return 0;
}

static int slot_alloc(struct kq_procs *p, struct knote *kn, uint32_t *idx)
{
	for (uint32_t i = 0; i < p->nslots; i++) {
		if (!p->slots[i]) {
			p->slots[i] = kn;
			*idx = i;
			return 0;
		}
	}
	uint32_t n = p->nslots ? p->nslots * 2 : 16;
	if (n > PROC_MAX_SLOTS)
		return -ENOMEM;
	struct knote **s = realloc(p->slots, n * sizeof *s);
	if (!s)
		return -ENOMEM;
	p->slots = s;
	uint32_t *g = realloc(p->gens, n * sizeof *g);
	if (!g)
		return -ENOMEM;
	p->gens = g;
	memset(p->slots + p->nslots, 0, (n - p->nslots) * sizeof *s);
	memset(p->gens + p->nslots, 0, (n - p->nslots) * sizeof *g);
	*idx = p->nslots;
	p->slots[*idx] = kn;
	p->nslots = n;
	return 0;
}

static uint64_t tag_of(struct kq_procs *p, uint32_t idx)
{
	return ((uint64_t)(p->gens[idx] & 0x7fffffff) << 32) | PROC_TAG_BIT | idx;
}

/* ---- the connector ---- */

/* What an error making or joining the connector socket means to EV_ADD:
 * a shortage is passed on, anything else says there is no connector for
 * us (documented: ENOTSUP). */
static int connector_error(long err)
{
	switch (err) {
	case -EMFILE:
	case -ENFILE:
	case -ENOMEM:
		return (int)err;
	case -ENOBUFS:
		return -ENOMEM;
	default:
		return -ENOTSUP;
	}
}

static int connector_open(void)
{
	int e = errno;
	long err = 0;
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_CONNECTOR);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
		err = -errno;
		goto fail;
	}
	int big = 1 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
	struct {
		struct nlmsghdr nlh;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) msg;
	memset(&msg, 0, sizeof msg);
	msg.nlh.nlmsg_len = sizeof msg;
	msg.nlh.nlmsg_type = NLMSG_DONE;
	msg.cn.id.idx = CN_IDX_PROC;
	msg.cn.id.val = CN_VAL_PROC;
	msg.cn.len = sizeof msg.op;
	msg.op = PROC_CN_MCAST_LISTEN;
	err = KQ_SYSCALL(SYS_sendto, fd, &msg, sizeof msg, 0, NULL, 0);
	if (err == (long)sizeof msg) {
		errno = e;
		return kq_fd_own(fd);
	}
	if (err >= 0)
		err = -EIO;
fail:
	if (fd >= 0)
		sys_close(fd);
	errno = e;
	return connector_error(err);
}

static int connector_ref(struct kqueue *kq, struct kq_procs *p)
{
	if (p->cnfd < 0) {
		int fd = connector_open();
		if (fd < 0)
			return fd;
		int err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLIN, KQ_TAG_PROCCN);
		if (err) {
			kq_fd_own_close(fd);
			return err;
		}
		p->cnfd = fd;
	}
	p->ncn++;
	return 0;
}

static void connector_unref(struct kqueue *kq, struct kq_procs *p)
{
	if (--p->ncn > 0 || p->cnfd < 0)
		return;
	if (!kq->dead)
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, p->cnfd, 0, 0);
	kq_fd_own_close(p->cnfd);
	p->cnfd = -1;
}

/* move.c: the connector socket or a knote's pidfd at a new number.  A
 * pidfd's entry is edge-triggered: made anew for an exited process it
 * reports once more, which st->exited absorbs. */
bool kq_proc_renumber(struct kqueue *kq, int old, int new)
{
	struct kq_procs *p = kq->procs;
	if (!p)
		return false;
	if (p->cnfd == old) {
		kq_entry_rekey(kq, old, new, EPOLLIN, KQ_TAG_PROCCN);
		p->cnfd = new;
		return true;
	}
	for (uint32_t i = 0; i < p->nslots; i++) {
		struct knote *kn = p->slots[i];
		struct pstate *st = kn ? kn->fstate : NULL;
		if (st && st->pidfd == old) {
			kq_entry_rekey(kq, old, new, EPOLLIN | EPOLLET, tag_of(p, i));
			st->pidfd = new;
			return true;
		}
	}
	return false;
}

/* ---- exit ---- */

static void pidfd_close(struct kqueue *kq, struct pstate *st)
{
	if (st->pidfd < 0)
		return;
	if (!kq->dead)
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, st->pidfd, 0, 0);
	kq_fd_own_close(st->pidfd);
	st->pidfd = -1;
}

static void proc_exited(struct kqueue *kq, struct knote *kn, int64_t status)
{
	struct pstate *st = kn->fstate;
	if (st->exited)
		return;
	st->exited = true;
	st->status = status;
	st->notes |= kn->sfflags & NOTE_EXIT;
	pidfd_close(kq, st);
	/* Nothing asked for happened: FreeBSD marks the knote EV_DROP and
	 * the scan removes it silently; until then (e.g. while disabled) it
	 * still exists for EV_ENABLE/EV_DELETE. */
	if (!st->notes && !st->child_pending && !st->trackerr)
		kn->flags |= EV_DROP;
	kq_activate(kq, kn);
}

/* A wait status as FreeBSD's NOTE_EXIT data gives it. */
static int64_t wait_status(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return (int64_t)(si->si_status & 0xff) << 8;
	return si->si_status | (si->si_code == CLD_DUMPED ? 0x80 : 0);
}

/* The wait status, if Linux will tell it now: 1 known, 0 not yet. */
static int exit_status(int pidfd, uint32_t revents, int64_t *status)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	long r = KQ_SYSCALL(SYS_waitid, P_PIDFD, pidfd, &si,
			    WEXITED | WNOWAIT | WNOHANG, NULL);
	if (r == 0 && si.si_pid != 0) {
		*status = wait_status(&si);
		return 1;
	}
	/* Not our child (or reaped already): pidfd info, after the reap. */
	struct kq_pidfd_info info = { .mask = KQ_PIDFD_INFO_EXIT };
	r = KQ_SYSCALL(SYS_ioctl, pidfd, KQ_PIDFD_GET_INFO, &info);
	if (r == 0 && (info.mask & KQ_PIDFD_INFO_EXIT)) {
		*status = info.exit_code;
		return 1;
	}
	if (r < 0 && r != -ESRCH && (revents & EPOLLHUP)) {
		*status = 0;   /* before 6.15: status unknown */
		return 1;
	}
	return 0;
}

static void pidfd_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	struct kq_procs *p = kq->procs;
	uint32_t idx = (uint32_t)tag & ~PROC_TAG_BIT;
	if (!p || idx >= p->nslots || !p->slots[idx] ||
	    (p->gens[idx] & 0x7fffffff) != (uint32_t)(tag >> 32))
		return;
	struct knote *kn = p->slots[idx];
	struct pstate *st = kn->fstate;
	int64_t status;
	if (st->exited || st->pidfd < 0 || !(revents & (EPOLLIN | EPOLLHUP)))
		return;
	if (exit_status(st->pidfd, revents, &status))
		proc_exited(kq, kn, status);
}

/* ---- without pidfds ---- */

/* Set once pidfd_open() was refused: by a sandbox older than the call
 * (container profiles, systemd's SystemCallFilter= answer EPERM or
 * EACCES) or by a kernel without it (ENOSYS); it has no other use for
 * those errors.  A filter is inherited and never lifted, so a refusal
 * holds for the process and its children, and is not asked again. */
static atomic_bool pidfd_refused;

/* waitid(P_PID) without reaping: 1 pid is a child of ours that exited
 * (status set), 0 a live child, -ECHILD not (or no longer) a child. */
static int child_status(pid_t pid, int64_t *status)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	long r = KQ_SYSCALL(SYS_waitid, P_PID, pid, &si, WEXITED | WNOWAIT | WNOHANG, NULL);
	if (r < 0)
		return (int)r;
	if (si.si_pid == 0)
		return 0;
	*status = wait_status(&si);
	return 1;
}

/* SIGCHLD came (or a kevent() call begins): the knotes that watch a child
 * without a pidfd look at it.  A child gone without a status to see was
 * reaped by someone else first (the program, or the kernel when SIGCHLD is
 * ignored): its exit is reported with status 0. */
void kq_proc_sigchld(struct kqueue *kq)
{
	struct kq_procs *p = kq->procs;
	if (!p)
		return;
	int e = errno;
	for (uint32_t i = 0; i < p->nslots; i++) {
		struct knote *kn = p->slots[i];
		struct pstate *st = kn ? kn->fstate : NULL;
		if (!st || !st->waitchild || st->exited)
			continue;
		int64_t status = 0;
		int r = child_status((pid_t)kn->ident, &status);
		if (r != 0)
			proc_exited(kq, kn, r > 0 ? status : 0);
	}
	errno = e;
}

/* kill(pid, 0): a process we may not signal exists too (EPERM). */
static bool exists(pid_t pid)
{
	return KQ_SYSCALL(SYS_kill, pid, 0) != -ESRCH;
}

/*
 * EV_ADD where pidfds are refused.  A child of ours is watched through
 * SIGCHLD and waitid(WNOWAIT), which gives its exact status without
 * reaping it.  Any other process has its exit from the connector (whose
 * exit event carries the status), where one can be had: else ENOTSUP.
 */
static int proc_setup_nopidfd(struct kqueue *kq, struct kq_procs *p, struct knote *kn)
{
	struct pstate *st = kn->fstate;
	pid_t pid = (pid_t)kn->ident;
	/* held before the look, so that an exit right after it still wakes */
	int err = kq_signal_hold_chld(kq);
	if (err)
		return err;
	st->chldref = true;
	int64_t status = 0;
	int r = child_status(pid, &status);
	if (r > 0) {
		st->exited = true;
		st->status = status;
		st->notes |= kn->sfflags & NOTE_EXIT;
		return 0;
	}
	if (r == 0) {
		st->waitchild = true;
		return 0;
	}
	st->chldref = false;
	kq_signal_release_chld(kq);
	if (!exists(pid))
		return -ESRCH;
	if (!st->cnref) {
		err = connector_ref(kq, p);
		if (err)
			return err;
		st->cnref = true;
	}
	/* gone before the connector listened: its exit was missed */
	return exists(pid) ? 0 : -ESRCH;
}

/* ---- connector events ---- */

static struct knote *proc_knote(struct kqueue *kq, uint32_t pid)
{
	return kq_find(kq, pid, EVFILT_PROC, false);
}

static int proc_new_knote(struct kqueue *kq, struct knote *parent, uint32_t child);

static void on_proc_fork(struct kqueue *kq, uint32_t ptgid, uint32_t cpid, uint32_t ctgid)
{
	if (cpid != ctgid)
		return;   /* a new thread, not a process */
	struct knote *kn = proc_knote(kq, ptgid);
	if (!kn)
		return;
	struct pstate *st = kn->fstate;
	if (kn->sfflags & NOTE_TRACK) {
		if (!proc_knote(kq, ctgid) && proc_new_knote(kq, kn, ctgid) != 0)
			st->trackerr = true;
	}
	if ((kn->sfflags & NOTE_FORK) || st->trackerr) {
		st->notes |= kn->sfflags & NOTE_FORK;
		kq_activate(kq, kn);
	}
}

static void on_proc_exec(struct kqueue *kq, uint32_t tgid)
{
	struct knote *kn = proc_knote(kq, tgid);
	if (!kn || !(kn->sfflags & NOTE_EXEC))
		return;
	((struct pstate *)kn->fstate)->notes |= NOTE_EXEC;
	kq_activate(kq, kn);
}

static void on_proc_exit(struct kqueue *kq, uint32_t pid, uint32_t tgid, uint32_t code)
{
	if (pid != tgid)
		return;
	struct knote *kn = proc_knote(kq, tgid);
	if (kn && ((struct pstate *)kn->fstate)->pidfd < 0)
		proc_exited(kq, kn, code);
}

static void connector_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	struct kq_procs *p = kq->procs;
	if (!p || p->cnfd < 0)
		return;
	union {
		struct nlmsghdr h;
		char b[8192];
	} buf;
	for (;;) {
		long n = KQ_SYSCALL(SYS_recvfrom, p->cnfd, &buf, sizeof buf, 0, NULL, NULL);
		if (n <= 0) {
			if (n == -ENOBUFS)
				continue;   /* overrun: events lost (documented) */
			return;
		}
		for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			struct cn_msg cn;
			memcpy(&cn, NLMSG_DATA(h), sizeof cn);
			if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
				continue;
			/* the payload is not aligned for its 64-bit fields */
			struct proc_event pe;
			memset(&pe, 0, sizeof pe);
			memcpy(&pe, (char *)NLMSG_DATA(h) + sizeof cn,
			       cn.len < sizeof pe ? cn.len : sizeof pe);
			struct proc_event *ev = &pe;
			switch (ev->what) {
			case PROC_EVENT_FORK:
				on_proc_fork(kq, ev->event_data.fork.parent_tgid,
					ev->event_data.fork.child_pid,
					ev->event_data.fork.child_tgid);
				break;
			case PROC_EVENT_EXEC:
				on_proc_exec(kq, ev->event_data.exec.process_tgid);
				break;
			case PROC_EVENT_EXIT:
				on_proc_exit(kq, ev->event_data.exit.process_pid,
					ev->event_data.exit.process_tgid,
					ev->event_data.exit.exit_code);
				break;
			default:
				break;
			}
			if (!kq->procs || kq->procs->cnfd < 0)
				return;   /* the last knote needing it went */
		}
	}
}

/* ---- the filter ---- */

/* Releases what proc_setup() acquired, however far it got. */
static void proc_release(struct kqueue *kq, struct knote *kn)
{
	struct pstate *st = kn->fstate;
	struct kq_procs *p = kq->procs;
	if (!st)
		return;
	pidfd_close(kq, st);
	if (p && st->slot != NO_SLOT && p->slots[st->slot] == kn) {
		p->slots[st->slot] = NULL;
		p->gens[st->slot]++;
	}
	if (p && st->cnref)
		connector_unref(kq, p);
	if (st->chldref)
		kq_signal_release_chld(kq);
	free(st);
	kn->fstate = NULL;
}

static int proc_setup(struct kqueue *kq, struct knote *kn, bool tracked)
{
	struct kq_procs *p;
	int err = procs_get(kq, &p);
	if (err)
		return err;
	struct pstate *st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	st->pidfd = -1;
	st->slot = NO_SLOT;
	kn->fstate = st;
	kn->flags |= EV_CLEAR;
	if (kn->ident == 0 || kn->ident > INT32_MAX) {
		err = -ESRCH;
		goto fail;
	}
	if (kn->sfflags & NEEDS_CONNECTOR) {
		err = connector_ref(kq, p);
		if (err)
			goto fail;
		st->cnref = true;
	}
	err = slot_alloc(p, kn, &st->slot);
	if (err) {
		st->slot = NO_SLOT;
		goto fail;
	}
	int fd = atomic_load_explicit(&pidfd_refused, memory_order_relaxed) ? -ENOSYS
		 : (int)KQ_SYSCALL(SYS_pidfd_open, (pid_t)kn->ident, 0);
	if (fd < 0 && sys_refused(fd))
		atomic_store_explicit(&pidfd_refused, true, memory_order_relaxed);
	if (fd < 0) {
		/* a tracked child may already be gone: the connector's exit
		 * event (still to be read) will report it; without pidfds
		 * that event reports every tracked child's exit */
		if (tracked)
			return 0;
		err = sys_refused(fd) ? proc_setup_nopidfd(kq, p, kn) : fd;
		if (err)
			goto fail;
		return 0;
	}
	st->pidfd = fd = kq_fd_own(fd);   /* out of the program's way */
	err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLET,
			    tag_of(p, st->slot));
	if (err)
		goto fail;
	/* already a zombie (or reaped meanwhile): report it now */
	int pr = sys_poll1(fd, POLLIN);
	int64_t status;
	if (pr > 0 && exit_status(fd, (uint32_t)pr, &status)) {
		st->exited = true;
		st->status = status;
		st->notes |= kn->sfflags & NOTE_EXIT;
		pidfd_close(kq, st);
	}
	return 0;
fail:
	proc_release(kq, kn);
	return err;
}

static int proc_attach(struct kqueue *kq, struct knote *kn)
{
	return proc_setup(kq, kn, false);
}

static void proc_detach(struct kqueue *kq, struct knote *kn)
{
	proc_release(kq, kn);
}

/* NOTE_TRACK: a knote for a new child, as if the program had added it. */
static int proc_new_knote(struct kqueue *kq, struct knote *parent, uint32_t child)
{
	struct knote *kn = kq_knote_alloc(kq);
	if (!kn)
		return -ENOMEM;
	kn->ident = child;
	kn->filter = EVFILT_PROC;
	kn->sfflags = parent->sfflags;
	kn->udata = parent->udata;
	kn->flags = parent->flags & ~(EV_EOF | EV_ONESHOT | EV_ERROR);
	int err = kq_link(kq, kn, false);
	if (err) {
		kq_knote_free(kq, kn);
		return err;
	}
	err = proc_setup(kq, kn, true);
	if (err) {
		kq_unlink(kq, kn, false);
		kq_knote_free(kq, kn);
		return err;
	}
	struct pstate *st = kn->fstate;
	st->child_pending = true;
	st->ppid = (int64_t)parent->ident;
	kq_activate(kq, kn);
	return 0;
}

static int proc_event(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	struct pstate *st = kn->fstate;
	st->reported_child = st->child_pending;
	kn->flags &= ~(EV_EOF | EV_ONESHOT);
	if (st->child_pending) {
		/* FreeBSD gives the NOTE_CHILD record a knote of its own,
		 * registered EV_ONESHOT, and its record says so; here the
		 * knote lives on (proc_delivered takes the flag back) */
		kn->flags |= EV_ONESHOT;
		kn->fflags = NOTE_CHILD;
		kn->data = st->ppid;
		return 1;
	}
	kn->fflags = st->notes | (st->trackerr ? NOTE_TRACKERR : 0);
	kn->data = (st->notes & NOTE_EXIT) ? st->status : 0;
	if (st->exited)
		kn->flags |= EV_EOF | EV_ONESHOT;
	return kn->fflags != 0;
}

static void proc_delivered(struct kqueue *kq, struct knote *kn)
{
	struct pstate *st = kn->fstate;
	if (st->reported_child) {
		kn->flags &= ~EV_ONESHOT;
		st->child_pending = false;
		if (st->notes || st->trackerr)
			kq_activate(kq, kn);
		else if (st->exited)
			kn->flags |= EV_ONESHOT;   /* nothing more will come */
		return;
	}
	st->notes = 0;
	st->trackerr = false;
}

static int proc_arm(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	struct pstate *st = kn->fstate;
	/* an EV_DROP knote must reach a scan to be removed (e.g. on enable) */
	return (st->notes || st->child_pending || st->trackerr ||
		(kn->flags & EV_DROP)) ? 0 : 1;
}

static void proc_fini(struct kqueue *kq)
{
	struct kq_procs *p = kq->procs;
	if (!p)
		return;
	kq_fd_own_close(p->cnfd);
	free(p->slots);
	free(p->gens);
	free(p);
	kq->procs = NULL;
}

static void proc_forget(struct kqueue *kq)
{
	struct kq_procs *p = kq->procs;
	if (!p)
		return;
	kq_fd_own_close(p->cnfd);
	for (uint32_t i = 0; i < p->nslots; i++) {
		struct knote *kn = p->slots[i];
		struct pstate *st = kn ? kn->fstate : NULL;
		if (st && st->pidfd >= 0)
			kq_fd_own_close(st->pidfd);
	}
}

const struct filterops kq_proc_filtops = {
	.isfd = false,
	.attach = proc_attach,
	.detach = proc_detach,
	.event = proc_event,
	.arm = proc_arm,
	.delivered = proc_delivered,
	.fini = proc_fini,
	.forget = proc_forget,
};

const struct kq_source kq_pidfd_source = { .report = pidfd_report };
const struct kq_source kq_proccn_source = { .report = connector_report };
