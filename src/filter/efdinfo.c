/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An eventfd's counter, which FreeBSD reports as the `data` of READ and
 * WRITE knotes on it.  Linux lets a process read the counter without
 * consuming it in one place only: the "eventfd-count:" line of
 * /proc/<pid>/fdinfo/N.  Opening, reading and closing that file costs about
 * 6 us; a program whose wake-ups go through an eventfd (an event loop's or
 * a messaging library's mailbox) pays it on every wake-up.
 *
 * So a kqueue keeps the fdinfo file of a few eventfd numbers open and reads
 * it again with pread() at offset 0 (about 1 us): a proc fdinfo file is
 * generated anew at each read from the start, and speaks for whatever the
 * number names at that moment, exactly as a fresh open would.  An entry
 * lasts while its number has knotes in the kqueue (fd_detach drops it with
 * the last one, which a close of the number also removes), so the
 * descriptors kept never outnumber the eventfds being watched, plus one,
 * and at most EFDINFO_MAX per kqueue; beyond that the file is opened per
 * read.  The kept files are libkq's own (kq_fd_own(), hide.c): high among
 * the program's numbers and marked, so the program's close() of one is
 * EBADF, closefrom() skips it and dup2() onto it moves it (move.c,
 * kq_efdinfo_renumber()).  Every entry also remembers which file it
 * opened: a raw close the program made (a close_range system call) and a
 * reuse of the number make the next pread() fail or not parse (pread()
 * consumes nothing from an eventfd, timerfd, pipe or socket: they refuse
 * it), and the entry is forgotten without closing what is no longer ours.
 *
 * The plus one: at the descriptor limit no fdinfo file can be opened, and
 * the count would be lost for an eventfd whose file no kqueue holds yet.
 * So while any kqueue holds entries the process holds a spare descriptor
 * (an fdinfo file too, of no use in itself; one for all kqueues), closed
 * just before an open that failed with EMFILE or ENFILE is tried again;
 * the file that open gives becomes the new spare.  Another thread may take
 * the freed number first: that open then fails as before.  The spare is
 * one atomic word (its number and its file's inode), so kqueues, each
 * under its own lock, take it with an exchange and put a file back with a
 * compare-and-swap from none; whoever took it out of the word alone may
 * close it.  Hidden high, the spare would free nothing an open may take
 * once the program lowers RLIMIT_NOFILE below it (to reach EMFILE, say):
 * libkq's setrlimit() and prlimit() (libc/rlimit.c) then move it under the
 * new limit (kq_efdinfo_limit_changed(); a raw prlimit64 system call, or
 * another process's prlimit() on this one, is not seen).
 *
 * Which /proc directory: an open fdinfo file answers only while the
 * thread it was opened through lives (the file belongs to that task's
 * directory).  /proc/thread-self (Linux 3.17) names the calling thread,
 * which may end soon (a pool's worker); /proc/self names the thread-group
 * leader, which lives as long as the process unless the program ended its
 * main thread with pthread_exit(), after which /proc/self/fd and fdinfo
 * are empty.  So files kept open come from /proc/self while that works and
 * from /proc/thread-self after; one-off lookups (the rest of the library,
 * kq_procfs_self()) prefer /proc/thread-self.  A kept file that stops
 * answering is forgotten and opened again like a reused number.  Without
 * /proc the counter cannot be read at all: see man/kevent.2.
 */
#include "../kq.h"
#include "../sys.h"
#include "fdkind.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define EFDINFO_MAX 16

struct efdinfo_ent {
	int   fd;      /* the eventfd's number */
	int   info;    /* its /proc fdinfo file, open */
	dev_t dev;     /* ... which is this file */
	ino_t ino;
};

struct kq_efdinfo {
	unsigned           n;
	struct efdinfo_ent e[EFDINFO_MAX];
};

/* The process's spare (see the top): 0 for none, else its number plus one
 * in the low half and the low half of its file's inode number in the high
 * half (proc inode numbers are 32 bits wide).  Made while `kept`, the
 * entries of all kqueues, is not 0. */
static _Atomic uint64_t spare;
static atomic_uint kept;
/* the device of /proc, which the spare's file is on */
static _Atomic unsigned long long proc_dev;

/* "/proc/thread-self", or "/proc/self" on kernels without it (before
 * 3.17): where one-off lookups of a descriptor by path go (filter/fdkind.c,
 * filter/vnode.c, which declare it). */
const char *kq_procfs_self(void);
const char *kq_procfs_self(void)
{
	/* 1: /proc/thread-self exists; 0: only /proc/self (Linux < 3.17);
	 * -1: not known yet (no /proc seen so far, which may change) */
	static atomic_int tself = -1;
	int v = atomic_load_explicit(&tself, memory_order_relaxed);
	if (v < 0) {
		struct stat st;
		int e = errno;
		if (lstat("/proc/thread-self", &st) == 0)
			v = 1;
		else if (lstat("/proc/self", &st) == 0)
			v = 0;
		errno = e;
		if (v < 0)
			return "/proc/thread-self";
		atomic_store_explicit(&tself, v, memory_order_relaxed);
	}
	return v ? "/proc/thread-self" : "/proc/self";
}

/* fd's fdinfo file, opened (see the top for which): a descriptor or
 * -errno. */
static int open_info(int fd)
{
	char path[48];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	int f = sys_open_ro(path);
	if (f == -ENOENT) {   /* the leader has exited (or no /proc at all) */
		snprintf(path, sizeof path, "/proc/thread-self/fdinfo/%d", fd);
		int g = sys_open_ro(path);
		if (g != -ENOENT)
			f = g;
	}
	return f;
}

/* The counter from an fdinfo text of n bytes in buf (which has room for a
 * terminating NUL), or -EIO.  The kernel writes it in hex, padded with
 * spaces ("eventfd-count: %16llx").  Parsed by hand: sscanf() cost five
 * times the search for the line, on every record. */
static int parse_count(char *buf, long n, uint64_t *out)
{
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	const char *p = strstr(buf, "eventfd-count:");
	if (!p)
		return -EIO;
	p += 14;
	while (*p == ' ' || *p == '\t')
		p++;
	uint64_t v = 0;
	int digits = 0;
	for (;; p++, digits++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f')
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		else
			break;
		if (digits == 16)
			return -EIO;   /* more than 64 bits: not this format */
		v = v << 4 | d;
	}
	if (!digits)
		return -EIO;
	*out = v;
	return 0;
}

/* Whether descriptor f is the file dev and ino name. */
static bool same_file(int f, dev_t dev, ino_t ino)
{
	struct stat st;
	return sys_fstat(f, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
}

/* Whether the entry's descriptor is still the file it opened. */
static bool still_ours(const struct efdinfo_ent *e)
{
	return same_file(e->info, e->dev, e->ino);
}

/* f, an fdinfo file just opened, moved out of the program's way and
 * marked (kq_fd_own()): its number, *st its file; or -1 if the program's
 * dup2() took the number before the mark (which closed ours). */
static int own_file(int f, struct stat *st)
{
	if (sys_fstat(f, st) != 0) {
		sys_close(f);
		return -1;
	}
	f = kq_fd_own(f);
	if (same_file(f, st->st_dev, st->st_ino))
		return f;
	kq_fdtab_unhide(f);   /* the program's file */
	return -1;
}

static int spare_fd(uint64_t v)
{
	return (int)(uint32_t)v - 1;
}

/* Whether descriptor f is the spare file v names. */
static bool spare_file(int f, uint64_t v)
{
	struct stat st;
	return sys_fstat(f, &st) == 0 && (uint32_t)st.st_ino == (uint32_t)(v >> 32) &&
	       (unsigned long long)st.st_dev == atomic_load(&proc_dev);
}

/* Closes spare v, which the caller took out of `spare`: only while its
 * number still names that file (a raw close and a reuse of the number
 * make it the program's). */
static void spare_close(uint64_t v)
{
	if (v && spare_file(spare_fd(v), v))
		kq_fd_own_close(spare_fd(v));
}

/* f, a new fdinfo file, made the spare if there is none (hidden, when a
 * number is free up there); closed otherwise. */
static void spare_put(int f)
{
	struct stat st;
	if ((f = own_file(f, &st)) < 0)
		return;
	atomic_store(&proc_dev, (unsigned long long)st.st_dev);
	uint64_t none = 0, v = (uint64_t)(uint32_t)st.st_ino << 32 | (uint32_t)(f + 1);
	if (!atomic_compare_exchange_strong(&spare, &none, v))
		kq_fd_own_close(f);
}

/* Gives the process its spare if it has none. */
static void spare_make(int fd)
{
	if (atomic_load(&spare))
		return;
	int f = open_info(fd);
	if (f >= 0)
		spare_put(f);
}

/* The last entry of all went: so does the spare, unless an entry came
 * meanwhile (its kqueue found the spare there and made none). */
static void spare_drop(void)
{
	uint64_t v = atomic_exchange(&spare, 0), none = 0;
	if (!v || (atomic_load(&kept) && atomic_compare_exchange_strong(&spare, &none, v)))
		return;
	spare_close(v);
}

static int count_uncached(int fd, uint64_t *out)
{
	char buf[512];
	int f = open_info(fd);
	uint64_t v = 0;
	if (f == -EMFILE || f == -ENFILE) {
		v = atomic_exchange(&spare, 0);
		if (v) {
			spare_close(v);
			f = open_info(fd);
		}
	}
	if (f < 0)
		return f;
	long n = KQ_SYSCALL(SYS_pread64, f, buf, sizeof buf - 1, 0);
	if (v)
		spare_put(f);
	else
		sys_close(f);
	return parse_count(buf, n, out);
}

/* The index of fd's entry, or -1. */
static int find(const struct kq_efdinfo *c, int fd)
{
	for (unsigned i = 0; c && i < c->n; i++)
		if (c->e[i].fd == fd)
			return (int)i;
	return -1;
}

/* Drops entry i, closing its descriptor only while that is still ours;
 * the spare goes with the last entry of the process. */
static void forget(struct kq_efdinfo *c, unsigned i)
{
	if (still_ours(&c->e[i]))
		kq_fd_own_close(c->e[i].info);
	c->e[i] = c->e[--c->n];
	if (atomic_fetch_sub(&kept, 1) == 1)
		spare_drop();
}

/* A new entry for fd, or NULL when the table is full or the open failed. */
static struct efdinfo_ent *open_entry(struct kqueue *kq, int fd)
{
	struct kq_efdinfo *c = kq->efdinfo;
	if (!c && !(c = kq->efdinfo = calloc(1, sizeof *c)))
		return NULL;
	if (c->n == EFDINFO_MAX)
		return NULL;
	struct stat st;
	int f = open_info(fd);
	if (f < 0 || (f = own_file(f, &st)) < 0)
		return NULL;
	struct efdinfo_ent *e = &c->e[c->n++];
	*e = (struct efdinfo_ent){ fd, f, st.st_dev, st.st_ino };
	atomic_fetch_add(&kept, 1);
	spare_make(fd);
	return e;
}

int kq_eventfd_count(struct kqueue *kq, int fd, uint64_t *out)
{
	int i = find(kq->efdinfo, fd);
	struct efdinfo_ent *e = i >= 0 ? &kq->efdinfo->e[i] : open_entry(kq, fd);
	if (!e)
		return count_uncached(fd, out);
	char buf[512];
	long n = KQ_SYSCALL(SYS_pread64, e->info, buf, sizeof buf - 1, 0);
	if (parse_count(buf, n, out) == 0)
		return 0;
	/* the eventfd's number closed behind our back, or ours was, or the
	 * thread the file was opened through is gone (see the top) */
	struct kq_efdinfo *c = kq->efdinfo;
	forget(c, (unsigned)(e - c->e));
	return count_uncached(fd, out);
}

void kq_efdinfo_drop(struct kqueue *kq, int fd)
{
	int i = find(kq->efdinfo, fd);
	if (i >= 0)
		forget(kq->efdinfo, (unsigned)i);
}

/* Closes every entry's descriptor (those still ours: see the top); frees the
 * table too unless this is a fork child abandoning the kqueue. */
void kq_efdinfo_fini(struct kqueue *kq, bool free_it)
{
	struct kq_efdinfo *c = kq->efdinfo;
	if (!c)
		return;
	while (c->n)
		forget(c, c->n - 1);
	if (free_it) {
		free(c);
		kq->efdinfo = NULL;
	}
}

/* move.c, under kq->lock and every other kqueue's: an entry's file now at
 * new too.  Only if new is that file: the mover copied the number before
 * it took the locks, and the entry there may have been made anew since
 * (it then copies it again). */
bool kq_efdinfo_renumber(struct kqueue *kq, int old, int new)
{
	struct kq_efdinfo *c = kq->efdinfo;
	for (unsigned i = 0; c && i < c->n; i++) {
		struct efdinfo_ent *e = &c->e[i];
		if (e->info != old)
			continue;
		if (!same_file(new, e->dev, e->ino))
			return false;
		e->info = new;
		return true;
	}
	return false;
}

/* The same for the spare, under the same locks, so no kqueue has taken
 * it; a limit's move (below) may race, hence the compare-and-swap. */
bool kq_efdinfo_spare_renumber(int old, int new)
{
	uint64_t v = atomic_load(&spare);
	if (!v || spare_fd(v) != old || !spare_file(new, v))
		return false;
	uint64_t nv = (v & ~UINT64_C(0xffffffff)) | (uint32_t)(new + 1);
	return atomic_compare_exchange_strong(&spare, &v, nv);
}

/* The spare to a number under the soft limit, if it is not: true when
 * there is nothing (more) to do. */
static bool spare_under(void)
{
	uint64_t v = atomic_load(&spare);
	struct rlimit rl;
	int s = spare_fd(v);
	if (!v || getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (rlim_t)s)
		return true;
	int n = kq_fd_dup_high(s);
	if (n < 0 || n > s) {
		kq_fd_own_close(n);
		return true;   /* no number free under the limit */
	}
	if (!spare_file(n, v)) {
		/* not the spare's file: the program closed it (raw) and has
		 * the number now; the spare is forgotten, nothing closed */
		kq_fd_own_close(n);
		atomic_compare_exchange_strong(&spare, &v, 0);
		return true;
	}
	uint64_t nv = (v & ~UINT64_C(0xffffffff)) | (uint32_t)(n + 1);
	if (atomic_compare_exchange_strong(&spare, &v, nv)) {
		kq_fd_own_close(s);
		return true;
	}
	kq_fd_own_close(n);   /* a kqueue took it meanwhile: look again */
	return false;
}

/*
 * libc/rlimit.c, after the program changed RLIMIT_NOFILE: the spare moves
 * under a soft limit lowered to or below its number, where closing it
 * frees a number an open may take.  Async-signal-safe: system calls and
 * atomics, and the move lock (one move of libkq's numbers at a time, as
 * move.c's) with signals blocked.  A signal handler whose thread is
 * inside a kevent() only tries that lock: a move in progress may be
 * waiting for that very kevent().  No spare, no system call.
 */
void kq_efdinfo_limit_changed(void)
{
	if (!atomic_load_explicit(&spare, memory_order_relaxed))
		return;
	int e = errno;
	bool inside = kq_held_self()->n != 0;
	sigset_t old;
	kq_signals_block(&old);
	if (inside ? kq_move_trylock() : (kq_move_lock(), true)) {
		for (int tries = 0; tries < 8 && !spare_under(); tries++)
			;
		kq_move_unlock();
	}
	kq_signals_restore(&old);
	errno = e;
}
