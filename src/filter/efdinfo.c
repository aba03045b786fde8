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
 * read.  Every entry also remembers which file it opened.  A program that
 * closes that descriptor itself (every number above 2, say) breaks the
 * kqueue as it would by closing any of its descriptors (kqueue(2)); if the
 * number comes back as another file, the next pread() reads that file once
 * (and a read of an eventfd, timerfd or signalfd consumes), its text does
 * not parse, and the entry is forgotten without closing what is no longer
 * ours.
 *
 * The plus one: at the descriptor limit no fdinfo file can be opened, and
 * the count would be lost for an eventfd whose file the kqueue does not
 * hold yet.  So while a kqueue holds entries it also holds a spare
 * descriptor (an fdinfo file too, of no use in itself), closed just before
 * an open that failed with EMFILE or ENFILE is tried again; the file that
 * open gives becomes the new spare.  Another thread may take the freed
 * number first: that open then fails as before.
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
	struct efdinfo_ent spare;   /* info -1 when none; see the top */
};

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

/* Whether the entry's descriptor is still the file it opened. */
static bool still_ours(const struct efdinfo_ent *e)
{
	struct stat st;
	return sys_fstat(e->info, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino;
}

/* Records descriptor f (of eventfd fd's fdinfo file) in *e: 0 or -errno. */
static int remember(struct efdinfo_ent *e, int fd, int f)
{
	struct stat st;
	int err = sys_fstat(f, &st);
	if (err)
		return err;
	*e = (struct efdinfo_ent){ fd, f, st.st_dev, st.st_ino };
	return 0;
}

static void spare_drop(struct kq_efdinfo *c)
{
	if (c->spare.info >= 0 && still_ours(&c->spare))
		sys_close(c->spare.info);
	c->spare.info = -1;
}

/* Gives the kqueue its spare descriptor if it has none. */
static void spare_make(struct kq_efdinfo *c, int fd)
{
	if (c->spare.info >= 0)
		return;
	int f = open_info(fd);
	if (f >= 0 && remember(&c->spare, fd, f) != 0) {
		sys_close(f);
		c->spare.info = -1;
	}
}

static int count_uncached(struct kqueue *kq, int fd, uint64_t *out)
{
	char buf[512];
	struct kq_efdinfo *c = kq->efdinfo;
	bool spare = false;
	int f = open_info(fd);
	if ((f == -EMFILE || f == -ENFILE) && c && c->spare.info >= 0) {
		spare_drop(c);
		f = open_info(fd);
		spare = f >= 0;
	}
	if (f < 0)
		return f;
	long n = sys_read(f, buf, sizeof buf - 1);
	if (!spare || remember(&c->spare, fd, f) != 0)
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
 * the spare goes with the last entry. */
static void forget(struct kq_efdinfo *c, unsigned i)
{
	if (still_ours(&c->e[i]))
		sys_close(c->e[i].info);
	c->e[i] = c->e[--c->n];
	if (!c->n)
		spare_drop(c);
}

/* A new entry for fd, or NULL when the table is full or the open failed. */
static struct efdinfo_ent *open_entry(struct kqueue *kq, int fd)
{
	struct kq_efdinfo *c = kq->efdinfo;
	if (!c) {
		if (!(c = kq->efdinfo = calloc(1, sizeof *c)))
			return NULL;
		c->spare.info = -1;
	}
	if (c->n == EFDINFO_MAX)
		return NULL;
	int f = open_info(fd);
	if (f < 0)
		return NULL;
	struct efdinfo_ent *e = &c->e[c->n];
	if (remember(e, fd, f) != 0) {
		sys_close(f);
		return NULL;
	}
	c->n++;
	spare_make(c, fd);
	return e;
}

int kq_eventfd_count(struct kqueue *kq, int fd, uint64_t *out)
{
	int i = find(kq->efdinfo, fd);
	struct efdinfo_ent *e = i >= 0 ? &kq->efdinfo->e[i] : open_entry(kq, fd);
	if (!e)
		return count_uncached(kq, fd, out);
	char buf[512];
	long n = KQ_SYSCALL(SYS_pread64, e->info, buf, sizeof buf - 1, 0);
	if (parse_count(buf, n, out) == 0)
		return 0;
	/* the eventfd's number closed behind our back, or ours was, or the
	 * thread the file was opened through is gone (see the top) */
	struct kq_efdinfo *c = kq->efdinfo;
	forget(c, (unsigned)(e - c->e));
	return count_uncached(kq, fd, out);
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
	spare_drop(c);
	if (free_it) {
		free(c);
		kq->efdinfo = NULL;
	}
}
