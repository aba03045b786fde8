/*
 * EVFILT_READ on regular files and directories.  epoll refuses them, so the
 * knote is library-driven: it is evaluated (size - offset) at each scan while
 * queued, and a file that grows (or shrinks) activates it again through one
 * inotify instance per kqueue, created on first use.
 *
 * The watch is placed through /proc/self/fd/N so it lands on the very inode
 * the descriptor refers to, also after the name was unlinked or renamed.
 * inotify keeps one watch per inode, so fds on the same file share a wd.
 */
#include "kq.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>

struct kq_vfile {
	int fd;
	int wd;
};

void kq_fd_activate_reads(struct kqueue *kq, int fd);   /* filter/fd.c */

static int inotify_ready(struct kqueue *kq)
{
	if (kq->inofd >= 0)
		return 0;
	int e = errno, fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	int err = fd < 0 ? -errno : 0;
	errno = e;
	if (err)
		return err;
	err = sys_epoll_ctl(kq->epfd, EPOLL_CTL_ADD, fd, EPOLLIN, KQ_TAG_INOTIFY);
	if (err) {
		sys_close(fd);
		return err;
	}
	kq->inofd = fd;
	return 0;
}

int kq_vfile_watch(struct kqueue *kq, int fd);
int kq_vfile_watch(struct kqueue *kq, int fd)
{
	int err = inotify_ready(kq);
	if (err)
		return err;
	if (kq->nvfiles == kq->capvfiles) {
		unsigned n = kq->capvfiles ? kq->capvfiles * 2 : 8;
		struct kq_vfile *v = realloc(kq->vfiles, n * sizeof *v);
		if (!v)
			return -ENOMEM;
		kq->vfiles = v;
		kq->capvfiles = n;
	}
	char path[40];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int e = errno;
	int wd = inotify_add_watch(kq->inofd, path, IN_MODIFY | IN_ATTRIB);
	err = wd < 0 ? -errno : 0;
	errno = e;
	if (err)
		return err;
	kq->vfiles[kq->nvfiles++] = (struct kq_vfile){ fd, wd };
	return 0;
}

void kq_vfile_unwatch(struct kqueue *kq, int fd);
void kq_vfile_unwatch(struct kqueue *kq, int fd)
{
	for (unsigned i = 0; i < kq->nvfiles; i++) {
		if (kq->vfiles[i].fd != fd)
			continue;
		int wd = kq->vfiles[i].wd;
		kq->vfiles[i] = kq->vfiles[--kq->nvfiles];
		for (unsigned j = 0; j < kq->nvfiles; j++)
			if (kq->vfiles[j].wd == wd)
				return;
		int e = errno;
		inotify_rm_watch(kq->inofd, wd);
		errno = e;
		return;
	}
}

/* The inotify fd is readable: activate every READ knote on a changed file. */
void kq_vfile_report(struct kqueue *kq);
void kq_vfile_report(struct kqueue *kq)
{
	union {
		struct inotify_event ev;
		char b[4096];
	} buf;
	for (;;) {
		long n = sys_read(kq->inofd, &buf, sizeof buf);
		if (n <= 0)
			break;
		for (char *p = buf.b; p < buf.b + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			for (unsigned i = 0; i < kq->nvfiles; i++)
				if (kq->vfiles[i].wd == ev->wd)
					kq_fd_activate_reads(kq, kq->vfiles[i].fd);
			p += sizeof *ev + ev->len;
		}
	}
}

/* The kqueue is being destroyed: its inotify instance goes. */
void kq_vfile_fini(struct kqueue *kq);
void kq_vfile_fini(struct kqueue *kq)
{
	if (kq->inofd >= 0)
		sys_close(kq->inofd);
	kq->inofd = -1;
	free(kq->vfiles);
	kq->vfiles = NULL;
	kq->nvfiles = kq->capvfiles = 0;
}
