/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change entry whose filter is 0 is skipped silently (FreeBSD
 * kqueue_kevent: `if (!kevp->filter) continue;`): no record, no error, not
 * even with EV_RECEIPT, and the changes around it are applied.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int a[2], b[2];
	int ua, ub;
	struct kevent ch[4], ev[4];
	struct timespec z = { 0, 0 };

	t_pipe(a);
	t_pipe(b);

	EV_SET(&ch[0], a[0], EVFILT_READ, EV_ADD, 0, 0, &ua);
	EV_SET(&ch[1], a[0], 0, EV_ADD | EV_RECEIPT, 0, 0, NULL);
	EV_SET(&ch[2], (uintptr_t)1 << 31, 0, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[3], b[0], EVFILT_READ, EV_ADD, 0, 0, &ub);
	T_EQ(kevent(kq, ch, 4, ev, 4, &z), 0);
	T_EQ(kevent(kq, &ch[1], 2, NULL, 0, NULL), 0);

	/* Both real ADDs were applied. */
	t_write(a[1], "x", 1);
	t_write(b[1], "yy", 2);
	T_EQ(t_get(kq, ev, 4), 2);
	for (int i = 0; i < 2; i++) {
		if (ev[i].ident == (uintptr_t)a[0])
			T_KEVENT(&ev[i], a[0], EVFILT_READ, 0, 0, 1, &ua);
		else
			T_KEVENT(&ev[i], b[0], EVFILT_READ, 0, 0, 2, &ub);
	}
	T_ASSERT(ev[0].ident != ev[1].ident);
	return 0;
}
