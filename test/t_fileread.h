/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ on a regular file and on a directory, checked record by
 * record, for the tests where libkq hears of a file's changes by other
 * means than inotify (test/sandbox-inotify-*.c).  FreeBSD's READ knote on
 * a file is ready while offset < size, with data = size - offset, and it
 * never fails to attach.
 *  - level: {fd, EVFILT_READ, 0, 0, size - offset, udata} at every call
 *    while there is something to read, nothing at end of file, and an
 *    append by another descriptor seen by the very next zero-timeout call;
 *  - growth while a kevent() sleeps (a thread appends 100 ms into a wait
 *    of up to 5 s) ends the sleep with the record, within a second;
 *  - EV_CLEAR: one record per change of the file, none in between;
 *  - EV_ONESHOT: one record, then the knote is gone (EV_DELETE: ENOENT),
 *    also when it was added at end of file and fired while asleep;
 *  - a directory's READ knote: data = its size - offset.
 * It leaves its temporary file and directory (t_tmp_path) in place.
 */
#ifndef KQ_TEST_T_FILEREAD_H
#define KQ_TEST_T_FILEREAD_H

#include "t.h"

/* A wait of up to 5 s for one record, which must come within a second
 * (growth made 100 ms into it). */
#define TF_WAIT1(kq, id, fl, dat, ud) do {                                 \
	int64_t tf_t0_ = t_now_ns();                                       \
	T_WAIT1((kq), 5000, (id), EVFILT_READ, (fl), 0, (dat), (ud));      \
	if (t_now_ns() - tf_t0_ > 1000000000)                              \
		T_FAIL("growth reported after %lld ms",                    \
		       (long long)((t_now_ns() - tf_t0_) / 1000000));      \
} while (0)

static inline void *tf_append_main(void *arg)
{
	t_sleep_ms(100);
	t_write(*(int *)arg, "w", 1);
	return NULL;
}

/* Appends a byte to *fd from another thread 100 ms from now; joined by
 * tf_joined(), so that the thread's write comes before what follows. */
static inline pthread_t tf_append_later(int *fd)
{
	pthread_t th;
	int err = pthread_create(&th, NULL, tf_append_main, fd);
	if (err)
		T_FAIL("pthread_create: %s", strerror(err));
	return th;
}

static inline void tf_joined(pthread_t th)
{
	T_EQ(pthread_join(th, NULL), 0);
}

static inline void tf_delete(int kq, int fd, int err)
{
	struct kevent ch;
	EV_SET(&ch, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	if (err)
		T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), err);
	else
		T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
}

static inline void tf_check_read(int kq)
{
	const char *path;
	void *ud = (void *)0x7e1;
	int fd = t_tmp_file(&path);
	int w = open(path, O_WRONLY | O_APPEND);
	T_ASSERT(w >= 0);
	t_write(fd, "0123456789", 10);
	T_EQ(lseek(fd, 4, SEEK_SET), 4);

	/* level */
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 6, ud);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 6, ud);
	T_EQ(lseek(fd, 0, SEEK_END), 10);
	T_NO_EVENTS(kq);
	t_write(w, "ab", 2);
	T_GET1(kq, fd, EVFILT_READ, 0, 0, 2, ud);
	T_EQ(lseek(fd, 0, SEEK_END), 12);
	T_NO_EVENTS(kq);
	pthread_t th = tf_append_later(&w);
	TF_WAIT1(kq, fd, 0, 1, ud);
	tf_joined(th);
	tf_delete(kq, fd, 0);

	/* EV_CLEAR */
	T_EQ(lseek(fd, 8, SEEK_SET), 8);
	t_change(kq, fd, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_READ, EV_CLEAR, 0, 5, ud);
	T_NO_EVENTS(kq);
	t_write(w, "c", 1);
	T_GET1(kq, fd, EVFILT_READ, EV_CLEAR, 0, 6, ud);
	T_NO_EVENTS(kq);
	th = tf_append_later(&w);
	TF_WAIT1(kq, fd, EV_CLEAR, 7, ud);
	tf_joined(th);
	T_NO_EVENTS(kq);
	tf_delete(kq, fd, 0);

	/* EV_ONESHOT */
	t_change(kq, fd, EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, ud);
	T_GET1(kq, fd, EVFILT_READ, EV_ONESHOT, 0, 7, ud);
	T_NO_EVENTS(kq);
	tf_delete(kq, fd, ENOENT);
	T_EQ(lseek(fd, 0, SEEK_END), 15);
	t_change(kq, fd, EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0, ud);
	T_NO_EVENTS(kq);
	th = tf_append_later(&w);
	TF_WAIT1(kq, fd, EV_ONESHOT, 1, ud);
	tf_joined(th);
	t_write(w, "d", 1);
	T_NO_EVENTS(kq);
	tf_delete(kq, fd, ENOENT);

	/* a directory */
	int dfd = open(t_tmp_state()->dir, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);
	struct stat st;
	T_EQ(fstat(dfd, &st), 0);
	t_change(kq, dfd, EVFILT_READ, EV_ADD, 0, 0, ud);
	if (st.st_size > 0)
		T_GET1(kq, dfd, EVFILT_READ, 0, 0, st.st_size, ud);
	else
		T_NO_EVENTS(kq);
	tf_delete(kq, dfd, 0);
	T_NO_EVENTS(kq);
	close(dfd);
	close(w);
	close(fd);
}

#endif
