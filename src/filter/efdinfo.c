/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An eventfd's counter, which FreeBSD reports as the `data` of READ and
 * WRITE knotes on it.  Linux lets a process read the counter without
 * consuming it in one place only: the "eventfd-count:" line of
 * /proc/self/fdinfo/N.  Opening, reading and closing that file costs about
 * 6 us; a program whose wake-ups go through an eventfd (an event loop's or
 * a messaging library's mailbox) pays it on every wake-up.
 *
 * So a kqueue keeps the fdinfo file of a few eventfd numbers open and reads
 * it again with pread() at offset 0 (about 1 us): a proc fdinfo file is
 * generated anew at each read from the start, and speaks for whatever the
 * number names at that moment, exactly as a fresh open would.  An entry
 * lasts while its number has knotes in the kqueue (fd_detach drops it with
 * the last one, which a close of the number also removes), so the
 * descriptors kept never outnumber the eventfds being watched, and at
 * most EFDINFO_MAX per kqueue; beyond that the file is opened per read.
 * Every entry also remembers which file it opened.  A program that closes
 * that descriptor itself (every number above 2, say) breaks the kqueue as
 * it would by closing any of its descriptors (kqueue(2)); if the number
 * comes back as another file, the next pread() reads that file once (and
 * a read of an eventfd, timerfd or signalfd consumes), its text does not
 * parse, and the entry is forgotten without closing what is no longer ours.
 */
#include "../kq.h"
#include "../sys.h"
#include "fdkind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* fd's fdinfo file, opened: a descriptor or -errno. */
static int open_info(int fd)
{
	char path[48];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	return sys_open_ro(path);
}

/* The counter from an fdinfo text of n bytes in buf (which has room for a
 * terminating NUL), or -EIO. */
static int parse_count(char *buf, long n, uint64_t *out)
{
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	const char *p = strstr(buf, "eventfd-count:");
	unsigned long long v;
	if (!p || sscanf(p + 14, "%llx", &v) != 1)
		return -EIO;
	*out = v;
	return 0;
}

static int count_uncached(int fd, uint64_t *out)
{
	char buf[512];
	int f = open_info(fd);
	if (f < 0)
		return f;
	long n = sys_read(f, buf, sizeof buf - 1);
	sys_close(f);
	return parse_count(buf, n, out);
}

/* Whether the entry's descriptor is still the file it opened. */
static bool still_ours(const struct efdinfo_ent *e)
{
	struct stat st;
	return sys_fstat(e->info, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino;
}

/* The index of fd's entry, or -1. */
static int find(const struct kq_efdinfo *c, int fd)
{
	for (unsigned i = 0; c && i < c->n; i++)
		if (c->e[i].fd == fd)
			return (int)i;
	return -1;
}

/* Drops entry i, closing its descriptor only while that is still ours. */
static void forget(struct kq_efdinfo *c, unsigned i)
{
	if (still_ours(&c->e[i]))
		sys_close(c->e[i].info);
	c->e[i] = c->e[--c->n];
}

/* A new entry for fd, or NULL when the table is full or the open failed. */
static struct efdinfo_ent *open_entry(struct kqueue *kq, int fd)
{
	struct kq_efdinfo *c = kq->efdinfo;
	if (!c && !(c = kq->efdinfo = calloc(1, sizeof *c)))
		return NULL;
	if (c->n == EFDINFO_MAX)
		return NULL;
	int f = open_info(fd);
	if (f < 0)
		return NULL;
	struct stat st;
	if (sys_fstat(f, &st) != 0) {
		sys_close(f);
		return NULL;
	}
	struct efdinfo_ent *e = &c->e[c->n++];
	*e = (struct efdinfo_ent){ fd, f, st.st_dev, st.st_ino };
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
	/* the eventfd's number closed behind our back, or ours was */
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
