/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ext[] given at EV_ADD is stored with the knote and returned: the READ
 * filter does not use ext[0..1], so they come back unchanged ({1,2}), and
 * ext[2..3] are always passed through ({3,4}).  A later modify does not
 * update ext[] (the FreeBSD manual's ext[] text).
 */
#include "t.h"

static void check_ext(const struct kevent *e, uint64_t e0, uint64_t e1,
	uint64_t e2, uint64_t e3)
{
	if (e->ext[0] != e0 || e->ext[1] != e1 || e->ext[2] != e2 ||
	    e->ext[3] != e3)
		T_FAIL("ext = {%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %"
		       PRIu64 "}, expected {%" PRIu64 ", %" PRIu64 ", %"
		       PRIu64 ", %" PRIu64 "}", e->ext[0], e->ext[1],
		       e->ext[2], e->ext[3], e0, e1, e2, e3);
}

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[4];

	t_pipe(p);
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	ch.ext[0] = 1;
	ch.ext[1] = 2;
	ch.ext[2] = 3;
	ch.ext[3] = 4;
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);

	t_write(p[1], "x", 1);
	memset(ev, 0, sizeof ev);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, &ud);
	check_ext(&ev[0], 1, 2, 3, 4);

	/* Modify with other ext values: the stored ext[] stays. */
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, &ud);
	ch.ext[0] = 9;
	ch.ext[1] = 9;
	ch.ext[2] = 9;
	ch.ext[3] = 9;
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	memset(ev, 0, sizeof ev);
	T_EQ(t_get(kq, ev, 4), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, &ud);
	check_ext(&ev[0], 1, 2, 3, 4);
	return 0;
}
