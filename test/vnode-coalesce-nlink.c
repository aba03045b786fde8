/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Link-count notes coalesce like any other (see vnode-accumulate): notes
 * posted between two collections OR together, also when Linux reports them
 * with one inotify event.  FreeBSD posts a hint per operation (vfs_subr.c
 * vop_setattr_post NOTE_ATTRIB, vop_link_post NOTE_LINK, vop_remove_post
 * NOTE_DELETE), so:
 *  a) chmod() then unlink() of the last name, one collection:
 *     {fd, VNODE, EV_CLEAR, NOTE_ATTRIB|NOTE_DELETE, 0, udata};
 *  b) link() of a second name then unlink() of it (the link count is back
 *     where it was), one collection: FreeBSD gives NOTE_LINK|NOTE_DELETE.
 * Linux sends IN_ATTRIB for each of these operations and merges identical
 * consecutive events, so the library sees one IN_ATTRIB per pair and has to
 * tell from the file's state what happened.  a) works: the mode changed and
 * the link count dropped.  b) is a documented deviation
 * (docs/differences.md, EVFILT_VNODE): the link count is unchanged and only
 * the ctime moved, so libkq can only say NOTE_ATTRIB (something about the
 * inode changed); the test checks exactly that.
 */
#include "t_vnode.h"

#define MASK (NOTE_ATTRIB | NOTE_LINK | NOTE_DELETE)

/* Returns 1 if the one record within 2 s is {fd, VNODE, EV_CLEAR, want}. */
static int check(const char *what, int kq, int fd, unsigned int want,
		 void *ud)
{
	struct kevent ev[4];
	int n = t_wait(kq, ev, 4, 2000);

	if (n == 1 && ev[0].ident == (uintptr_t)fd &&
	    ev[0].filter == EVFILT_VNODE && ev[0].flags == EV_CLEAR &&
	    ev[0].fflags == want && ev[0].data == 0 && ev[0].udata == ud &&
	    t_get(kq, ev, 4) == 0)
		return 1;
	fprintf(stderr, "%s: want one record with fflags 0x%x, got %d:\n",
		what, want, n);
	for (int i = 0; i < n; i++)
		t_print_kevent("  got", &ev[i]);
	return 0;
}

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue(), ok = 1;
	const char *dir = vt_mkdir();
	char a[128], b[128], b2[128];
	void *ud = (void *)0x5201;
	int fa = vt_create(a, sizeof a, dir, "a");
	int fb = vt_create(b, sizeof b, dir, "b");

	snprintf(b2, sizeof b2, "%s/b2", dir);
	t_change(kq, fa, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, ud);
	t_change(kq2, fb, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, ud);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);

	T_ASSERT(chmod(a, 0640) == 0);
	T_ASSERT(unlink(a) == 0);
	ok &= check("chmod+unlink", kq, fa, NOTE_ATTRIB | NOTE_DELETE, ud);

	T_ASSERT(link(b, b2) == 0);
	T_ASSERT(unlink(b2) == 0);
	ok &= check("link+unlink (deviation)", kq2, fb, NOTE_ATTRIB, ud);

	if (!ok)
		T_FAIL("coalesced notes lost (see above)");
	return 0;
}
