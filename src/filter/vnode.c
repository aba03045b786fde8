/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Everything that watches files through inotify: EVFILT_VNODE, and
 * EVFILT_READ on regular files and directories (which epoll refuses, so a
 * file that grows must be noticed here).
 *
 * One inotify instance per kqueue, made (or taken from the idle ones a
 * closed kqueue left: see "Idle inotify instances" below) when the first
 * watch needs it and registered in its epoll set; never one per knote.
 * A watch is placed through
 * /proc/thread-self/fd/N (kq_procfs_self(): /proc/self/fd/N is empty once
 * the main thread has called pthread_exit()), so it lands on the inode the
 * descriptor refers to, also once the name was unlinked or renamed.
 * Without /proc (a container or chroot that does not mount it) there is no
 * such path: see "Without /proc" below.  inotify keeps one watch (wd) per
 * inode: several descriptors on one file share it, and its mask must be the
 * union of what all of them need.  A `struct vwatch` per (kqueue, fd) records
 * what that fd needs and the last size and link count seen.
 *
 * Each inotify event is turned into the hints FreeBSD's file systems would
 * post (NOTE_WRITE|NOTE_EXTEND for a write that grows the file, NOTE_ATTRIB
 * for a truncation, NOTE_LINK or NOTE_DELETE for a link count going up or
 * down, NOTE_WRITE|NOTE_LINK for a subdirectory appearing in a directory,
 * ...), one per operation it stands for, and as in FreeBSD's filt_vfsvnode
 * a hint is OR-ed whole into a knote once any bit of it was asked for, and
 * not at all otherwise (hints_of, post_hints).
 *
 * rmdir() of a watched directory: inotify says nothing to the directory's
 * own watch while a descriptor keeps it alive (IN_DELETE_SELF comes at the
 * last close, when the knote is gone).  FreeBSD posts NOTE_DELETE at once.
 * So a directory whose knotes want NOTE_DELETE also has its parent watched
 * (a "parent entry", reached through /proc/thread-self/fd/N/..): a subdirectory
 * removed or replaced there (IN_DELETE or IN_MOVED_TO with IN_ISDIR) makes
 * each such child look at its link count, which rmdir() sets to 0.  The
 * child's IN_MOVE_SELF moves the parent entry along when it is renamed
 * elsewhere.  A directory's NOTE_LINK comes only from those subdirectory
 * events, never from a link count compared later: by then the count may
 * hold changes already reported (twice) or another subdirectory's (read as
 * a deletion of the directory itself).
 *
 * NOTE_REVOKE: inotify's IN_UNMOUNT comes only once the file system is gone,
 * which cannot happen while the watched descriptor is open (a lazy unmount
 * waits for it).  So a kqueue with NOTE_REVOKE knotes also watches
 * /proc/thread-self/mountinfo, which polls POLLPRI when the mount table
 * changes (the open file keeps the namespace, not the thread); a watched
 * descriptor whose mount (mnt_id in its fdinfo) is no longer in the table
 * has been unmounted under it.  Without /proc there is no mount table to
 * read: NOTE_REVOKE knotes are accepted and that note is never reported
 * (man/kevent.2).  The table is watched by filter/mounts.c, which also
 * serves EVFILT_FS.
 *
 * Without /proc, or where a sandbox refuses inotify_init1() (or the kernel
 * has no inotify): fanotify (Linux 5.1; without privilege 5.13) marks the
 * inode of a descriptor itself, fanotify_mark(dirfd = fd, path NULL).  The
 * kqueue's instance is then a fanotify group reporting file handles
 * (FAN_REPORT_FID) instead of an inotify instance, in the same place
 * (inofd, KQ_TAG_INOTIFY).  Its event bits are inotify's (both are fsnotify
 * masks, asserted below), so everything above works on its events
 * unchanged; what differs is how an event names its inode: by file system
 * id and file handle, not by wd.  Each marked inode gets a `struct fanobj`
 * holding its handle and a wd made up by us, so that the watch table works
 * as with inotify.  Differences: marks are set to the union by adding and
 * removing bits (FAN_MARK_ADD only adds); FAN_ONDIR is part of every mark
 * (without it a directory's own events and its subdirectories' are not
 * reported); a parent entry keeps an O_PATH descriptor of the parent,
 * since after a rename the child's ".." leads elsewhere; events on one
 * inode are merged into one report, so a rename inside a watched directory
 * is recognised by MOVED_FROM and MOVED_TO in one report (no cookie); and
 * a directory's watch does not report its entries' own opens, reads and
 * attribute changes (inotify does; FreeBSD does not).  Where fanotify is
 * missing or forbidden too, EVFILT_VNODE's EV_ADD fails with ENOTSUP and
 * READ knotes are polled (see "Without inotify or fanotify" below).
 */
#include "kq.h"
#include "sys.h"
#include "filter/fdkind.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/statfs.h>

#ifndef PIPEFS_MAGIC
#define PIPEFS_MAGIC 0x50495045
#endif

#define DIR_CHANGES (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
/* what a parent entry listens for: a subdirectory gone or replaced */
#define PARENT_MASK (IN_DELETE | IN_MOVED_TO)
#define ALL_NOTES (NOTE_DELETE | NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB | \
		   NOTE_LINK | NOTE_RENAME | NOTE_REVOKE | NOTE_OPEN | \
		   NOTE_CLOSE | NOTE_CLOSE_WRITE | NOTE_READ)

/* fanotify's event bits are inotify's: see the top */
_Static_assert(FAN_ACCESS == IN_ACCESS && FAN_MODIFY == IN_MODIFY &&
	       FAN_ATTRIB == IN_ATTRIB && FAN_CLOSE_WRITE == IN_CLOSE_WRITE &&
	       FAN_CLOSE_NOWRITE == IN_CLOSE_NOWRITE && FAN_OPEN == IN_OPEN &&
	       FAN_MOVED_FROM == IN_MOVED_FROM && FAN_MOVED_TO == IN_MOVED_TO &&
	       FAN_CREATE == IN_CREATE && FAN_DELETE == IN_DELETE &&
	       FAN_DELETE_SELF == IN_DELETE_SELF && FAN_MOVE_SELF == IN_MOVE_SELF &&
	       FAN_Q_OVERFLOW == IN_Q_OVERFLOW && FAN_ONDIR == IN_ISDIR,
	       "fanotify and inotify event bits differ");
/* every bit a watch may hold (fanotify marks are narrowed by removing) */
#define WATCH_BITS (IN_ACCESS | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | \
		    IN_CLOSE_NOWRITE | IN_OPEN | DIR_CHANGES | IN_DELETE_SELF | \
		    IN_MOVE_SELF)

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200   /* Linux 6.5: the handle fanotify reports */
#endif
#define FAN_BUCKETS 256
#define HANDLE_MAX 128        /* MAX_HANDLE_SZ */

/* A marked inode (fanotify only), named as fanotify names it. */
struct fanobj {
	struct fanobj *next;   /* in its hash chain */
	int      wd;           /* made up: unique among live objects */
	unsigned refs;         /* entries on it */
	int      fsid[2];
	int      type;
	unsigned len;
	unsigned char h[HANDLE_MAX];
};

struct vwatch {
	struct vwatch *fdnext, *wdnext;
	int      fd;
	int      wd;           /* -1 once inotify dropped it (IN_IGNORED) */
	uint32_t mask;         /* what this fd's knotes need */
	bool     dir;
	int64_t  size;         /* as last seen */
	int64_t  blocks;
	uint64_t nlink;
	bool     holes;        /* its file system reports blocks at once (see
				* modify_hints) */
	/* the attributes NOTE_ATTRIB is about, as last seen: inotify merges
	 * identical consecutive events, so a chmod and an unlink may arrive
	 * as one IN_ATTRIB and only the comparison tells both happened */
	mode_t   mode;
	uid_t    uid;
	gid_t    gid;
	struct timespec atime, mtime;
	int      mnt_id;       /* for NOTE_REVOKE; -1 unknown */
	bool     revoke;       /* a knote on this fd wants NOTE_REVOKE */
	bool     revoked;
	/* rmdir() of a watched directory (see the top).  A parent entry is
	 * in bywd only, not byfd; its fd is one of its children's, for the
	 * path.  A child directory links to its parent entry. */
	bool     isparent;
	bool     reparent;     /* renamed: its parent entry must follow */
	struct vwatch *parent, *sibnext;   /* child: its parent entry, siblings */
	struct vwatch *children;           /* parent entry */
	/* fanotify only: the inode, and a parent entry's own descriptor of
	 * the parent (O_PATH; -1 otherwise) */
	struct fanobj *obj;
	int      pfd;
};

struct kq_vnodes {
	int             inofd;   /* inotify instance, or fanotify group if `fan`;
				  * -1 until a watch needs one (EVFILT_FS
				  * alone needs only the mount table) */
	bool            fan;
	int             top_wd;  /* inotify: the highest wd it gave us */
	struct fanobj **objs;    /* fan: FAN_BUCKETS chains */
	int             next_wd; /* fan: the last wd made up */
	struct vwatch **byfd, **bywd;
	unsigned        nb;    /* buckets in each table, a power of two */
	unsigned        count;   /* entries in byfd (parent entries are not) */
	bool            reparent;   /* some entry has `reparent` set */
};

void kq_fd_activate_reads(struct kqueue *kq, int fd);   /* filter/fd.c */
const char *kq_procfs_self(void);                      /* filter/efdinfo.c */

static unsigned bucket(int key, unsigned nb)
{
	return ((unsigned)key * 2654435761u) & (nb - 1);
}

static struct vwatch *by_fd(struct kq_vnodes *v, int fd)
{
	if (!v || !v->nb)
		return NULL;
	struct vwatch *w = v->byfd[bucket(fd, v->nb)];
	while (w && w->fd != fd)
		w = w->fdnext;
	return w;
}

static void wd_link(struct kq_vnodes *v, struct vwatch *w)
{
	unsigned b = bucket(w->wd, v->nb);
	w->wdnext = v->bywd[b];
	v->bywd[b] = w;
}

static void wd_unlink(struct kq_vnodes *v, struct vwatch *w)
{
	for (struct vwatch **pp = &v->bywd[bucket(w->wd, v->nb)]; *pp; pp = &(*pp)->wdnext) {
		if (*pp == w) {
			*pp = w->wdnext;
			return;
		}
	}
}

static int grow(struct kq_vnodes *v)
{
	unsigned nb = v->nb ? v->nb * 2 : 64;
	struct vwatch **fds = calloc(nb, sizeof *fds), **wds = calloc(nb, sizeof *wds);
	if (!fds || !wds) {
		free(fds);
		free(wds);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < v->nb; i++) {
		for (struct vwatch *w = v->byfd[i], *next; w; w = next) {
			next = w->fdnext;
			unsigned b = bucket(w->fd, nb);
			w->fdnext = fds[b];
			fds[b] = w;
		}
		/* (parent entries are only here; an entry without a watch,
		 * wd -1, is in no chain) */
		for (struct vwatch *w = v->bywd[i], *next; w; w = next) {
			next = w->wdnext;
			unsigned b = bucket(w->wd, nb);
			w->wdnext = wds[b];
			wds[b] = w;
		}
	}
	free(v->byfd);
	free(v->bywd);
	v->byfd = fds;
	v->bywd = wds;
	v->nb = nb;
	return 0;
}

/* Whether watches can be placed through <proc>/fd/N (see the top). */
static bool proc_fds(void)
{
	char path[32];
	struct stat st;
	snprintf(path, sizeof path, "%s/fd", kq_procfs_self());
	int e = errno;
	bool ok = stat(path, &st) == 0;
	errno = e;
	return ok;
}

/* The kqueue's fanotify group, or -errno (ENOTSUP where the kernel has
 * none or refuses one). */
static int fan_open(struct kq_vnodes *v)
{
	int e = errno;
	v->objs = calloc(FAN_BUCKETS, sizeof *v->objs);
	if (!v->objs)
		return -ENOMEM;
	int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY);
	int err = fd < 0 ? -errno : fd;
	errno = e;
	if (err == -EMFILE || err == -ENFILE || err == -ENOMEM || err >= 0) {
		v->fan = true;
		return err;
	}
	return -ENOTSUP;
}

/*
 * Idle inotify instances.  The kernel's release of an inotify instance
 * waits for the global fsnotify mark reaper to finish (an SRCU grace
 * period: typically 8 to 16 ms, at times far more) whenever marks of any
 * group are waiting to be freed, as the instance's own are once it held a
 * watch; FreeBSD closes a kqueue in microseconds.  So a kqueue's end
 * removes its watches (that waits for nothing: the marks are freed later
 * by the reaper) and parks the instance here, for the next kqueue that
 * needs one, instead of closing it.  At most POOL are kept; beyond them,
 * and for a kqueue watching more than PARK_WATCHES_MAX files, the
 * instance is closed, and that close waits.
 *
 * A parked instance may still hold events of its old kqueue, and gets the
 * IN_IGNORED of each removed watch: they are read and dropped when it is
 * taken, and one that comes later (a change racing the removal) names an
 * old wd.  inotify hands out wds cyclically, so an instance's new watches
 * get numbers above every old one until the count wraps at INT_MAX; an
 * instance that has given out more than a billion is not parked.
 *
 * The number stays open while parked, out of the program's way and
 * marked as libkq's (hide.c), as while in use; a raw close the program
 * makes may still free it and have it reused by a file of its own: a
 * parked instance is marked (owner set to this process, which without
 * O_ASYNC sends no signal) and checked before it is used or closed.  A fork child
 * shares the parent's instances and must not use them: it closes its
 * copies (kq_vnode_fork_child; one whose parent has exited by then is
 * left, close-on-exec).
 */
#define POOL 4
#define WD_PARK_MAX (1 << 30)
/* Removing a watch costs 1.5 to 4 us: beyond this many the removals
 * would cost about what the close's wait they save does */
#define PARK_WATCHES_MAX 4096
static _Atomic int pool[POOL] = { -1, -1, -1, -1 };

/* Whether fd is still an instance that process pid parked. */
static bool pool_ours(int fd, long pid)
{
	long fl = KQ_SYSCALL(SYS_fcntl, fd, F_GETFL);
	if (fl < 0 || (fl & (O_NONBLOCK | O_ASYNC)) != O_NONBLOCK ||
	    KQ_SYSCALL(SYS_fcntl, fd, F_GETFD) != FD_CLOEXEC ||
	    KQ_SYSCALL(SYS_fcntl, fd, F_GETOWN) != pid)
		return false;
	char path[48], link[32];
	snprintf(path, sizeof path, "%s/fd/%d", kq_procfs_self(), fd);
	static const char want[] = "anon_inode:inotify";
	long n = KQ_SYSCALL(SYS_readlinkat, AT_FDCWD, path, link, sizeof link);
	return n == (long)sizeof want - 1 && memcmp(link, want, sizeof want - 1) == 0;
}

/* A parked instance, emptied of its old events, or -1.  It stays where
 * it is, out of the program's way and marked (hide.c). */
static int pool_take(void)
{
	for (unsigned i = 0; i < POOL; i++) {
		if (atomic_load_explicit(&pool[i], memory_order_relaxed) < 0)
			continue;
		int fd = atomic_exchange(&pool[i], -1);
		if (fd >= 0 && !pool_ours(fd, KQ_SYSCALL(SYS_getpid))) {
			kq_fdtab_unhide(fd);
			continue;   /* not ours any more: not ours to close */
		}
		if (fd < 0)
			continue;
		char buf[4096];
		while (sys_read(fd, buf, sizeof buf) > 0)
			;
		return fd;
	}
	return -1;
}

/* Parks an instance without watches, at its number (already out of the
 * program's way and marked: vnodes_notify); false if the pool is full. */
static bool pool_put(int fd)
{
	if (KQ_SYSCALL(SYS_fcntl, fd, F_SETOWN, KQ_SYSCALL(SYS_getpid)) != 0)
		return false;
	for (unsigned i = 0; i < POOL; i++) {
		int none = -1;
		if (atomic_compare_exchange_strong(&pool[i], &none, fd))
			return true;
	}
	return false;
}

/* dup2() onto a parked instance's number (move.c): the instance moves to
 * another.  1 when it did, 0 when fd is not parked here (a taker may
 * have it now: then it is an instance in use, at a number of its own),
 * -errno when no number is free. */
int kq_vnode_pool_move(int fd)
{
	for (unsigned i = 0; i < POOL; i++) {
		if (atomic_load(&pool[i]) != fd)
			continue;
		int high = kq_fd_dup_high(fd);
		if (high < 0)
			return high;
		int want = fd;
		if (atomic_compare_exchange_strong(&pool[i], &want, high)) {
			kq_fdtab_unhide(fd);
			return 1;
		}
		kq_fdtab_unhide(high);
		sys_close(high);
		return 0;
	}
	return 0;
}

/* move.c: the kqueue's instance in use at a new number. */
bool kq_vnode_renumber(struct kqueue *kq, int old, int new)
{
	struct kq_vnodes *v = kq->vnodes;
	if (!v)
		return false;
	if (v->inofd == old) {
		kq_entry_rekey(kq, old, new, EPOLLIN, KQ_TAG_INOTIFY);
		v->inofd = new;
		return true;
	}
	/* a parent entry's directory handle (fanotify) */
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->bywd[b]; w; w = w->wdnext)
			if (w->isparent && w->pfd == old) {
				w->pfd = new;
				return true;
			}
	return false;
}

/* In a fork child: the parked instances are the parent's too. */
void kq_vnode_fork_child(void)
{
	long parent = KQ_SYSCALL(SYS_getppid);
	for (unsigned i = 0; i < POOL; i++) {
		int fd = atomic_exchange(&pool[i], -1);
		if (fd >= 0)
			kq_fdtab_unhide(fd);
		if (fd >= 0 && pool_ours(fd, parent))
			sys_close(fd);
	}
}

static int vnodes_get(struct kqueue *kq, struct kq_vnodes **out)
{
	struct kq_vnodes *v = kq->vnodes;
	if (!v) {
		v = calloc(1, sizeof *v);
		if (!v)
			return -ENOMEM;
		v->inofd = -1;
		kq->vnodes = v;
	}
	*out = v;
	return 0;
}

/* inotify_init1() or fanotify_init() was refused by a sandbox (EPERM,
 * EACCES) or the kernel has none (ENOSYS, or fanotify's answers in
 * fan_open): a seccomp filter is never lifted, so neither is asked again
 * in this process. */
static atomic_bool ino_refused, fan_refused;

/* The kqueue's inotify instance (or fanotify group), made on first need;
 * -ENOTSUP where neither can be had (see "Without inotify or fanotify"). */
static int vnodes_notify(struct kqueue *kq, struct kq_vnodes *v)
{
	if (v->inofd >= 0)
		return 0;
	int fd = -ENOTSUP, err = -ENOTSUP;
	if (proc_fds() && !atomic_load_explicit(&ino_refused, memory_order_relaxed)) {
		int e = errno;
		fd = pool_take();
		if (fd < 0)
			fd = kq_fd_own(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
		err = fd < 0 ? -errno : 0;
		errno = e;
		/* refused by a sandbox (EPERM, EACCES) or missing (ENOSYS):
		 * fanotify may still be allowed (Linux 5.13 without privilege) */
		if (sys_refused(err)) {
			atomic_store(&ino_refused, true);
			err = -ENOTSUP;
		}
	}
	if (err == -ENOTSUP && !atomic_load_explicit(&fan_refused, memory_order_relaxed)) {
		fd = kq_fd_own(fan_open(v));
		err = fd < 0 ? fd : 0;
		if (err == -ENOTSUP)
			atomic_store(&fan_refused, true);
	}
	if (!err)
		err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLIN, KQ_TAG_INOTIFY);
	if (err) {
		kq_fd_own_close(fd);
		free(v->objs);
		v->objs = NULL;
		v->fan = false;
		return err;
	}
	v->inofd = fd;
	return 0;
}

/* The inotify bits that NOTE_* notes need. */
static uint32_t inotify_mask(uint32_t notes, bool dir)
{
	uint32_t m = 0;
	if (notes & (NOTE_WRITE | NOTE_EXTEND))
		m |= dir ? DIR_CHANGES : IN_MODIFY;
	if (notes & NOTE_LINK)
		m |= IN_ATTRIB | (dir ? DIR_CHANGES : 0);
	if (notes & (NOTE_ATTRIB | NOTE_DELETE))
		m |= IN_ATTRIB;
	/* a truncation is an attribute change, which inotify reports as a
	 * write (IN_MODIFY) */
	if ((notes & NOTE_ATTRIB) && !dir)
		m |= IN_MODIFY;
	if (notes & NOTE_DELETE)
		m |= IN_DELETE_SELF;
	if (notes & NOTE_RENAME)
		m |= IN_MOVE_SELF;
	if (notes & NOTE_OPEN)
		m |= IN_OPEN;
	if (notes & NOTE_READ)
		m |= IN_ACCESS;
	if (notes & NOTE_CLOSE)
		m |= IN_CLOSE_NOWRITE;
	if (notes & NOTE_CLOSE_WRITE)
		m |= IN_CLOSE_WRITE;
	return m;
}

/* What the knotes on fd want from inotify (and whether one wants
 * NOTE_REVOKE, which inotify alone cannot give); *vnode: whether an
 * EVFILT_VNODE knote is among them (polling cannot serve it). */
static uint32_t fd_needs(struct kqueue *kq, int fd, bool dir, bool *revoke, bool *vnode)
{
	struct kq_fdslot *s = kq_fdslot(kq, fd, false);
	uint32_t m = 0;
	*revoke = *vnode = false;
	for (struct knote *kn = s ? s->head : NULL; kn; kn = kn->link) {
		if (kn->filter == EVFILT_VNODE) {
			*vnode = true;
			m |= inotify_mask(kn->sfflags, dir);
			if (kn->sfflags & NOTE_REVOKE)
				*revoke = true;
		}
		else if (kn->filter == EVFILT_READ && (kn->fpriv & KQ_FPRIV_FILE_WATCHED))
			m |= IN_MODIFY;
	}
	return m;
}

static bool ts_eq(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Whether the file system behind fd counts a write's blocks in st_blocks
 * as soon as write() returns (delayed allocation included): only there
 * does "grew, but no new blocks" mean a hole (modify_hints).  Network and
 * FUSE file systems may update st_blocks later, so there every growth is
 * taken for a write. */
static bool blocks_at_once(int fd)
{
	struct statfs sf;
	int e = errno, r = fstatfs(fd, &sf);
	errno = e;
	if (r != 0)
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0x01021994:   /* tmpfs */
	case 0xEF53:       /* ext2/3/4 */
	case 0x58465342:   /* xfs */
	case 0x9123683E:   /* btrfs */
	case 0xF2F52010:   /* f2fs */
		return true;
	default:
		return false;
	}
}

/* Reads the file's state; returns whether an attribute changed. */
static bool remember_stat(struct vwatch *w)
{
	struct stat st;
	if (sys_fstat(w->fd, &st) != 0)
		return false;
	bool changed = st.st_mode != w->mode || st.st_uid != w->uid ||
		       st.st_gid != w->gid || !ts_eq(st.st_atim, w->atime) ||
		       !ts_eq(st.st_mtim, w->mtime);
	w->size = st.st_size;
	w->blocks = st.st_blocks;
	w->nlink = st.st_nlink;
	w->dir = S_ISDIR(st.st_mode);
	w->mode = st.st_mode;
	w->uid = st.st_uid;
	w->gid = st.st_gid;
	w->atime = st.st_atim;
	w->mtime = st.st_mtim;
	return changed;
}

/* What every entry on watch wd needs. */
static uint32_t wd_union(struct kq_vnodes *v, int wd)
{
	uint32_t m = 0;
	for (struct vwatch *o = v->bywd[bucket(wd, v->nb)]; o; o = o->wdnext)
		if (o->wd == wd)
			m |= o->mask;
	return m;
}

static void watch_path(char *path, size_t len, const struct vwatch *w)
{
	snprintf(path, len, w->isparent ? "%s/fd/%d/.." : "%s/fd/%d", kq_procfs_self(), w->fd);
}

/* ---- fanotify (see the top) ---- */

/* The inode behind descriptor fd as fanotify names it, into o. */
static int fan_name(int fd, struct fanobj *o)
{
	union {
		struct file_handle fh;
		unsigned char b[sizeof(struct file_handle) + HANDLE_MAX];
	} h;
	struct statfs sf;
	int mnt, e = errno;
	h.fh.handle_bytes = HANDLE_MAX;
	int r = name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH | AT_HANDLE_FID);
	if (r != 0 && errno == EINVAL) {   /* before 6.5: the same handle */
		h.fh.handle_bytes = HANDLE_MAX;
		r = name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH);
	}
	if (r == 0)
		r = fstatfs(fd, &sf);
	int err = r != 0 ? -errno : 0;
	errno = e;
	if (err)
		return err;
	memcpy(o->fsid, &sf.f_fsid, sizeof o->fsid);
	o->type = h.fh.handle_type;
	o->len = h.fh.handle_bytes;
	memcpy(o->h, h.fh.f_handle, o->len);
	return 0;
}

static unsigned fan_hash(const int fsid[2], int type, const unsigned char *h, unsigned len)
{
	uint32_t x = 2166136261u ^ (uint32_t)fsid[0] ^ ((uint32_t)fsid[1] << 7) ^ (uint32_t)type;
	for (unsigned i = 0; i < len; i++)
		x = (x ^ h[i]) * 16777619u;
	return x & (FAN_BUCKETS - 1);
}

static struct fanobj *fan_find(struct kq_vnodes *v, const int fsid[2], int type,
			       const unsigned char *h, unsigned len)
{
	struct fanobj *o = v->objs[fan_hash(fsid, type, h, len)];
	while (o && !(o->fsid[0] == fsid[0] && o->fsid[1] == fsid[1] && o->type == type &&
		      o->len == len && memcmp(o->h, h, len) == 0))
		o = o->next;
	return o;
}

/* Gives w (not yet on any inode) its inode's object and wd. */
static int fan_attach(struct kq_vnodes *v, struct vwatch *w)
{
	struct fanobj key;
	int err = fan_name(w->isparent ? w->pfd : w->fd, &key);
	if (err)
		return err;
	struct fanobj *o = fan_find(v, key.fsid, key.type, key.h, key.len);
	if (!o) {
		o = malloc(sizeof *o);
		if (!o)
			return -ENOMEM;
		*o = key;
		if (v->next_wd == INT32_MAX)
			v->next_wd = 0;
		o->wd = ++v->next_wd;
		o->refs = 0;
		unsigned b = fan_hash(o->fsid, o->type, o->h, o->len);
		o->next = v->objs[b];
		v->objs[b] = o;
	}
	o->refs++;
	w->obj = o;
	w->wd = o->wd;
	return 0;
}

static void fan_detach(struct kq_vnodes *v, struct vwatch *w)
{
	struct fanobj *o = w->obj;
	w->obj = NULL;
	if (!o || --o->refs)
		return;
	for (struct fanobj **pp = &v->objs[fan_hash(o->fsid, o->type, o->h, o->len)]; *pp;
	     pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	free(o);
}

static int fan_mark(struct kq_vnodes *v, const struct vwatch *w, unsigned flags, uint64_t m)
{
	int e = errno;
	int r = w->isparent ? fanotify_mark(v->inofd, flags, m, w->pfd, ".")
			    : fanotify_mark(v->inofd, flags, m, w->fd, NULL);
	int err = r != 0 ? -errno : 0;
	errno = e;
	return err;
}

/* Makes the mark on w's inode hold exactly m. */
static int fan_set(struct kq_vnodes *v, const struct vwatch *w, uint32_t m)
{
	if (!m) {
		fan_mark(v, w, FAN_MARK_REMOVE, WATCH_BITS | FAN_ONDIR);
		return 0;
	}
	int err = fan_mark(v, w, FAN_MARK_ADD, m | FAN_ONDIR);
	if (!err && (WATCH_BITS & ~m))
		fan_mark(v, w, FAN_MARK_REMOVE, WATCH_BITS & ~m);
	return err;
}

/* The first entry on watch wd, or NULL. */
static struct vwatch *wd_first(struct kq_vnodes *v, int wd)
{
	for (struct vwatch *o = v->bywd[bucket(wd, v->nb)]; o; o = o->wdnext)
		if (o->wd == wd)
			return o;
	return NULL;
}

/* Removes the watch of w's inode (w, the last entry on it, is unlinked). */
static void unwatch(struct kqueue *kq, struct kq_vnodes *v, struct vwatch *w)
{
	if (kq->dead)
		return;
	int e = errno;
	if (!v->fan) {
		inotify_rm_watch(v->inofd, w->wd);
	} else {
		/* a number closed behind our back may name another file now,
		 * one we may be watching for others */
		struct fanobj now;
		const struct fanobj *o = w->obj;
		if (o && fan_name(w->isparent ? w->pfd : w->fd, &now) == 0 &&
		    fan_find(v, now.fsid, now.type, now.h, now.len) == o)
			fan_mark(v, w, FAN_MARK_REMOVE, WATCH_BITS | FAN_ONDIR);
	}
	errno = e;
}

static int fan_place(struct kq_vnodes *v, struct vwatch *w)
{
	if (!w->obj) {
		int err = fan_attach(v, w);
		if (err)
			return err;
		wd_link(v, w);
	}
	return fan_set(v, w, wd_union(v, w->wd));
}

/* Re-places the inode's watch with the union of what every entry on it
 * needs (inotify_add_watch replaces a watch's mask). */
static int place(struct kq_vnodes *v, struct vwatch *w)
{
	if (v->fan)
		return fan_place(v, w);
	uint32_t m = w->mask | (w->wd >= 0 ? wd_union(v, w->wd) : 0);
	char path[48];
	watch_path(path, sizeof path, w);
	int e = errno;
	int wd = inotify_add_watch(v->inofd, path, m ? m : IN_MODIFY);
	int err = wd < 0 ? -errno : 0;
	if (!err && wd > v->top_wd)
		v->top_wd = wd;
	if (!err && wd != w->wd) {
		if (w->wd >= 0)
			wd_unlink(v, w);
		w->wd = wd;
		wd_link(v, w);
		/* the inode was already watched for other entries (another
		 * descriptor of the file, a parent entry): their needs were
		 * just replaced by this entry's alone */
		uint32_t all = wd_union(v, wd);
		if (all & ~m && inotify_add_watch(v->inofd, path, all) < 0)
			err = -errno;
	}
	errno = e;
	return err;
}

/* ---- the parent entries of directories (see the top) ---- */

/* Links directory w to an entry watching its current parent.  Failure
 * (no read permission on the parent, no memory) costs the NOTE_DELETE of a
 * removal while w's descriptor is open: inotify's own report comes at the
 * last close, and the knote is gone with it. */
static void fan_parent_attach(struct kq_vnodes *v, struct vwatch *w)
{
	int e = errno;
	struct vwatch *p = calloc(1, sizeof *p);
	if (!p)
		return;
	p->isparent = true;
	p->fd = w->fd;
	p->mnt_id = -1;
	p->mask = PARENT_MASK;
	p->dir = true;
	p->pfd = kq_fd_own(openat(w->fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
	errno = e;
	if (p->pfd < 0 || fan_attach(v, p) != 0)
		goto fail;
	struct vwatch *q = v->bywd[bucket(p->wd, v->nb)];
	while (q && !(q->wd == p->wd && q->isparent))
		q = q->wdnext;
	if (q) {   /* that directory has its entry already */
		fan_detach(v, p);
		sys_close(p->pfd);
		free(p);
		p = q;
	} else {
		wd_link(v, p);
		if (fan_set(v, p, wd_union(v, p->wd)) != 0) {
			wd_unlink(v, p);
			goto fail;
		}
	}
	w->parent = p;
	w->sibnext = p->children;
	p->children = w;
	return;
fail:
	fan_detach(v, p);
	kq_fd_own_close(p->pfd);
	free(p);
}

static void parent_attach(struct kq_vnodes *v, struct vwatch *w)
{
	if (v->fan) {
		fan_parent_attach(v, w);
		return;
	}
	char path[48];
	snprintf(path, sizeof path, "%s/fd/%d/..", kq_procfs_self(), w->fd);
	int e = errno;
	/* IN_MASK_ADD: the parent may be watched for entries of its own */
	int wd = inotify_add_watch(v->inofd, path, PARENT_MASK | IN_MASK_ADD | IN_ONLYDIR);
	errno = e;
	if (wd < 0)
		return;
	if (wd > v->top_wd)
		v->top_wd = wd;
	struct vwatch *p = v->bywd[bucket(wd, v->nb)];
	while (p && !(p->wd == wd && p->isparent))
		p = p->wdnext;
	if (!p) {
		p = calloc(1, sizeof *p);
		if (!p) {
			/* the added bits stay until the watch is next placed */
			return;
		}
		p->isparent = true;
		p->fd = w->fd;
		p->wd = wd;
		p->mnt_id = -1;
		p->mask = PARENT_MASK;
		p->dir = true;
		p->pfd = -1;
		wd_link(v, p);
	}
	w->parent = p;
	w->sibnext = p->children;
	p->children = w;
}

static void parent_detach(struct kqueue *kq, struct kq_vnodes *v, struct vwatch *w)
{
	struct vwatch *p = w->parent;
	if (!p)
		return;
	for (struct vwatch **pp = &p->children; *pp; pp = &(*pp)->sibnext) {
		if (*pp == w) {
			*pp = w->sibnext;
			break;
		}
	}
	w->parent = w->sibnext = NULL;
	if (p->children) {
		if (p->fd == w->fd)
			p->fd = p->children->fd;
		return;
	}
	if (p->wd >= 0) {
		wd_unlink(v, p);
		struct vwatch *o = wd_first(v, p->wd);
		if (o)
			place(v, o);   /* narrow the shared mask */
		else
			unwatch(kq, v, p);
	}
	fan_detach(v, p);
	kq_fd_own_close(p->pfd);
	free(p);
}

/* A subdirectory went from parent entry p: tell each child directory that
 * is gone (rmdir() leaves it with no links) that it was deleted. */
static void post(struct kqueue *kq, int fd, uint32_t hint, uint32_t inmask);

static void parent_event(struct kqueue *kq, struct vwatch *p, const struct inotify_event *ev)
{
	if (!(ev->mask & IN_ISDIR) || !(ev->mask & PARENT_MASK))
		return;
	for (struct vwatch *c = p->children; c; c = c->sibnext) {
		struct stat st;
		if (c->nlink == 0 || sys_fstat(c->fd, &st) != 0 || st.st_nlink != 0)
			continue;
		c->nlink = 0;
		post(kq, c->fd, NOTE_DELETE, 0);
	}
}

/* ---- NOTE_REVOKE through the mount table (see the top) ---- */

static int mounts_watch(struct kqueue *kq, struct vwatch *w)
{
	if (w->mnt_id < 0)
		w->mnt_id = kq_mount_id(w->fd);
	return kq_mounts_watch(kq);
}

/* The mount table changed (filter/mounts.c): revoke the knotes whose
 * mount went away. */
void kq_vnode_unmounted(struct kqueue *kq, const char *table);
void kq_vnode_unmounted(struct kqueue *kq, const char *table)
{
	struct kq_vnodes *v = kq->vnodes;
	if (!v)
		return;
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->byfd[b]; w; w = w->fdnext)
			if (w->revoke && !w->revoked && w->mnt_id >= 0 &&
			    !kq_mount_listed(table, w->mnt_id)) {
				w->revoked = true;
				post(kq, w->fd, NOTE_REVOKE, 0);
			}
}

/* ---- without inotify or fanotify ---- */

/*
 * Where a sandbox refuses both inotify_init1() and fanotify_init() (or the
 * kernel has neither), READ on regular files and directories still works,
 * as FreeBSD's never fails: its data, size - offset, is computed at every
 * delivery anyway (filter/fd.c), and what the instance would have said,
 * that the file changed, comes from looking.  The kqueue then has entries
 * without watches (inofd -1) and kq->looks set: at the start of every
 * kevent() call, and before every sleep, each watched descriptor's size
 * and mtime are compared with the last ones seen, and a change activates
 * its READ knotes as IN_MODIFY would.  The sleep is bounded to LOOK_NS, so
 * growth reaches a sleeper within that: 20 ms, a delay no one following a
 * log sees, for 50 wake-ups a second (measured on a loaded 2-CPU VM: 40 to
 * 60 us of CPU each, 0.2 to 0.3% of a CPU, plus about 1 us per watched
 * descriptor's fstat(); 10 ms would double that, 50 ms make growth wait
 * longer than a terminal's refresh).  A rewrite that changes neither size nor mtime
 * (within the file system's timestamp granularity) goes unseen.
 * EVFILT_VNODE has no such stand-in (its notes are the kernel's events):
 * its EV_ADD fails with ENOTSUP.
 */
#define LOOK_NS 20000000

static void look(struct kqueue *kq)
{
	struct kq_vnodes *v = kq->vnodes;
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->byfd[b]; w; w = w->fdnext) {
			struct stat st;
			if (sys_fstat(w->fd, &st) != 0 ||
			    (st.st_size == w->size && ts_eq(st.st_mtim, w->mtime)))
				continue;
			w->size = st.st_size;
			w->mtime = st.st_mtim;
			kq_fd_activate_reads(kq, w->fd);
		}
}

static void vnode_begin(struct kqueue *kq)
{
	if (__builtin_expect(kq->looks & KQ_LOOKS_FILES, 0))
		look(kq);
}

static int64_t vnode_sleep(struct kqueue *kq)
{
	if (!(kq->looks & KQ_LOOKS_FILES))
		return -1;
	look(kq);
	return LOOK_NS;
}

static int sync_fd(struct kqueue *kq, int fd);

/* Called after the knotes on fd changed (added, modified, removed). */
int kq_vnode_sync(struct kqueue *kq, int fd);
int kq_vnode_sync(struct kqueue *kq, int fd)
{
	int err = sync_fd(kq, fd);
	struct kq_vnodes *v = kq->vnodes;
	kq_looks_set(kq, KQ_LOOKS_FILES, v && v->inofd < 0 && v->count > 0);
	return err;
}

static int sync_fd(struct kqueue *kq, int fd)
{
	struct kq_vnodes *v;
	struct vwatch *w = by_fd(kq->vnodes, fd);
	bool vnode;
	if (!w) {
		struct stat st;
		int err = sys_fstat(fd, &st);
		if (err)
			return err;
		bool revoke;
		if (!fd_needs(kq, fd, S_ISDIR(st.st_mode), &revoke, &vnode) && !revoke)
			return 0;
		err = vnodes_get(kq, &v);
		if (!err)
			err = vnodes_notify(kq, v);
		/* READ knotes alone can do without: they are polled */
		if (err == -ENOTSUP && !vnode)
			err = 0;
		if (err)
			return err;
		if (v->count >= v->nb && (err = grow(v)) != 0)
			return err;
		w = calloc(1, sizeof *w);
		if (!w)
			return -ENOMEM;
		w->fd = fd;
		w->wd = -1;
		w->mnt_id = -1;
		w->pfd = -1;
		remember_stat(w);
		w->holes = !w->dir && blocks_at_once(fd);
		w->fdnext = v->byfd[bucket(fd, v->nb)];
		v->byfd[bucket(fd, v->nb)] = w;
		v->count++;
	}
	v = kq->vnodes;
	w->mask = fd_needs(kq, fd, w->dir, &w->revoke, &vnode);
	if (v->inofd < 0) {
		/* polled (see "Without inotify or fanotify"): an EVFILT_VNODE
		 * knote is refused, the READ knotes keep their entry */
		if (vnode)
			return -ENOTSUP;
		if (w->mask)
			return 0;
		goto unwatched;
	}
	if (w->revoke) {
		int err = mounts_watch(kq, w);
		if (err)
			return err;
	}
	/* a directory that can still be removed, and knotes that want to
	 * know: its parent is watched, and its renames followed */
	bool parent = w->dir && (w->mask & IN_DELETE_SELF) && w->nlink > 0;
	if (parent)
		w->mask |= IN_MOVE_SELF;
	if (w->mask || w->revoke) {
		int err = place(v, w);
		if (!err && parent && !w->parent)
			parent_attach(v, w);
		else if (!parent && w->parent)
			parent_detach(kq, v, w);
		return err;
	}

	/* nothing on fd needs a watch any more */
unwatched:
	parent_detach(kq, v, w);
	for (struct vwatch **pp = &v->byfd[bucket(fd, v->nb)]; *pp; pp = &(*pp)->fdnext) {
		if (*pp == w) {
			*pp = w->fdnext;
			break;
		}
	}
	v->count--;
	int wd = w->wd;
	if (wd >= 0) {
		wd_unlink(v, w);
		if (!wd_first(v, wd))
			unwatch(kq, v, w);
	}
	fan_detach(v, w);
	free(w);
	if (wd >= 0 && v->count)
		for (struct vwatch *o = v->bywd[bucket(wd, v->nb)]; o; o = o->wdnext)
			if (o->wd == wd)
				return place(v, o);   /* narrow the shared mask */
	return 0;
}

/* ---- events ---- */

/*
 * What one inotify event stands for, as the hints FreeBSD's file systems
 * would have posted: each operation posts its own (a write NOTE_WRITE |
 * NOTE_EXTEND, a chmod NOTE_ATTRIB, an unlink NOTE_DELETE), and a knote
 * takes a hint only when it asked for a bit of it.  One event here may
 * stand for several operations (inotify merges identical events, and the
 * fstat below may see later changes), so the hints are kept apart: merged,
 * a knote asking only NOTE_DELETE would also get the NOTE_ATTRIB of a
 * chmod that came before.
 */
struct hints {
	uint32_t h[12];
	unsigned n;
};

static void hint_add(struct hints *hs, uint32_t h)
{
	if (h && hs->n < sizeof hs->h / sizeof hs->h[0])
		hs->h[hs->n++] = h;
}

/*
 * IN_MODIFY on a file is a write or a truncation: Linux reports both
 * alike.  FreeBSD posts NOTE_WRITE for a write (| NOTE_EXTEND when it grows
 * the file), but a truncation goes through VOP_SETATTR, whose hook posts
 * NOTE_ATTRIB, with NOTE_EXTEND when the file grows.  A write never
 * shortens a file; growth that brought no new blocks and ends past the
 * space allocated before is a hole, which only a truncation leaves.  What
 * this cannot tell apart (docs/differences.md): a truncation and a write
 * seen in one event are taken for the one that decides the size, and a
 * truncation that keeps the size or grows within allocated space for a
 * write.
 */
static void modify_hints(const struct vwatch *w, int64_t size, int64_t blocks,
			 struct hints *hs)
{
	if (w->size < size) {
		hint_add(hs, NOTE_ATTRIB);
	} else if (w->size > size && w->holes && w->blocks <= blocks &&
		   w->size > blocks * 512) {
		hint_add(hs, NOTE_ATTRIB);
		hint_add(hs, NOTE_EXTEND);
	} else {
		hint_add(hs, NOTE_WRITE | (w->size > size ? NOTE_EXTEND : 0));
	}
}

/* FreeBSD's hints for one inotify event on one watched fd.  `paired` says
 * a rename's other half is in the same directory (no link count change). */
static void hints_of(struct vwatch *w, const struct inotify_event *ev, bool paired,
		     struct hints *hs)
{
	uint32_t m = ev->mask;
	if (w->dir && (m & DIR_CHANGES))
		hint_add(hs, NOTE_WRITE | ((m & IN_ISDIR) && !paired ? NOTE_LINK : 0));
	if (m & (IN_MODIFY | IN_ATTRIB)) {
		/* Events are read in batches, so this fstat may already see
		 * later changes: a link count delta is reported whenever it is
		 * seen, whatever event led here (FreeBSD would have posted it
		 * with the change that caused it; the record merges them). */
		int64_t size = w->size, blocks = w->blocks;
		uint64_t nlink = w->nlink;
		bool attr = remember_stat(w);
		if (w->dir) {
			/* its count moves with subdirectories, reported with
			 * their events; only its removal is news here */
			if (w->nlink == 0 && nlink > 0)
				hint_add(hs, NOTE_DELETE);
		} else if (w->nlink > nlink) {
			hint_add(hs, NOTE_LINK);
		} else if (w->nlink < nlink) {
			hint_add(hs, NOTE_DELETE);
		}
		if ((m & IN_MODIFY) && !w->dir)
			modify_hints(w, size, blocks, hs);
		/* IN_ATTRIB with no visible link count change is an attribute
		 * change even when only the ctime moved (chown to the same
		 * owner, xattrs); a directory's IN_ATTRIB is never about links.
		 * Growth first seen here came from a write or truncation
		 * nobody watched for: its own hint. */
		if ((m & IN_ATTRIB) && (attr || w->dir || w->nlink == nlink))
			hint_add(hs, NOTE_ATTRIB);
		if (!(m & IN_MODIFY) && w->size > size)
			hint_add(hs, NOTE_EXTEND);
	}
	if ((m & IN_DELETE_SELF) && w->nlink > 0) {
		w->nlink = 0;
		hint_add(hs, NOTE_DELETE);
	}
	if (m & IN_MOVE_SELF) {
		hint_add(hs, NOTE_RENAME);
		if (w->parent)
			w->reparent = true;
	}
	if ((m & IN_UNMOUNT) && !w->revoked) {
		w->revoked = true;
		hint_add(hs, NOTE_REVOKE);
	}
	if (m & IN_OPEN)
		hint_add(hs, NOTE_OPEN);
	if (m & IN_ACCESS)
		hint_add(hs, NOTE_READ);
	if (m & IN_CLOSE_NOWRITE)
		hint_add(hs, NOTE_CLOSE);
	if (m & IN_CLOSE_WRITE)
		hint_add(hs, NOTE_CLOSE_WRITE);
}

/*
 * Posts hints to the knotes on fd (FreeBSD's filt_vfsvnode: a hint counts
 * for a knote only if it holds a bit the knote asked for; one that gets
 * nothing is not activated).
 *
 * Order: FreeBSD hangs a vnode's READ, WRITE and VNODE knotes on one list,
 * each new one at its head, and a change walks it from the head, so the
 * knote registered last is queued first.  The slot keeps its knotes in
 * registration order (kq_link), so they are activated from its tail.
 * tail -F depends on it: VNODE registered before READ, one append, and the
 * READ record must come first.
 */
static void post_hints(struct kqueue *kq, int fd, const struct hints *hs, uint32_t inmask)
{
	struct kq_fdslot *s = kq_fdslot(kq, fd, false);
	/* a slot holds one knote per filter: one READ, one VNODE at most */
	struct knote *act[2];
	unsigned nact = 0;
	for (struct knote *kn = s ? s->head : NULL; kn; kn = kn->link) {
		if (kn->filter == EVFILT_READ) {
			if ((kn->fpriv & KQ_FPRIV_FILE_WATCHED) && (inmask & (IN_MODIFY | IN_Q_OVERFLOW)))
				act[nact++] = kn;
			continue;
		}
		if (kn->filter != EVFILT_VNODE)
			continue;
		uint32_t add = 0;
		for (unsigned i = 0; i < hs->n; i++)
			if (kn->sfflags & hs->h[i])
				add |= hs->h[i];
		if (!add)
			continue;
		kn->fflags |= add;
		if (add & NOTE_REVOKE)
			kn->flags |= EV_EOF | EV_ONESHOT;
		act[nact++] = kn;
	}
	while (nact > 0)
		kq_activate(kq, act[--nact]);
}

static void post(struct kqueue *kq, int fd, uint32_t hint, uint32_t inmask)
{
	struct hints hs = { .n = 0 };
	hint_add(&hs, hint);
	post_hints(kq, fd, &hs, inmask);
}

/* A rename inside one directory shows as MOVED_FROM and MOVED_TO with one
 * cookie on the same watch; it changes no link count there. */
static bool paired_move(const char *buf, long n, const struct inotify_event *ev)
{
	if (!(ev->mask & (IN_MOVED_FROM | IN_MOVED_TO)) || !ev->cookie)
		return false;
	for (const char *p = buf; p < buf + n;) {
		const struct inotify_event *o = (const struct inotify_event *)p;
		if (o != ev && o->wd == ev->wd && o->cookie == ev->cookie &&
		    (o->mask & (IN_MOVED_FROM | IN_MOVED_TO)))
			return true;
		p += sizeof *o + o->len;
	}
	return false;
}

/* Directory w was renamed: watch its new parent.  It may have been removed
 * there already, before that watch existed: its link count tells. */
static void reparent(struct kqueue *kq, struct kq_vnodes *v, struct vwatch *w)
{
	struct stat st;
	if (w->nlink == 0 || sys_fstat(w->fd, &st) != 0)
		return;
	if (st.st_nlink == 0) {
		w->nlink = 0;
		post(kq, w->fd, NOTE_DELETE, 0);
		return;
	}
	parent_attach(v, w);
}

/* Events were lost: report what each knote asked for (its requested
 * bits only, as if each had been posted on its own). */
static void overflowed(struct kqueue *kq, struct kq_vnodes *v)
{
	struct hints hs = { .n = 0 };
	for (uint32_t b = 1; b & ALL_NOTES; b <<= 1)
		if (b != NOTE_REVOKE)
			hint_add(&hs, b);
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->byfd[b]; w; w = w->fdnext)
			post_hints(kq, w->fd, &hs, IN_Q_OVERFLOW);
}

/* One event on watch ev->wd, to every entry on it. */
static void dispatch(struct kqueue *kq, struct kq_vnodes *v, const struct inotify_event *ev,
		     bool paired)
{
	for (struct vwatch *w = v->bywd[bucket(ev->wd, v->nb)], *next; w; w = next) {
		next = w->wdnext;
		if (w->wd != ev->wd)
			continue;
		if (ev->mask & IN_IGNORED) {
			wd_unlink(v, w);
			w->wd = -1;
			continue;
		}
		if (w->isparent) {
			parent_event(kq, w, ev);
			continue;
		}
		struct hints hs = { .n = 0 };
		hints_of(w, ev, paired, &hs);
		post_hints(kq, w->fd, &hs, ev->mask);
		if (w->reparent)
			v->reparent = true;
	}
}

/* A batch of n bytes of fanotify events (see the top).  Records are
 * copied out: an event's length need only be a multiple of 4, so the next
 * one's 64-bit mask may be misaligned in buf. */
static void fan_events(struct kqueue *kq, struct kq_vnodes *v, const char *buf, long n)
{
	struct fanotify_event_metadata m;
	for (const char *ev = buf; ev + sizeof m <= buf + n; ev += m.event_len) {
		memcpy(&m, ev, sizeof m);
		if (m.event_len < sizeof m || m.event_len > (size_t)(buf + n - ev))
			return;
		if (m.vers != FANOTIFY_METADATA_VERSION || m.metadata_len < sizeof m)
			continue;
		if (m.mask & FAN_Q_OVERFLOW) {
			overflowed(kq, v);
			continue;
		}
		const char *p = ev + m.metadata_len, *end = ev + m.event_len;
		struct fanotify_event_info_header hdr;
		for (; p + sizeof hdr <= end; p += hdr.len) {
			memcpy(&hdr, p, sizeof hdr);
			if (hdr.len < sizeof hdr || hdr.len > (size_t)(end - p))
				break;
			struct fanotify_event_info_fid fid;
			struct file_handle fh;
			if (hdr.info_type != FAN_EVENT_INFO_TYPE_FID || hdr.len < sizeof fid + sizeof fh)
				continue;
			memcpy(&fid, p, sizeof fid);
			memcpy(&fh, p + sizeof fid, sizeof fh);
			if (fh.handle_bytes > hdr.len - sizeof fid - sizeof fh)
				break;
			int fsid[2];
			memcpy(fsid, &fid.fsid, sizeof fsid);
			const unsigned char *h = (const unsigned char *)p + sizeof fid + sizeof fh;
			struct fanobj *o = fan_find(v, fsid, fh.handle_type, h, fh.handle_bytes);
			if (o) {
				/* (other fanotify bits mean other things in inotify) */
				struct inotify_event iev = {
					.wd = o->wd,
					.mask = (uint32_t)m.mask & (WATCH_BITS | IN_ISDIR),
				};
				uint32_t mv = IN_MOVED_FROM | IN_MOVED_TO;
				dispatch(kq, v, &iev, (iev.mask & mv) == mv);
			}
			break;
		}
	}
}

/* The inotify fd (or fanotify group) is readable. */
static void inotify_report(struct kqueue *kq, uint64_t tag, uint32_t revents)
{
	(void)tag;
	(void)revents;
	struct kq_vnodes *v = kq->vnodes;
	if (!v || v->inofd < 0)
		return;
	union {
		struct inotify_event ev;
		struct fanotify_event_metadata fm;
		char b[16384];
	} buf;
	for (;;) {
		long n = sys_read(v->inofd, &buf, sizeof buf);
		if (n <= 0)
			return;
		if (v->fan)
			fan_events(kq, v, buf.b, n);
		for (char *p = buf.b; !v->fan && p < buf.b + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			p += sizeof *ev + ev->len;
			if (ev->mask & IN_Q_OVERFLOW)
				overflowed(kq, v);
			else
				dispatch(kq, v, ev, paired_move(buf.b, n, ev));
		}
		/* directories renamed: their parent entries follow them (not
		 * above: that may free entries of the chain being walked) */
		if (v->reparent) {
			v->reparent = false;
			for (unsigned b = 0; b < v->nb; b++)
				for (struct vwatch *w = v->byfd[b]; w; w = w->fdnext)
					if (w->reparent) {
						w->reparent = false;
						parent_detach(kq, v, w);
						reparent(kq, v, w);
					}
		}
	}
}

/* The kqueue is going: its inotify instance, emptied of watches, goes to
 * the pool if it can (see the pool above).  Called before the watch
 * entries are freed. */
static void inotify_release(struct kqueue *kq, struct kq_vnodes *v)
{
	bool park = !v->fan && v->top_wd < WD_PARK_MAX && v->count <= PARK_WATCHES_MAX;
	if (park)
		sys_epoll_ctl(kq->epfd, EPOLL_CTL_DEL, v->inofd, 0, 0);
	for (unsigned b = 0; park && b < v->nb; b++)
		for (struct vwatch *w = v->bywd[b]; park && w; w = w->wdnext) {
			if (wd_first(v, w->wd) != w)
				continue;
			/* EINVAL: inotify dropped it already (IN_IGNORED
			 * not read yet) */
			long r = KQ_SYSCALL(SYS_inotify_rm_watch, v->inofd, w->wd);
			if (r != 0 && r != -EINVAL)
				park = false;
		}
	if (!park || !pool_put(v->inofd))
		kq_fd_own_close(v->inofd);
	v->inofd = -1;
}

void kq_vnode_fini(struct kqueue *kq);
void kq_vnode_fini(struct kqueue *kq)
{
	struct kq_vnodes *v = kq->vnodes;
	if (!v)
		return;
	if (v->inofd >= 0)
		inotify_release(kq, v);
	/* parent entries first: their chains still reach the others */
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->bywd[b], *next; w; w = next) {
			next = w->wdnext;
			if (w->isparent) {
				kq_fd_own_close(w->pfd);
				free(w);
			}
		}
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->byfd[b], *next; w; w = next) {
			next = w->fdnext;
			free(w);
		}
	for (unsigned b = 0; v->objs && b < FAN_BUCKETS; b++)
		for (struct fanobj *o = v->objs[b], *next; o; o = next) {
			next = o->next;
			free(o);
		}
	kq_fd_own_close(v->inofd);
	free(v->objs);
	free(v->byfd);
	free(v->bywd);
	free(v);
	kq->vnodes = NULL;
	kq->looks &= (uint8_t)~KQ_LOOKS_FILES;
}

static void vnode_forget(struct kqueue *kq)
{
	struct kq_vnodes *v = kq->vnodes;
	if (!v)
		return;
	kq_fd_own_close(v->inofd);
	for (unsigned b = 0; b < v->nb; b++)
		for (struct vwatch *w = v->bywd[b]; w; w = w->wdnext)
			if (w->isparent)
				kq_fd_own_close(w->pfd);
}

/* ---- EVFILT_VNODE ---- */

/* FreeBSD: files, directories, FIFOs and other file-system objects; not
 * sockets, pipes or anonymous objects (EINVAL). */
static int vnode_attach(struct kqueue *kq, struct knote *kn)
{
	int fd = (int)kn->ident;
	struct stat st;
	int err = sys_fstat(fd, &st);
	if (err)
		return err;
	switch (st.st_mode & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFCHR: case S_IFBLK:
		break;
	case S_IFIFO: {
		struct statfs sf;
		int e = errno, r = fstatfs(fd, &sf);
		errno = e;
		if (r != 0 || sf.f_type == PIPEFS_MAGIC)
			return -EINVAL;
		break;
	}
	default:
		return -EINVAL;
	}
	(void)kq;
	kn->fflags = 0;
	return 0;
}

static void vnode_detach(struct kqueue *kq, struct knote *kn)
{
	if (!kq->dead)
		kq_vnode_sync(kq, (int)kn->ident);
}

static int vnode_event(struct kqueue *kq, struct knote *kn)
{
	(void)kq;
	kn->data = 0;
	return kn->fflags != 0;
}

static int vnode_arm(struct kqueue *kq, struct knote *kn)
{
	int err = kq_vnode_sync(kq, (int)kn->ident);
	if (err)
		return err;
	return kn->fflags ? 0 : 1;
}

const struct filterops kq_vnode_filtops = {
	.isfd = true,
	.attach = vnode_attach,
	.detach = vnode_detach,
	.event = vnode_event,
	.arm = vnode_arm,
	.fini = kq_vnode_fini,
	.forget = vnode_forget,
};

const struct kq_source kq_vnode_source = {
	.report = inotify_report, .begin = vnode_begin, .sleep = vnode_sleep,
};
