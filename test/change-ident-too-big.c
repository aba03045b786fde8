/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * For fd filters an ident above INT_MAX fails with EBADF: 2^31,
 * UINTPTR_MAX, and (64-bit) 2^32 + an open fd, which must not be truncated to
 * that fd.  Checked for ADD/DELETE on READ and WRITE, as an EV_ERROR record
 * and as -1/errno.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	uintptr_t idents[3];
	size_t nid = 0;

	t_pipe(p);
	t_write(p[1], "x", 1);
	idents[nid++] = (uintptr_t)1 << 31;
	idents[nid++] = UINTPTR_MAX;
	if (sizeof(uintptr_t) > 4)
		idents[nid++] = (uintptr_t)(((uint64_t)1 << 32) |
					    (uint64_t)p[0]);

	for (size_t i = 0; i < nid; i++) {
		t_change_fails(kq, idents[i], EVFILT_READ, EV_ADD, &ud, EBADF);
		t_change_fails(kq, idents[i], EVFILT_WRITE, EV_ADD, &ud,
			       EBADF);
		t_change_fails(kq, idents[i], EVFILT_READ, EV_DELETE, &ud,
			       EBADF);
	}
	/* Nothing got attached to p[0] through truncation. */
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
