/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One append to a regular file activates the READ and VNODE knotes on it
 * in FreeBSD's order: the knotes of a vnode hang on one list, a new one at
 * its head (knlist_add), and a write walks the list from the head, so the
 * knote registered last is queued first.  FreeBSD's tail -F depends on it:
 * with VNODE (NOTE_WRITE|NOTE_EXTEND, EV_CLEAR) registered first and READ
 * (EV_CLEAR) second, it reads to the end of the file on the READ record
 * and then takes the VNODE record as the sign of a write it has handled.
 * Checked with room for one record at a time, so each call returns the
 * head of the queue:
 *   - VNODE then READ registered, at end of file, one append of 5 bytes:
 *     {READ, EV_CLEAR, data 5}, then {VNODE, EV_CLEAR, NOTE_WRITE|NOTE_EXTEND};
 *   - READ then VNODE registered: VNODE first, then READ;
 *   - both in one changelist (VNODE, READ): READ first, as for two calls;
 *   - a second append after both were taken: the same order again.
 */
#include "t_vnode.h"

#include <stdbool.h>

static void *const UR = (void *)0x4ead;
static void *const UV = (void *)0x7e0d;

static void take(int kq, int fd, short filter, int64_t data)
{
	struct kevent ev;
	struct timespec ts = { 2, 0 };
	int n = kevent(kq, NULL, 0, &ev, 1, &ts);
	if (n != 1)
		T_FAIL("kevent: %d records (errno %d), expected the %s record", n, errno,
		       filter == EVFILT_READ ? "READ" : "VNODE");
	if (filter == EVFILT_READ)
		T_KEVENT(&ev, fd, EVFILT_READ, EV_CLEAR, 0, data, UR);
	else
		T_KEVENT(&ev, fd, EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, UV);
}

/* first: the filter registered first; together: in one changelist */
static void check(const char *dir, const char *name, short first, bool together)
{
	char path[160];
	int fd = vt_create(path, sizeof path, dir, name);
	int w = open(path, O_WRONLY | O_APPEND);
	T_ASSERT(w >= 0);
	int kq = t_kqueue();
	struct kevent ch[2];
	EV_SET(&ch[0], fd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0, UV);
	EV_SET(&ch[1], fd, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, UR);
	if (first == EVFILT_READ) {
		struct kevent t = ch[0];
		ch[0] = ch[1];
		ch[1] = t;
	}
	if (together) {
		T_EQ(kevent(kq, ch, 2, NULL, 0, NULL), 0);
	} else {
		T_EQ(kevent(kq, &ch[0], 1, NULL, 0, NULL), 0);
		T_EQ(kevent(kq, &ch[1], 1, NULL, 0, NULL), 0);
	}
	T_NO_EVENTS(kq);

	short second = first == EVFILT_READ ? EVFILT_VNODE : EVFILT_READ;
	char buf[16];
	for (int round = 0; round < 2; round++) {
		t_write(w, "hello", 5);
		/* the last registered is queued first */
		take(kq, fd, second, 5);
		take(kq, fd, first, 5);
		T_EQ(read(fd, buf, sizeof buf), 5);
		T_NO_EVENTS(kq);
	}
	close(kq);
	close(w);
	close(fd);
}

int main(void)
{
	const char *dir = vt_mkdir();
	check(dir, "tail-F", EVFILT_VNODE, false);
	check(dir, "read-first", EVFILT_READ, false);
	check(dir, "together", EVFILT_VNODE, true);
	return 0;
}
