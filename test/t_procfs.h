/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the tests of libkq where /proc/self does not serve
 * (test/procfs-*.c): the filters that used to depend on it, checked in
 * whatever state the caller left /proc in.
 *   EVFILT_VNODE on a file: write, attribute change, rename, unlink, and a
 *     knote asking for NOTE_REVOKE, which must be accepted;
 *   EVFILT_VNODE on a directory: a subdirectory made and removed, then the
 *     directory itself removed while its descriptor stays open;
 *   EVFILT_READ on a regular file: data = size - offset, and growth seen;
 *   EVFILT_READ and EVFILT_WRITE on an eventfd: the counter when libkq can
 *     read it, otherwise what man/kevent.2 documents (READ data 1, WRITE
 *     data 0).
 */
#ifndef KQ_TEST_T_PROCFS_H
#define KQ_TEST_T_PROCFS_H

#include "t_vnode.h"

#include <stdbool.h>
#include <sys/eventfd.h>

static inline void tp_vnode_file(int kq, const char *top)
{
	char path[128], moved[128];
	void *ud = (void *)0x5f1;
	int fd = vt_create(path, sizeof path, top, "f");

	snprintf(moved, sizeof moved, "%s/g", top);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB | NOTE_RENAME | NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);
	t_write(fd, "abc", 3);
	WANT1_ONLY(kq, fd, NOTE_WRITE | NOTE_EXTEND, ud);
	T_ASSERT(fchmod(fd, 0640) == 0);
	WANT1_ONLY(kq, fd, NOTE_ATTRIB, ud);
	T_ASSERT(rename(path, moved) == 0);
	WANT1_ONLY(kq, fd, NOTE_RENAME, ud);
	T_ASSERT(unlink(moved) == 0);
	WANT1_ONLY(kq, fd, NOTE_DELETE, ud);
	T_EQ(close(fd), 0);
	T_NO_EVENTS(kq);

	/* NOTE_REVOKE is accepted with the rest */
	fd = vt_create(path, sizeof path, top, "r");
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE | NOTE_REVOKE, 0, ud);
	t_write(fd, "x", 1);
	WANT1_ONLY(kq, fd, NOTE_WRITE | NOTE_EXTEND, ud);   /* the whole hint */
	T_EQ(close(fd), 0);
	T_ASSERT(unlink(path) == 0);
}

static inline void tp_vnode_dir(int kq, const char *top)
{
	char dir[128], sub[160];
	int dfd = vt_mkdir_open(dir, sizeof dir, top, "d");
	void *ud = (void *)0x5f2;

	snprintf(sub, sizeof sub, "%s/s", dir);
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_WRITE | NOTE_LINK | NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);
	T_ASSERT(mkdir(sub, 0700) == 0);
	WANT1_ONLY(kq, dfd, NOTE_WRITE | NOTE_LINK, ud);
	T_ASSERT(rmdir(sub) == 0);
	WANT1_ONLY(kq, dfd, NOTE_WRITE | NOTE_LINK, ud);
	/* reported while dfd is open: libkq watches the parent for it */
	T_ASSERT(rmdir(dir) == 0);
	WANT1_ONLY(kq, dfd, NOTE_DELETE, ud);
	T_EQ(close(dfd), 0);
	T_NO_EVENTS(kq);
}

static inline void tp_read_file(int kq, const char *top)
{
	char path[128];
	void *ud = (void *)0x5f3;
	struct kevent ev[4];
	char buf[16];
	int fd = vt_create(path, sizeof path, top, "data");

	t_write(fd, "0123456789", 10);
	T_EQ(lseek(fd, 4, SEEK_SET), 4);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 6, ud);
	T_EQ(read(fd, buf, sizeof buf), 6);
	T_NO_EVENTS(kq);

	int w = open(path, O_WRONLY | O_APPEND);
	T_ASSERT(w >= 0);
	t_write(w, "abcd", 4);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 4, ud);
	T_EQ(close(w), 0);
	T_EQ(close(fd), 0);
	T_ASSERT(unlink(path) == 0);
}

static inline void tp_eventfd(int kq, bool counter_known)
{
	void *ud = (void *)0x5f4;
	struct kevent ev[4];
	int efd = eventfd(0, EFD_NONBLOCK);
	T_ASSERT(efd >= 0);

	t_change(kq, efd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);
	t_eventfd_add(efd, 5);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], efd, EVFILT_READ, 0, 0, counter_known ? 5 : 1, ud);
	t_change(kq, efd, EVFILT_READ, EV_DELETE, 0, 0, NULL);

	t_change(kq, efd, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_wait(kq, ev, 4, 2000), 1);
	T_KEVENT(&ev[0], efd, EVFILT_WRITE, 0, 0,
		 counter_known ? (int64_t)(UINT64_C(0xfffffffffffffffe) - 5) : 0, ud);
	T_EQ(close(efd), 0);
	T_NO_EVENTS(kq);
}

/* Runs every check above in one new kqueue. */
static inline void tp_check_filters(bool counter_known)
{
	int kq = t_kqueue();
	const char *top = vt_mkdir();

	tp_vnode_file(kq, top);
	tp_vnode_dir(kq, top);
	tp_read_file(kq, top);
	tp_eventfd(kq, counter_known);
	T_EQ(close(kq), 0);
}

#endif
