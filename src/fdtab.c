/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-process facts about descriptor numbers, read without locks on the hot
 * paths of close() and kevent(): which kqueue (if any) a number is, how many
 * kqueue fd slots hold knotes on it, and a socket error libkq consumed on the
 * program's behalf.
 *
 * Two levels of 4096 entries cover 2^24 descriptors; second-level pages are
 * allocated on first use and never freed, so a reader holding a page pointer
 * is always safe.  They are mapped with a raw mmap(), not malloc'ed: the
 * first socket() or dup2() at a number in a new block of 4096 makes one,
 * and those calls are async-signal-safe (a handler may interrupt malloc()).
 */
#include "kq.h"
#include "sys.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE_BITS 12
#define PAGE_SIZE_ENTRIES (1u << PAGE_BITS)
#define NPAGES 4096u

/* 32 bytes per descriptor number: this table has an entry for every number
 * that ever had a knote, so it counts in the memory a knote costs. */
struct fdent {
	/* Which kqueues hold the number (an fd slot with knotes or a parked
	 * entry): one bit per kqueue id (kqueue.c), and how many in all, so
	 * close() visits only those kqueues when every holder has an id. */
	atomic_ullong kqs;
	atomic_ullong sockerr;   /* a stashed socket error, see below */
	atomic_int interest;
	atomic_uint birth;   /* see "Births" below */
	atomic_uint rxwatch; /* datagram rechecks on the number (filter/dgram.c) */
	atomic_uint rx;      /* receives made on it while watched */
};
_Static_assert(sizeof(struct fdent) == 32, "the memory a knote costs");

static _Atomic(struct fdent *) pages[NPAGES];
/* Which numbers are kqueues: few, so a separate table, by the same pages
 * (kq.h reads it inline: every kevent() starts there). */
_Atomic(_Atomic(struct kqueue *) *) kq_fdtab_kqpages[KQ_FDTAB_PAGES];
#define kqpages kq_fdtab_kqpages
_Static_assert(KQ_FDTAB_PAGES == NPAGES && KQ_FDTAB_PAGE_BITS == PAGE_BITS,
	       "kq.h's view of the kqueue table");

/* Zeroed memory for a page, or NULL. */
static void *page_new(size_t size)
{
	long p = KQ_SYSCALL(SYS_mmap, NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return (p < 0 && p > -4096) ? NULL : (void *)p;
}

static void page_free(void *p, size_t size)
{
	KQ_SYSCALL(SYS_munmap, p, size);
}

/* 1 + the highest number an entry was made for (ent() or kqent() with
 * create): every entry above holds nothing, since only those calls make an
 * entry hold something.  A fork child clears the entries below only:
 * reading the rest of a table page faulted in pages nobody had touched, in
 * every fork child. */
static atomic_int ent_top, kqent_top;

static void note_top(atomic_int *top, int fd)
{
	int t = atomic_load_explicit(top, memory_order_relaxed);
	while (fd >= t && !atomic_compare_exchange_weak_explicit(top, &t, fd + 1,
								 memory_order_release,
								 memory_order_relaxed))
		;
}

/* Which blocks of BLOCK entries of each table page have had an entry made
 * (ent() or kqent() with create), one bit per block: every entry of the
 * other blocks holds nothing, and the scans (kq_fdtab_next_busy(),
 * kq_fdtab_forget_all()) skip them.  Reading them was not free: a table
 * page is mapped whole but its memory only where written, so each read of
 * an untouched 4 KiB faulted in a page of zeros, and a fork child's
 * closefrom() took 30 such faults (95 us against glibc's 8).  An fdent
 * block is one such page; the kqueue table's blocks are smaller than that,
 * and share the numbering. */
#define BLOCK_BITS 7
_Static_assert(PAGE_SIZE_ENTRIES >> BLOCK_BITS == 32, "one word of blocks per page");
static atomic_uint ent_blocks[NPAGES], kq_blocks[NPAGES];

static void note_block(atomic_uint *blocks, int fd)
{
	atomic_uint *w = &blocks[(unsigned)fd >> PAGE_BITS];
	unsigned bit = 1u << (((unsigned)fd & (PAGE_SIZE_ENTRIES - 1)) >> BLOCK_BITS);
	if (!(atomic_load_explicit(w, memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(w, bit, memory_order_release);
}

/* The blocks of page p that may hold something. */
static unsigned page_blocks(unsigned p)
{
	return atomic_load_explicit(&ent_blocks[p], memory_order_acquire) |
	       atomic_load_explicit(&kq_blocks[p], memory_order_acquire);
}

static struct fdent *ent(int fd, bool create)
{
	if (fd < 0)
		return NULL;
	unsigned p = (unsigned)fd >> PAGE_BITS;
	if (p >= NPAGES)
		return NULL;
	struct fdent *pg = atomic_load_explicit(&pages[p], memory_order_acquire);
	if (!pg) {
		if (!create)
			return NULL;
		struct fdent *n = page_new(PAGE_SIZE_ENTRIES * sizeof *n);
		if (!n)
			return NULL;
		struct fdent *expect = NULL;
		if (atomic_compare_exchange_strong(&pages[p], &expect, n))
			pg = n;
		else {
			page_free(n, PAGE_SIZE_ENTRIES * sizeof *n);
			pg = expect;
		}
	}
	if (create) {
		note_block(ent_blocks, fd);
		note_top(&ent_top, fd);
	}
	return &pg[(unsigned)fd & (PAGE_SIZE_ENTRIES - 1)];
}

static _Atomic(struct kqueue *) *kqent(int fd, bool create)
{
	if (fd < 0)
		return NULL;
	unsigned p = (unsigned)fd >> PAGE_BITS;
	if (p >= NPAGES)
		return NULL;
	_Atomic(struct kqueue *) *pg = atomic_load_explicit(&kqpages[p], memory_order_acquire);
	if (!pg) {
		if (!create)
			return NULL;
		_Atomic(struct kqueue *) *n = page_new(PAGE_SIZE_ENTRIES * sizeof *n);
		if (!n)
			return NULL;
		_Atomic(struct kqueue *) *expect = NULL;
		if (atomic_compare_exchange_strong(&kqpages[p], &expect, n))
			pg = n;
		else {
			page_free(n, PAGE_SIZE_ENTRIES * sizeof *n);
			pg = expect;
		}
	}
	if (create) {
		note_block(kq_blocks, fd);
		note_top(&kqent_top, fd);
	}
	return &pg[(unsigned)fd & (PAGE_SIZE_ENTRIES - 1)];
}

/* A number that becomes a kqueue is no socket, whatever a close libkq did
 * not see left in its birth (filter/fd.c trusts a birth to rule out a
 * kqueue). */
void kq_fdtab_set_kq(int fd, struct kqueue *kq)
{
	if (kq)
		kq_fdtab_forget_birth(fd);
	_Atomic(struct kqueue *) *e = kqent(fd, kq != NULL);
	if (e)
		atomic_store_explicit(e, kq, memory_order_release);
}

/* The kqueue table also says which numbers libkq holds for itself
 * (hide.c): an odd value, which kq_fdtab_kq() reads as no kqueue, and
 * kq_fdtab_busy() as busy, so close() leaves its fast path for them. */
#define HIDDEN ((struct kqueue *)(uintptr_t)1)

void kq_fdtab_hide(int fd)
{
	_Atomic(struct kqueue *) *e = kqent(fd, true);
	if (e)
		atomic_store_explicit(e, HIDDEN, memory_order_release);
}

void kq_fdtab_unhide(int fd)
{
	_Atomic(struct kqueue *) *e = kqent(fd, false);
	struct kqueue *h = HIDDEN;
	if (e)
		atomic_compare_exchange_strong(e, &h, NULL);
}

bool kq_fdtab_hidden(int fd)
{
	_Atomic(struct kqueue *) *e = kqent(fd, false);
	return e && atomic_load_explicit(e, memory_order_acquire) == HIDDEN;
}

/* Called under kq->lock, whose (kq, fd) slot goes from unused to used
 * (+1) or back (-1): so a kqueue's bit is set and cleared in turn. */
static void interest_add(struct kqueue *kq, struct fdent *e, int delta)
{
	if (kq->id >= 0) {
		unsigned long long bit = 1ull << kq->id;
		if (delta > 0)
			atomic_fetch_or(&e->kqs, bit);
		else
			atomic_fetch_and(&e->kqs, ~bit);
	}
	atomic_fetch_add(&e->interest, delta);
}

void kq_fdtab_interest(struct kqueue *kq, int fd, int delta)
{
	struct fdent *e = ent(fd, true);
	if (e)
		interest_add(kq, e, delta);
}

int kq_fdtab_interest_of(int fd)
{
	struct fdent *e = ent(fd, false);
	return e ? atomic_load_explicit(&e->interest, memory_order_acquire) : 0;
}

/* How many kqueues hold fd, and in *ids the ids of those that have one:
 * fewer bits than holders means a holder has no id (more than KQ_IDS
 * kqueues live), and every kqueue must be looked at. */
int kq_fdtab_holders(int fd, unsigned long long *ids)
{
	struct fdent *e = ent(fd, false);
	*ids = e ? atomic_load_explicit(&e->kqs, memory_order_acquire) : 0;
	return e ? atomic_load_explicit(&e->interest, memory_order_acquire) : 0;
}

/*
 * A stashed socket error (filter/fd.c read SO_ERROR, which clears it in the
 * kernel) belongs to one socket: the one whose inode it was read from.  A
 * close libkq did not see would otherwise hand it to the next socket given
 * the number, so every use checks the socket now at the number (one fstat,
 * only when a stash exists).  The error and the inode share one word, so a
 * stash is made, taken and checked with single atomic operations: no lock,
 * no allocation and no signal mask, though a read() in a signal handler
 * may come here.  Socket inodes are numbered by a 32-bit counter in Linux
 * (sockfs), so the inode's low half names its socket.
 */
#define STASH_ERR(v) ((int)(uint32_t)(v))
#define STASH_INO(v) ((uint32_t)((v) >> 32))

/* Entries with a stash: the socket calls' fast path reads it without
 * looking at any entry (kq_fdtab_any_error).  Counted when an entry's word
 * goes from zero to not or back, which the exchanges below tell. */
static _Atomic unsigned nstash;

static uint64_t inode_of(int fd)
{
	struct stat st;
	return sys_fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Empties e's stash; returns what it held. */
static uint64_t stash_clear(struct fdent *e)
{
	uint64_t v = atomic_exchange(&e->sockerr, 0);
	if (v)
		atomic_fetch_sub_explicit(&nstash, 1, memory_order_relaxed);
	return v;
}

/* Whether the stash v was left by the socket now at fd. */
static bool stash_mine(uint64_t v, int fd)
{
	uint64_t ino = inode_of(fd);
	return ino && STASH_INO(v) == (uint32_t)ino;
}

void kq_fdtab_stash_error(int fd, int err)
{
	struct fdent *e = ent(fd, true);
	uint64_t ino = inode_of(fd);
	if (!e || !ino || err <= 0)
		return;
	/* a socket keeps one error: the newer one */
	uint64_t v = (uint64_t)(uint32_t)ino << 32 | (uint32_t)err;
	if (!atomic_exchange(&e->sockerr, v))
		atomic_fetch_add_explicit(&nstash, 1, memory_order_relaxed);
}

/* The stashed error of the socket at fd, or 0; a stash left by another
 * socket that had the number is discarded. */
int kq_fdtab_peek_error(int fd)
{
	struct fdent *e = ent(fd, false);
	uint64_t v = e ? atomic_load(&e->sockerr) : 0;
	if (v && !stash_mine(v, fd)) {
		kq_fdtab_clear(fd);
		return 0;
	}
	return STASH_ERR(v);
}

int kq_fdtab_take_error(int fd)
{
	struct fdent *e = ent(fd, false);
	if (!e || !atomic_load_explicit(&e->sockerr, memory_order_relaxed))
		return 0;
	uint64_t v = stash_clear(e);
	return v && stash_mine(v, fd) ? STASH_ERR(v) : 0;
}

/* Whether fd's entry holds an error (maybe another socket's, left by a
 * close libkq did not see): lock-free, for the read calls. */
bool kq_fdtab_error_kept(int fd)
{
	struct fdent *e = ent(fd, false);
	return e && atomic_load_explicit(&e->sockerr, memory_order_relaxed) != 0;
}

/*
 * Receives on watched datagram sockets.  filter/dgram.c reminds a program
 * of datagrams still queued after a record only when the program has
 * received from the socket since (it read what the record said and waits
 * for the next), and Linux gives no figure that changes when a datagram is
 * taken.  So the libc layer's receive calls count, on numbers watched so;
 * while none is, that costs them one relaxed load.
 */
static atomic_uint nrxwatch;

void kq_fdtab_rx_watch(int fd, int delta)
{
	struct fdent *e = ent(fd, delta > 0);
	if (!e)
		return;
	atomic_fetch_add_explicit(&e->rxwatch, (unsigned)delta, memory_order_relaxed);
	atomic_fetch_add_explicit(&nrxwatch, (unsigned)delta, memory_order_relaxed);
}

bool kq_fdtab_rx_any(void)
{
	return atomic_load_explicit(&nrxwatch, memory_order_relaxed) != 0;
}

/* A receive on fd (not a peek).  Racing receives may count once: only a
 * change of the figure matters. */
void kq_fdtab_rx_note(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e && atomic_load_explicit(&e->rxwatch, memory_order_relaxed))
		atomic_store_explicit(&e->rx, atomic_load_explicit(&e->rx, memory_order_relaxed) + 1,
				      memory_order_relaxed);
}

unsigned kq_fdtab_rx(int fd)
{
	struct fdent *e = ent(fd, false);
	return e ? atomic_load_explicit(&e->rx, memory_order_relaxed) : 0;
}

/* Whether any socket has a stashed error: the socket calls' fast path. */
bool kq_fdtab_any_error(void)
{
	return atomic_load_explicit(&nstash, memory_order_relaxed) != 0;
}

void kq_fdtab_clear(int fd)
{
	struct fdent *e = ent(fd, false);
	if (!e)
		return;
	atomic_store_explicit(&e->birth, 0, memory_order_relaxed);
	stash_clear(e);
}

/*
 * Births.  A socket made by libkq's socket(), socketpair(), accept() or
 * accept4() (libc/births.c) is known from the call's arguments: its kind is
 * kept here, so its first knote needs no getsockopt to classify it.  It is
 * also known to have the default SO_RCVLOWAT until libkq's setsockopt()
 * sets it, and to be the only descriptor of its file ("private") until
 * something may have copied it: a dup (dup, dup2, dup3, fcntl F_DUPFD), a
 * descriptor sent in SCM_RIGHTS, or a child (the epoch below).  Closing a
 * private descriptor frees its file, and the kernel then removes the file's
 * epoll entries by itself: libkq skips its EPOLL_CTL_DEL (kqueue.c).
 *
 * A close libkq does not see (a raw system call, fclose() of a FILE made
 * with fdopen()) leaves a birth on the number; if another kind of file gets
 * the number, the first knote takes it for the socket.  The filter
 * classifies again in full when the descriptor behaves as no such socket
 * can (filter/fd.c, reclassify()).
 */
#define BIRTH_KIND    0xffu
#define BIRTH_PRIVATE 0x100u
#define BIRTH_LOWAT   0x200u   /* SO_RCVLOWAT was set: read it */
#define BIRTH_EPOCH_SHIFT 10
#define EPOCH_MASK (~0u >> BIRTH_EPOCH_SHIFT)

/*
 * Children.  Every child libkq sees being made (fork, vfork, posix_spawn,
 * system, popen: kq_fdtab_child_begin/end) copies the descriptor table when
 * the kernel clones it, so no birth from before that clone is private after
 * it.  The epoch moves at both ends of a making, and `making` counts those
 * under way: a birth reads the epoch before its system call makes the
 * descriptor, so a birth is private only while the epoch it read is still
 * the epoch and no making is under way.
 *
 * The race this leaves is the close's: close() judges a descriptor private
 * and skips its EPOLL_CTL_DELs, and only then the close system call runs;
 * a child cloned in between holds the file, whose entries then live on.
 * So a judgment opens a window (`windows`, counted per thread too), which
 * the caller closes once its system call has freed the number, and a
 * making waits, after moving the epoch, until no other thread has one open
 * (sequentially consistent on both sides, Dekker's way: either the judgment
 * sees the making, or the making sees the window).  A window of its own
 * thread (a signal handler making a child while the interrupted thread was
 * closing) cannot be waited for: the fork child closes those numbers
 * itself (kq_fdtab_child_made); posix_spawn, system and popen are not
 * async-signal-safe, and a vfork child from such a handler keeps the file
 * (docs/design.md).  A window stays open for as long as the close blocks
 * (SO_LINGER), and a making waits that long.
 */
static atomic_uint epoch;
static atomic_uint making;
static atomic_uint windows;
static __thread unsigned my_windows __attribute__((tls_model("initial-exec")));
/* the numbers of this thread's open windows, for a fork child (above) */
#define WINDOW_FDS 8
static __thread int window_fd[WINDOW_FDS] __attribute__((tls_model("initial-exec")));

unsigned kq_fdtab_epoch(void)
{
	return atomic_load(&epoch);
}

/* can_be_private: no child libkq does not see can copy the descriptor
 * (libc/births.c). */
void kq_fdtab_born(int fd, int kind, bool can_be_private, unsigned ep)
{
	struct fdent *e = ent(fd, true);
	if (!e)
		return;
	unsigned b = (unsigned)kind & BIRTH_KIND;
	if (can_be_private)
		b |= BIRTH_PRIVATE | (ep & EPOCH_MASK) << BIRTH_EPOCH_SHIFT;
	atomic_store_explicit(&e->birth, b, memory_order_relaxed);
}

/* kq_fdtab_birth_kind() and, for a socket by birth, the interest of
 * kq_fdtab_interest(kq, fd, 1), with one look-up (filter/fd.c's first
 * knote on a socket).  Returns the kind, 0 when there is no birth and
 * nothing was counted. */
int kq_fdtab_socket_interest(struct kqueue *kq, int fd)
{
	struct fdent *e = ent(fd, false);
	if (!e)
		return 0;
	int k = (int)(atomic_load_explicit(&e->birth, memory_order_relaxed) & BIRTH_KIND);
	if (k)
		interest_add(kq, e, 1);
	return k;
}

int kq_fdtab_birth_kind(int fd)
{
	struct fdent *e = ent(fd, false);
	return e ? (int)(atomic_load_explicit(&e->birth, memory_order_relaxed) & BIRTH_KIND) : 0;
}

/* The same judgment without a window, for a look that no close follows
 * (filter/fd.c): only as sure as the moment it is made. */
static bool birth_private_now(unsigned b)
{
	return atomic_load(&making) == 0 &&
	       (b >> BIRTH_EPOCH_SHIFT) == (atomic_load(&epoch) & EPOCH_MASK);
}

bool kq_fdtab_seems_private(int fd)
{
	struct fdent *e = ent(fd, false);
	if (!e)
		return false;
	unsigned b = atomic_load_explicit(&e->birth, memory_order_relaxed);
	return (b & BIRTH_PRIVATE) && birth_private_now(b);
}

/* Whether fd is its file's only descriptor; if so, a window is open
 * until kq_fdtab_closed() (Children, above).  Only for a close. */
bool kq_fdtab_private(int fd)
{
	struct fdent *e = ent(fd, false);
	if (!e)
		return false;
	unsigned b = atomic_load_explicit(&e->birth, memory_order_relaxed);
	if (!(b & BIRTH_PRIVATE))
		return false;
	atomic_fetch_add(&windows, 1);
	if (birth_private_now(b)) {
		if (my_windows < WINDOW_FDS)
			window_fd[my_windows] = fd;
		my_windows++;
		return true;
	}
	atomic_fetch_sub(&windows, 1);
	return false;
}

unsigned kq_fdtab_windows(void)
{
	return my_windows;
}

/* The close system call after the judgments since kq_fdtab_windows()
 * gave `mark` is over (done, failed or cancelled). */
void kq_fdtab_closed(unsigned mark)
{
	if (my_windows > mark) {
		atomic_fetch_sub_explicit(&windows, my_windows - mark, memory_order_release);
		my_windows = mark;
	}
}

void kq_fdtab_copied(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e && (atomic_load_explicit(&e->birth, memory_order_relaxed) & BIRTH_PRIVATE))
		atomic_fetch_and_explicit(&e->birth, ~BIRTH_PRIVATE, memory_order_relaxed);
}

/* The number turned out to name another file than the socket born there
 * (its close went unseen). */
void kq_fdtab_forget_birth(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e)
		atomic_store_explicit(&e->birth, 0, memory_order_relaxed);
}

void kq_fdtab_set_lowat(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e && atomic_load_explicit(&e->birth, memory_order_relaxed))
		atomic_fetch_or_explicit(&e->birth, BIRTH_LOWAT, memory_order_relaxed);
}

bool kq_fdtab_lowat_set(int fd)
{
	struct fdent *e = ent(fd, false);
	return e && (atomic_load_explicit(&e->birth, memory_order_relaxed) & BIRTH_LOWAT);
}

/* Before a child is cloned (Children, above). */
void kq_fdtab_child_begin(void)
{
	atomic_fetch_add(&making, 1);
	atomic_fetch_add(&epoch, 1);
	while (atomic_load(&windows) > my_windows)
		sched_yield();
}

/* After: the child's table is made, or none will be. */
void kq_fdtab_child_end(void)
{
	atomic_fetch_add(&epoch, 1);
	atomic_fetch_sub(&making, 1);
}

/* In a fork child: the makings of other threads are not under way here,
 * and the closes this thread had judged when a signal handler forked are
 * the parent's: the child's copies go, so that they free the file. */
void kq_fdtab_child_made(void)
{
	atomic_store(&making, 0);
	atomic_fetch_add(&epoch, 1);
	atomic_store(&windows, my_windows);
	for (unsigned i = 0; i < my_windows && i < WINDOW_FDS; i++)
		KQ_SYSCALL(SYS_close, window_fd[i]);
}

/* Whether anything in libkq cares about fd at all: the close() fast path. */
bool kq_fdtab_busy(int fd)
{
	struct fdent *e = ent(fd, false);
	if (e && (atomic_load_explicit(&e->interest, memory_order_acquire) != 0 ||
		  atomic_load_explicit(&e->sockerr, memory_order_relaxed) != 0 ||
		  atomic_load_explicit(&e->birth, memory_order_relaxed) != 0))
		return true;
	_Atomic(struct kqueue *) *k = kqent(fd, false);
	return k && atomic_load_explicit(k, memory_order_acquire) != NULL;
}

/* The highest number any entry was made for, or -1. */
static int top_made(void)
{
	int a = atomic_load_explicit(&ent_top, memory_order_acquire);
	int b = atomic_load_explicit(&kqent_top, memory_order_acquire);
	return (a > b ? a : b) - 1;
}

/* The first number in [from, to] that kq_fdtab_busy() would report, or -1;
 * skips blocks where no entry was made, so a range up to INT_MAX costs
 * little and reads no table memory nobody wrote. */
int kq_fdtab_next_busy(int from, int to)
{
	int top = top_made();
	if (to > top)
		to = top;
	if (from < 0)
		from = 0;
	for (long fd = from; fd <= to;) {
		unsigned p = (unsigned)fd >> PAGE_BITS;
		if (!(page_blocks(p) >> (((unsigned)fd & (PAGE_SIZE_ENTRIES - 1)) >> BLOCK_BITS) & 1)) {
			fd = ((fd >> BLOCK_BITS) + 1) << BLOCK_BITS;
			continue;
		}
		if (kq_fdtab_busy((int)fd))
			return (int)fd;
		fd++;
	}
	return -1;
}

/* Fork child: no descriptor is a kqueue or has knotes any more. */
void kq_fdtab_forget_all(void)
{
	unsigned top = (unsigned)atomic_load(&ent_top);
	for (unsigned p = 0; p < NPAGES && p << PAGE_BITS < top; p++) {
		struct fdent *pg = atomic_load(&pages[p]);
		unsigned blocks = atomic_load(&ent_blocks[p]);
		if (!pg)
			continue;
		for (unsigned i = 0; i < PAGE_SIZE_ENTRIES && (p << PAGE_BITS) + i < top; i++) {
			if (!(blocks >> (i >> BLOCK_BITS) & 1)) {
				i |= (1u << BLOCK_BITS) - 1;   /* nothing made there */
				continue;
			}
			struct fdent *e = &pg[i];
			/* Only what holds something is written: the child's
			 * memory is the parent's until written, and a store to
			 * every entry copied all 32 pages of a table page (and
			 * faulted on each) in every child, an exec's included. */
			if (atomic_load_explicit(&e->interest, memory_order_relaxed))
				atomic_store(&e->interest, 0);
			if (atomic_load_explicit(&e->kqs, memory_order_relaxed))
				atomic_store(&e->kqs, 0);
			if (atomic_load_explicit(&e->sockerr, memory_order_relaxed))
				atomic_store(&e->sockerr, 0);
			/* the kinds stay true; the parent holds copies of all */
			if (atomic_load_explicit(&e->birth, memory_order_relaxed) &
			    ~(BIRTH_KIND | BIRTH_LOWAT))
				atomic_fetch_and(&e->birth, BIRTH_KIND | BIRTH_LOWAT);
		}
	}
	atomic_store(&nstash, 0);
	top = (unsigned)atomic_load(&kqent_top);
	for (unsigned p = 0; p < NPAGES && p << PAGE_BITS < top; p++) {
		_Atomic(struct kqueue *) *pg = atomic_load(&kqpages[p]);
		unsigned blocks = atomic_load(&kq_blocks[p]);
		for (unsigned i = 0; pg && i < PAGE_SIZE_ENTRIES && (p << PAGE_BITS) + i < top; i++) {
			if (!(blocks >> (i >> BLOCK_BITS) & 1))
				i |= (1u << BLOCK_BITS) - 1;
			else if (atomic_load_explicit(&pg[i], memory_order_relaxed))
				atomic_store(&pg[i], NULL);
		}
	}
}
