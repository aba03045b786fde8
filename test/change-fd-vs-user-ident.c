/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * <fd, EVFILT_READ> and <same number, EVFILT_USER> are independent
 * knotes: fd filters and non-fd filters are looked up in different tables
 * (FreeBSD kqueue_register), so the USER knote is neither triggered by the
 * fd's data nor removed when the fd is closed.
 * EVFILT_USER belongs to a later milestone: if the library does not know the
 * filter yet (EINVAL at ADD) the test is skipped.
 */
#include "t.h"

static const struct kevent *find(const struct kevent *ev, int n, short filter)
{
	for (int i = 0; i < n; i++)
		if (ev[i].filter == filter)
			return &ev[i];
	return NULL;
}

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int rud, uud;
	struct kevent ev[8];
	int n, err;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, &rud);
	err = t_change_err(kq, p[0], EVFILT_USER, EV_ADD, 0, 0, &uud);
	if (err == EINVAL)
		T_SKIP("EVFILT_USER not available yet (ADD -> EINVAL)");
	T_EQ(err, 0);
	T_NO_EVENTS(kq);

	/* Data on the fd fires only the READ knote. */
	t_write(p[1], "x", 1);
	n = t_get(kq, ev, 8);
	T_EQ(n, 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, 0, 0, 1, &rud);

	/* Triggering the USER knote does not touch the READ knote. */
	t_change(kq, p[0], EVFILT_USER, 0, NOTE_TRIGGER, 0, &uud);
	n = t_get(kq, ev, 8);
	T_EQ(n, 2);
	const struct kevent *r = find(ev, n, EVFILT_READ);
	const struct kevent *u = find(ev, n, EVFILT_USER);
	if (r == NULL || u == NULL)
		T_FAIL("expected one READ and one USER record");
	T_KEVENT(r, p[0], EVFILT_READ, 0, 0, 1, &rud);
	T_KEVENT(u, p[0], EVFILT_USER, 0, 0, 0, &uud);

	/* Closing the fd removes the READ knote only. */
	close(p[0]);
	n = t_get(kq, ev, 8);
	T_EQ(n, 1);
	T_KEVENT(&ev[0], p[0], EVFILT_USER, 0, 0, 0, &uud);
	T_EQ(t_change_err(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);
	t_change(kq, p[0], EVFILT_USER, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
