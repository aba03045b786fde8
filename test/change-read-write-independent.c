/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ and EVFILT_WRITE on the same socket are two independent
 * knotes: both report, each with its own udata, and deleting one leaves the
 * other in place.
 */
#include "t.h"

static const struct kevent *find(const struct kevent *ev, int n, short filter)
{
	for (int i = 0; i < n; i++)
		if (ev[i].filter == filter)
			return &ev[i];
	return NULL;
}

static void check_write(const struct kevent *e, int fd, void *ud)
{
	/* Free send space is approximate on Linux: only its sign is checked. */
	if (e == NULL)
		T_FAIL("no EVFILT_WRITE record");
	T_KEVENT_MIN(e, fd, EVFILT_WRITE, 0, 0, 1, ud);
}

int main(void)
{
	int kq = t_kqueue();
	int sp[2];
	int rud, wud;
	struct kevent ev[8];
	int n;

	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &rud);
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, &wud);

	/* Nothing to read yet: only the WRITE knote reports. */
	n = t_get(kq, ev, 8);
	T_EQ(n, 1);
	check_write(&ev[0], sp[0], &wud);

	t_write(sp[1], "x", 1);
	n = t_get(kq, ev, 8);
	T_EQ(n, 2);
	const struct kevent *r = find(ev, n, EVFILT_READ);
	if (r == NULL)
		T_FAIL("no EVFILT_READ record");
	T_KEVENT(r, sp[0], EVFILT_READ, 0, 0, 1, &rud);
	check_write(find(ev, n, EVFILT_WRITE), sp[0], &wud);

	/* Removing WRITE leaves READ. */
	t_change(kq, sp[0], EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	n = t_get(kq, ev, 8);
	T_EQ(n, 1);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, 0, 0, 1, &rud);

	/* Re-adding WRITE and removing READ leaves WRITE. */
	t_change(kq, sp[0], EVFILT_WRITE, EV_ADD, 0, 0, &wud);
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	n = t_get(kq, ev, 8);
	T_EQ(n, 1);
	check_write(&ev[0], sp[0], &wud);
	T_EQ(t_change_err(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	return 0;
}
