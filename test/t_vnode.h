/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared helpers for the EVFILT_VNODE tests (test/vnode-*.c):
 *   vt_mkdir()   a private directory under /tmp, removed with its contents
 *                at exit;
 *   vt_create()  creates and opens a file in it;
 *   vt_file()    both: one file in a private directory;
 *   vt_mkdir_open() makes and opens a directory in it, vt_subdir() makes
 *                one, vt_new_file() an empty file;
 *   vt_watch_dir() a directory watched from two kqueues;
 *   vt_touch()   sets a file's times (a real attribute change);
 *   WANT1()      exactly one EVFILT_VNODE record, equal to the given one;
 *   WANT1_ONLY() the same with EV_CLEAR, then nothing more for 50 ms;
 *   WANTDIR()    one EV_CLEAR record whose fflags hold some bits and may
 *                hold some others.
 */
#ifndef KQ_TEST_T_VNODE_H
#define KQ_TEST_T_VNODE_H

#include "t.h"

#include <ftw.h>

static inline char *vt_dir_state(void)
{
	static char dir[64];
	return dir;
}

static inline int vt_rm(const char *p, const struct stat *sb, int type,
			struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	remove(p);
	return 0;
}

static inline void vt_cleanup(void)
{
	char *dir = vt_dir_state();

	if (dir[0])
		nftw(dir, vt_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* A private directory under /tmp, removed with its contents at exit. */
static inline const char *vt_mkdir(void)
{
	char *dir = vt_dir_state();

	strcpy(dir, "/tmp/kqvnode.XXXXXX");
	if (mkdtemp(dir) == NULL)
		T_FAIL("mkdtemp: %s", strerror(errno));
	atexit(vt_cleanup);
	return dir;
}

/* Creates (empty, mode 0600) and opens O_RDWR the file dir/name. */
static inline int vt_create(char *path, size_t size, const char *dir,
			    const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		T_FAIL("open(%s): %s", path, strerror(errno));
	return fd;
}

/* The file "file" in a private directory (vt_mkdir()): created, opened
 * O_RDWR and its path put in path. */
static inline int vt_file(char *path, size_t size)
{
	return vt_create(path, size, vt_mkdir(), "file");
}

/* Makes the directory dir/name (mode 0700) and opens it O_RDONLY, for a
 * knote on it; its path goes to path. */
static inline int vt_mkdir_open(char *path, size_t size, const char *dir,
				const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
	if (mkdir(path, 0700) != 0)
		T_FAIL("mkdir(%s): %s", path, strerror(errno));
	int fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		T_FAIL("open(%s): %s", path, strerror(errno));
	return fd;
}

/* Makes the directory dir/name (mode 0700), its path going to path. */
static inline void vt_subdir(char *path, size_t size, const char *dir,
			     const char *name)
{
	snprintf(path, size, "%s/%s", dir, name);
	if (mkdir(path, 0700) != 0)
		T_FAIL("mkdir(%s): %s", path, strerror(errno));
}

/* Creates the empty file path (mode 0600), leaving it closed. */
static inline void vt_new_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);

	if (fd < 0)
		T_FAIL("open(%s): %s", path, strerror(errno));
	if (close(fd) != 0)
		T_FAIL("close: %s", strerror(errno));
}

/* Watches the directory dfd from kq (EV_CLEAR, fflags) and from kql
 * (EV_CLEAR, NOTE_LINK alone, to see what a link count watcher gets);
 * nothing is reported yet. */
static inline void vt_watch_dir(int kq, int kql, int dfd, unsigned int fflags,
				void *ud)
{
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, fflags, 0, ud);
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);
	T_NO_EVENTS(kq);
}

/* Sets both file times to sec (each call a distinct value: a real change). */
static inline void vt_touch(int fd, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	if (futimens(fd, ts) != 0)
		T_FAIL("futimens: %s", strerror(errno));
}

/* Waits at most 2 s for records into ev[4]; exactly one must come. */
static inline void vt_wait1(const char *file, int line, int kq,
			    struct kevent ev[4])
{
	int n = t_wait(kq, ev, 4, 2000);

	if (n != 1) {
		for (int i = 0; i < n; i++)
			t_print_kevent("  got", &ev[i]);
		T_FAIL("%s line %d: expected one record, got %d", file, line,
		       n);
	}
}

/*
 * Waits at most 2 s; exactly one record must come and equal
 * {id, EVFILT_VNODE, fl, ffl, 0, ud}.  quiet_ms >= 0: then no record may
 * come within quiet_ms either.
 */
static inline void vt_want1(const char *file, int line, int kq, int id,
			    unsigned short fl, unsigned int ffl, void *ud,
			    long quiet_ms)
{
	struct kevent ev[4];

	vt_wait1(file, line, kq, ev);
	t_kevent_check(file, line, &ev[0], (uintptr_t)id, EVFILT_VNODE,
		       fl, ffl, 0, ud);
	if (quiet_ms >= 0)
		T_EQ(t_wait(kq, ev, 4, quiet_ms), 0);
}

/* Waits at most 2 s; exactly one record must come and equal the given one. */
#define WANT1(kq, id, fl, ffl, ud) \
	vt_want1(__FILE__, __LINE__, (kq), (id), (fl), (ffl), (void *)(ud), -1)

/* One {id, VNODE, EV_CLEAR, ffl, 0, ud} within 2 s, then none for 50 ms. */
#define WANT1_ONLY(kq, id, ffl, ud) \
	vt_want1(__FILE__, __LINE__, (kq), (id), EV_CLEAR, (ffl), \
		 (void *)(ud), 50)

/*
 * Waits at most 2 s; exactly one record must come: {fd, VNODE, EV_CLEAR,
 * fflags, 0, udata} where fflags holds every bit of need and otherwise
 * only bits of allow.
 */
#define WANTDIR(kq, id, need, allow, ud) \
	vt_wantdir(__FILE__, __LINE__, (kq), (id), (need), (allow), \
		   (void *)(ud))

static inline void vt_wantdir(const char *file, int line, int kq, int id,
			      unsigned int need, unsigned int allow, void *ud)
{
	struct kevent ev[4];

	vt_wait1(file, line, kq, ev);
	if ((ev[0].fflags & need) != need ||
	    (ev[0].fflags & ~(need | allow)) != 0) {
		t_print_kevent("  got", &ev[0]);
		T_FAIL("%s line %d: fflags 0x%x, need 0x%x, allowed besides "
		       "0x%x", file, line, ev[0].fflags, need, allow);
	}
	t_kevent_check(file, line, &ev[0], (uintptr_t)id, EVFILT_VNODE,
		       EV_CLEAR, ev[0].fflags, 0, ud);
}

#endif
