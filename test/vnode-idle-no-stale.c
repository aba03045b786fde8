/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue closed with VNODE records pending (changes its inotify
 * instance reported and nobody read) leaves nothing to the next kqueue:
 * libkq keeps a closed kqueue's inotify instance for a later one, and the
 * later one must not report the old kqueue's changes, neither on another
 * file nor on the same file, whose knote in the new kqueue was added after
 * them.  Its own changes are reported, each once, with its own udata.
 */
#include "t_vnode.h"

int main(void)
{
	const char *dir = vt_mkdir();
	char pf[128], pg[128];
	int f = vt_create(pf, sizeof pf, dir, "f");
	int g = vt_create(pg, sizeof pg, dir, "g");
	int inotify0 = t_count_inotify();

	for (int round = 0; round < 20; round++) {
		int kqa = t_kqueue();
		t_change(kqa, f, EVFILT_VNODE, EV_ADD | EV_CLEAR,
			 NOTE_WRITE | NOTE_ATTRIB | NOTE_LINK, 0, (void *)0xa);
		t_change(kqa, g, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE,
			 0, (void *)0xa);
		/* pending in kqa's instance when it is closed */
		t_write(f, "x", 1);
		T_ASSERT(fchmod(f, round % 2 ? 0600 : 0640) == 0);
		t_write(g, "x", 1);
		T_ASSERT(close(kqa) == 0);

		int kqb = t_kqueue();
		t_change(kqb, g, EVFILT_VNODE, EV_ADD | EV_CLEAR,
			 NOTE_WRITE | NOTE_ATTRIB, 0, (void *)0xb);
		t_change(kqb, f, EVFILT_VNODE, EV_ADD | EV_CLEAR,
			 NOTE_WRITE | NOTE_ATTRIB | NOTE_LINK, 0, (void *)0xb);
		T_NO_EVENTS(kqb);
		T_ASSERT(t_count_inotify() <= inotify0 + 1);

		t_write(g, "y", 1);
		WANT1_ONLY(kqb, g, NOTE_WRITE | NOTE_EXTEND, 0xb);
		T_ASSERT(fchmod(f, 0644) == 0);
		WANT1_ONLY(kqb, f, NOTE_ATTRIB, 0xb);
		T_ASSERT(close(kqb) == 0);
	}
	return 0;
}
