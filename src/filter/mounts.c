/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The mount table as a source of events, for two filters: EVFILT_VNODE's
 * NOTE_REVOKE (filter/vnode.c: a watched descriptor whose mount is no
 * longer in the table was unmounted under it) and EVFILT_FS (filter/fs.c:
 * mounts, unmounts and remounts).
 *
 * Linux announces a change of the mount table by POLLPRI on
 * <proc>/mountinfo (kq_procfs_self(): the open file keeps the namespace,
 * not the thread), without saying what changed.  So the table as last read
 * is kept, and each new one compared with it by mount id: a new id is a
 * mount, a missing one an unmount, other options a remount.  A mount that
 * comes and goes between two reads is not seen.  Without /proc there is no
 * table: watching it succeeds and nothing is ever reported.  The table is
 * watched from the first knote that needs it until the kqueue goes, so a
 * knote added later compares with the table as it is then.
 */
#include "kq.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kq_mounts {
	int   fd;      /* <proc>/mountinfo */
	char *table;   /* as last read */
};

const char *kq_procfs_self(void);                           /* filter/efdinfo.c */
void kq_vnode_unmounted(struct kqueue *kq, const char *table);   /* filter/vnode.c */
void kq_fs_post(struct kqueue *kq, uint32_t hint);              /* filter/fs.c */

/* The id of the mount fd's file is on (its fdinfo), or -1. */
int kq_mount_id(int fd)
{
	char path[48], buf[256];
	snprintf(path, sizeof path, "%s/fdinfo/%d", kq_procfs_self(), fd);
	int f = sys_open_ro(path);
	if (f < 0)
		return -1;
	long n = sys_read(f, buf, sizeof buf - 1);
	sys_close(f);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *p = strstr(buf, "mnt_id:");
	int id;
	return (p && sscanf(p + 7, "%d", &id) == 1) ? id : -1;
}

/* The whole mount table, read from the start of <proc>/mountinfo (one
 * read may stop at a page), NUL-terminated; NULL without memory. */
static char *mounts_read(int fd)
{
	size_t cap = 1 << 16, len = 0;
	char *table = malloc(cap);
	if (!table)
		return NULL;
	for (;;) {
		long n = KQ_SYSCALL(SYS_pread64, fd, table + len, cap - len - 1, (long)len);
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len + 1 == cap) {
			char *t = realloc(table, cap * 2);
			if (!t)
				break;
			table = t;
			cap *= 2;
		}
	}
	table[len] = 0;
	return table;
}

/* The mount table is watched from now on; 0 also where there is no /proc
 * to read it from. */
int kq_mounts_watch(struct kqueue *kq)
{
	if (kq->mounts)
		return 0;
	char path[32];
	snprintf(path, sizeof path, "%s/mountinfo", kq_procfs_self());
	int fd = sys_open_ro(path);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	struct kq_mounts *m = malloc(sizeof *m);
	/* the table the next one is compared with: read before the entry
	 * exists, so that no change falls between the two */
	char *table = m ? mounts_read(fd) : NULL;
	/* reports EPOLLPRI|EPOLLERR once per change of the mount table */
	int err = table ? sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLPRI, KQ_TAG_MOUNTS)
			: -ENOMEM;
	if (err) {
		free(table);
		free(m);
		sys_close(fd);
		return err;
	}
	m->fd = fd;
	m->table = table;
	kq->mounts = m;
	return 0;
}

/* Whether the mount `id` is in the table. */
bool kq_mount_listed(const char *table, int id)
{
	for (const char *p = table; *p;) {
		if (atoi(p) == id)
			return true;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return false;
}

/* One line of mountinfo: "id parent maj:min root point options [tags] -
 * type source superoptions".  What a remount changes are the two option
 * fields; propagation tags and the rest are not the file system's. */
struct mline {
	int id;
	const char *opts, *sopts;
	size_t optlen, soptlen;
};

static const char *field_end(const char *p)
{
	while (*p && *p != ' ' && *p != '\n')
		p++;
	return p;
}

static const char *field_skip(const char *p, int n)
{
	while (n-- > 0 && *p && *p != '\n') {
		p = field_end(p);
		if (*p == ' ')
			p++;
	}
	return p;
}

static size_t mlines(const char *table, struct mline *out, size_t max)
{
	size_t n = 0;
	for (const char *p = table; *p; ) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		if (n < max && *p >= '0' && *p <= '9') {
			struct mline *l = &out[n++];
			l->id = atoi(p);
			l->opts = field_skip(p, 5);
			l->optlen = (size_t)(field_end(l->opts) - l->opts);
			const char *sep = strstr(l->opts, " - ");
			if (sep && sep < eol) {
				l->sopts = field_skip(sep + 3, 2);
				l->soptlen = (size_t)(eol - l->sopts);
			} else {
				l->sopts = eol;
				l->soptlen = 0;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return n;
}

static int mline_cmp(const void *a, const void *b)
{
	int x = ((const struct mline *)a)->id, y = ((const struct mline *)b)->id;
	return (x > y) - (x < y);
}

static size_t count_lines(const char *t)
{
	size_t n = 1;
	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* What changed between two mount tables, as EVFILT_FS notes: a mount id
 * new in `now` is a mount, one gone from it an unmount, one whose options
 * differ a remount (VQ_UPDATE).  0 without memory to compare. */
static uint32_t mounts_diff(const char *then, const char *now)
{
	size_t na = count_lines(then), nb = count_lines(now);
	struct mline *a = malloc((na + nb) * sizeof *a);
	if (!a)
		return 0;
	struct mline *b = a + na;
	na = mlines(then, a, na);
	nb = mlines(now, b, nb);
	qsort(a, na, sizeof *a, mline_cmp);
	qsort(b, nb, sizeof *b, mline_cmp);
	uint32_t vq = 0;
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		if (j == nb || (i < na && a[i].id < b[j].id)) {
			vq |= VQ_UNMOUNT;
			i++;
		} else if (i == na || b[j].id < a[i].id) {
			vq |= VQ_MOUNT;
			j++;
		} else {
			if (a[i].optlen != b[j].optlen || a[i].soptlen != b[j].soptlen ||
			    memcmp(a[i].opts, b[j].opts, a[i].optlen) != 0 ||
			    memcmp(a[i].sopts, b[j].sopts, a[i].soptlen) != 0)
				vq |= VQ_UPDATE;
			i++;
			j++;
		}
	}
	free(a);
	return vq;
}

/* The mount table changed. */
static void mounts_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	struct kq_mounts *m = kq->mounts;
	if (!m)
		return;
	char *table = mounts_read(m->fd);
	if (!table)
		return;
	kq_vnode_unmounted(kq, table);
	uint32_t vq = mounts_diff(m->table, table);
	free(m->table);
	m->table = table;
	if (vq)
		kq_fs_post(kq, vq);
}

static void mounts_fini(struct kqueue *kq)
{
	struct kq_mounts *m = kq->mounts;
	if (!m)
		return;
	sys_close(m->fd);
	free(m->table);
	free(m);
	kq->mounts = NULL;
}

/* Fork child: the descriptor goes, the memory is abandoned (fork.c). */
static void mounts_forget(struct kqueue *kq)
{
	if (kq->mounts)
		sys_close(kq->mounts->fd);
}

const struct kq_source kq_mounts_source = {
	.report = mounts_report,
	.fini = mounts_fini,
	.forget = mounts_forget,
};
