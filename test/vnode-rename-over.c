/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Files A and B, both watched for NOTE_DELETE|NOTE_RENAME (EV_CLEAR);
 * rename(A, B) replaces B: two records, {a, VNODE, EV_CLEAR, NOTE_RENAME,
 * 0, udata A} and {b, VNODE, EV_CLEAR, NOTE_DELETE, 0, udata B}
 * (vfs_subr.c vop_rename_post: NOTE_RENAME to the moved vnode, NOTE_DELETE
 * to the replaced one).  FreeBSD posts A's note first, but the contract
 * does not fix the order of the two records; it is not checked.  The
 * replaced file is not renamed and the moved one not deleted.
 */
#include "t_vnode.h"

#define MASK (NOTE_DELETE | NOTE_RENAME)

int main(void)
{
	int kq = t_kqueue();
	const char *dir = vt_mkdir();
	char a[128], b[128];
	struct kevent ev[8];
	void *uda = (void *)0x121a, *udb = (void *)0x121b;
	int fa = vt_create(a, sizeof a, dir, "a");
	int fb = vt_create(b, sizeof b, dir, "b");
	int got = 0, seen_a = 0, seen_b = 0;
	int64_t deadline = t_now_ns() + 2000000000LL;

	t_change(kq, fa, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, uda);
	t_change(kq, fb, EVFILT_VNODE, EV_ADD | EV_CLEAR, MASK, 0, udb);
	T_NO_EVENTS(kq);

	T_ASSERT(rename(a, b) == 0);
	while (got < 2 && t_now_ns() < deadline) {
		int n = t_wait(kq, ev + got, 8 - got, 500);
		for (int i = got; i < got + n; i++) {
			if (ev[i].ident == (uintptr_t)fa && !seen_a) {
				T_KEVENT(&ev[i], fa, EVFILT_VNODE, EV_CLEAR,
					 NOTE_RENAME, 0, uda);
				seen_a = 1;
			} else if (ev[i].ident == (uintptr_t)fb && !seen_b) {
				T_KEVENT(&ev[i], fb, EVFILT_VNODE, EV_CLEAR,
					 NOTE_DELETE, 0, udb);
				seen_b = 1;
			} else {
				t_print_kevent("  unexpected", &ev[i]);
				T_FAIL("unexpected or repeated record");
			}
		}
		got += n;
	}
	if (!seen_a || !seen_b)
		T_FAIL("records within 2 s: A %s, B %s", seen_a ? "yes" : "no",
		       seen_b ? "yes" : "no");
	T_NO_EVENTS(kq);
	return 0;
}
