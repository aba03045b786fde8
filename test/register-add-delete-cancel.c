/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A changelist that creates a READ or WRITE knote and deletes it in the
 * next change has no lasting effect (FreeBSD: attach, then detach), and
 * libkq does not even make the epoll entry (a performance goal: changes that
 * cancel out cost nothing).  Checked:
 *   - {ADD READ p, DELETE READ p} on a pipe with data: kevent() returns 0,
 *     nothing is ever reported, no epoll entry exists for p (fdinfo of the
 *     kqueue, which is the epoll descriptor), and a later DELETE is ENOENT;
 *     a plain ADD does make the entry (so the fdinfo check can fail);
 *   - the same with WRITE beside an existing READ knote, which keeps working;
 *   - on a closed descriptor: both changes fail as in FreeBSD, EBADF
 *     records {fd, READ, EV_ERROR, 0, EBADF, udata} for the ADD and for the
 *     DELETE;
 *   - a WRITE knote on a pipe whose reader is gone: EPIPE for the ADD, ENOENT
 *     for the DELETE;
 *   - READ on a kqueue that already watches this one: no record (an epoll
 *     entry would have been a loop, ELOOP; FreeBSD has no such check).
 */
#include "t.h"

static int has_entry(int kq, int fd)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", kq);
	FILE *f = fopen(path, "r");
	if (!f)
		T_SKIP("cannot read %s: %s", path, strerror(errno));
	int found = 0, tfd;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "tfd: %d", &tfd) == 1 && tfd == fd)
			found = 1;
	fclose(f);
	return found;
}

int main(void)
{
	int kq = t_kqueue(), p[2], q[2];
	struct kevent ch[2], ev[4];
	void *ud = (void *)0x77;
	struct timespec zero = { 0, 0 };

	t_pipe(p);
	t_write(p[1], "xy", 2);
	EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	EV_SET(&ch[1], p[0], EVFILT_READ, EV_DELETE, 0, 0, ud);
	T_EQ(kevent(kq, ch, 2, ev, 4, &zero), 0);
	T_ASSERT(!has_entry(kq, p[0]));
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);

	/* WRITE added and deleted beside a READ knote that stays */
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	T_ASSERT(has_entry(kq, p[0]));
	EV_SET(&ch[0], p[0], EVFILT_WRITE, EV_ADD, 0, 0, ud);
	EV_SET(&ch[1], p[0], EVFILT_WRITE, EV_DELETE, 0, 0, ud);
	T_EQ(kevent(kq, ch, 2, ev, 4, &zero), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 2, ud);
	T_EQ(t_change_err(kq, p[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL), ENOENT);

	/* a closed descriptor: two EBADF records */
	t_pipe(q);
	int dead = q[0];
	T_ASSERT(close(q[0]) == 0);
	EV_SET(&ch[0], dead, EVFILT_READ, EV_ADD, 0, 0, ud);
	EV_SET(&ch[1], dead, EVFILT_READ, EV_DELETE, 0, 0, ud);
	T_EQ(kevent(kq, ch, 2, ev, 4, &zero), 2);
	T_KEVENT(&ev[0], dead, EVFILT_READ, EV_ERROR, 0, EBADF, ud);
	T_KEVENT(&ev[1], dead, EVFILT_READ, EV_ERROR, 0, EBADF, ud);

	/* WRITE on a pipe without reader: EPIPE, then ENOENT */
	EV_SET(&ch[0], q[1], EVFILT_WRITE, EV_ADD, 0, 0, ud);
	EV_SET(&ch[1], q[1], EVFILT_WRITE, EV_DELETE, 0, 0, ud);
	T_EQ(kevent(kq, ch, 2, ev, 4, &zero), 2);
	T_KEVENT(&ev[0], q[1], EVFILT_WRITE, EV_ERROR, 0, EPIPE, ud);
	T_KEVENT(&ev[1], q[1], EVFILT_WRITE, EV_ERROR, 0, ENOENT, ud);
	T_ASSERT(!has_entry(kq, q[1]));

	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 2, ud);

	/* Observable proof that no epoll entry was attempted: kqueue b
	 * watches kq, so an epoll entry for b in kq would be a loop (ELOOP);
	 * FreeBSD makes no such check, and the pair leaves no trace. */
	int b = t_kqueue();
	t_change(b, kq, EVFILT_READ, EV_ADD, 0, 0, ud);
	EV_SET(&ch[0], b, EVFILT_READ, EV_ADD, 0, 0, ud);
	EV_SET(&ch[1], b, EVFILT_READ, EV_DELETE, 0, 0, ud);
	T_EQ(kevent(kq, ch, 2, NULL, 0, NULL), 0);
	T_ASSERT(!has_entry(kq, b));
	T_ASSERT(close(b) == 0);
	T_ASSERT(close(kq) == 0);
	return 0;
}
