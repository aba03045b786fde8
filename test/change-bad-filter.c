/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An unknown filter number fails with EINVAL: -99, -14 (one past
 * EVFILT_EMPTY, the last FreeBSD 14 filter) and a positive number (5).
 * The filter is checked before the ident, so a bad filter with an ident that
 * is not an open fd is still EINVAL.  Checked both as an EV_ERROR record and
 * as -1/errno with no event list.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	static const short bad[] = { -99, -14, 5 };

	t_pipe(p);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		t_change_fails(kq, p[0], bad[i], EV_ADD, &ud, EINVAL);
		t_change_fails(kq, p[0], bad[i], EV_DELETE, &ud, EINVAL);
		t_change_fails(kq, (uintptr_t)1 << 31, bad[i], EV_ADD, &ud,
			       EINVAL);
	}
	/* Nothing was created along the way. */
	t_write(p[1], "x", 1);
	T_NO_EVENTS(kq);
	return 0;
}
