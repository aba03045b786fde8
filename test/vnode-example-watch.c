/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Watching a file, the example in Figure 8 of the kqueue paper: an
 * open file is registered with EV_ADD|EV_ENABLE|EV_CLEAR and
 * NOTE_RENAME|NOTE_WRITE|NOTE_DELETE|NOTE_ATTRIB, written the way a FreeBSD
 * program does it.  Writing to it, renaming it, chmod-ing it and unlinking
 * it are each reported with the matching bits: the write (which grows the
 * file) as NOTE_WRITE|NOTE_EXTEND (FreeBSD posts the whole hint), the
 * others as NOTE_RENAME, NOTE_ATTRIB, NOTE_DELETE; flags are EV_CLEAR
 * (EV_ADD and EV_ENABLE are never returned).  The same four steps on a
 * second file with no collection in between give one record with all the
 * bits OR-ed.  Without EV_CLEAR (third file) the record repeats unchanged
 * at every collection.
 */
#include "t_vnode.h"

/* One kevent() call, as in the paper's loop (bounded here by 2 s). */
static struct kevent next_event(int kq)
{
	struct kevent ev;
	struct timespec timeout = { 2, 0 };
	int n = kevent(kq, NULL, 0, &ev, 1, &timeout);

	if (n != 1)
		T_FAIL("kevent returned %d (errno %d), expected an event", n,
		       errno);
	return ev;
}

static int watch(int kq, int fd, unsigned short flags, void *ud)
{
	struct kevent kev;

	EV_SET(&kev, fd, EVFILT_VNODE, flags,
	       NOTE_RENAME | NOTE_WRITE | NOTE_DELETE | NOTE_ATTRIB, 0, ud);
	return kevent(kq, &kev, 1, NULL, 0, NULL);
}

int main(void)
{
	const char *dir = vt_mkdir();
	char a[128], a2[128], b[128], b2[128], c[128];
	int kq = kqueue(), kq2 = kqueue(), kq3 = kqueue();
	void *ud = (void *)0x4;
	struct kevent ev;

	T_ASSERT(kq >= 0 && kq2 >= 0 && kq3 >= 0);
	int fa = vt_create(a, sizeof a, dir, "a");
	int fb = vt_create(b, sizeof b, dir, "b");
	int fc = vt_create(c, sizeof c, dir, "c");
	snprintf(a2, sizeof a2, "%s/a.renamed", dir);
	snprintf(b2, sizeof b2, "%s/b.renamed", dir);

	/* One step at a time. */
	T_EQ(watch(kq, fa, EV_ADD | EV_ENABLE | EV_CLEAR, ud), 0);
	T_NO_EVENTS(kq);
	t_write(fa, "hello\n", 6);
	ev = next_event(kq);
	T_KEVENT(&ev, fa, EVFILT_VNODE, EV_CLEAR, NOTE_WRITE | NOTE_EXTEND, 0,
		 ud);
	T_ASSERT(rename(a, a2) == 0);
	ev = next_event(kq);
	T_KEVENT(&ev, fa, EVFILT_VNODE, EV_CLEAR, NOTE_RENAME, 0, ud);
	T_ASSERT(chmod(a2, 0644) == 0);
	ev = next_event(kq);
	T_KEVENT(&ev, fa, EVFILT_VNODE, EV_CLEAR, NOTE_ATTRIB, 0, ud);
	T_ASSERT(unlink(a2) == 0);
	ev = next_event(kq);
	T_KEVENT(&ev, fa, EVFILT_VNODE, EV_CLEAR, NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq);

	/* All four before one collection. */
	T_EQ(watch(kq2, fb, EV_ADD | EV_ENABLE | EV_CLEAR, ud), 0);
	t_write(fb, "hello\n", 6);
	T_ASSERT(rename(b, b2) == 0);
	T_ASSERT(chmod(b2, 0644) == 0);
	T_ASSERT(unlink(b2) == 0);
	ev = next_event(kq2);
	T_KEVENT(&ev, fb, EVFILT_VNODE, EV_CLEAR,
		 NOTE_WRITE | NOTE_EXTEND | NOTE_RENAME | NOTE_ATTRIB |
		 NOTE_DELETE, 0, ud);
	T_NO_EVENTS(kq2);

	/* Without EV_CLEAR the same event keeps coming back. */
	T_EQ(watch(kq3, fc, EV_ADD | EV_ENABLE, ud), 0);
	t_write(fc, "hello\n", 6);
	for (int i = 0; i < 3; i++) {
		ev = next_event(kq3);
		T_KEVENT(&ev, fc, EVFILT_VNODE, 0, NOTE_WRITE | NOTE_EXTEND, 0,
			 ud);
	}
	return 0;
}
