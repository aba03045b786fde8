/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EV_ADD on a READ or WRITE knote that
 * already exists is a plain modify and succeeds (event loops re-add on every
 * interest change): kevent() returns 0 with no record, an EV_RECEIPT re-add
 * gives a receipt with data 0, the knote stays single (one record, with the
 * latest udata; one EV_DELETE removes it, a second fails ENOENT).  Done for
 * WRITE and READ on a socketpair end and a pipe, after the knote was
 * reported, and while it is disabled (a plain re-add leaves it disabled,
 * EV_ADD|EV_ENABLE enables it).
 */
#include "t.h"

static void readd(int kq, int fd, short filter, int ready_fd)
{
	void *u1 = (void *)0xe01, *u2 = (void *)0xe02, *u3 = (void *)0xe03;
	struct kevent ch, ev[8];

	t_change(kq, fd, filter, EV_ADD, 0, 0, u1);
	/* Plain re-add: no error, no record, even with room for records. */
	EV_SET(&ch, fd, filter, EV_ADD, 0, 0, u2);
	T_EQ(kevent(kq, &ch, 1, NULL, 0, NULL), 0);
	if (ready_fd >= 0)
		t_write(ready_fd, "r", 1);
	T_EQ(t_get(kq, ev, 8), 1);
	T_ASSERT(ev[0].ident == (uintptr_t)fd && ev[0].filter == filter);
	T_ASSERT(ev[0].udata == u2 && ev[0].flags == 0);

	/* Re-add after the report, with a receipt. */
	EV_SET(&ch, fd, filter, EV_ADD | EV_RECEIPT, 0, 0, u3);
	T_EQ(t_kevent1(kq, &ch, ev, 8), 1);
	T_KEVENT(&ev[0], fd, filter, EV_ERROR, 0, 0, u3);
	T_ASSERT(t_untouched(&ev[1]));

	/* Disabled, then re-added: a modify, so it stays disabled (only
	 * EV_ENABLE enables, FreeBSD kqueue_register); re-added with
	 * EV_ENABLE: enabled again, still one knote. */
	t_change(kq, fd, filter, EV_DISABLE, 0, 0, u3);
	T_NO_EVENTS(kq);
	t_change(kq, fd, filter, EV_ADD, 0, 0, u2);
	T_NO_EVENTS(kq);
	t_change(kq, fd, filter, EV_ADD | EV_ENABLE, 0, 0, u1);
	T_EQ(t_get(kq, ev, 8), 1);
	T_ASSERT(ev[0].ident == (uintptr_t)fd && ev[0].filter == filter);
	T_ASSERT(ev[0].udata == u1 && ev[0].flags == 0);

	t_change(kq, fd, filter, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, fd, filter, EV_DELETE, 0, 0, NULL), ENOENT);
}

int main(void)
{
	int kq = t_kqueue(), sp[2], p[2];

	t_socketpair(sp);
	t_pipe(p);
	readd(kq, sp[0], EVFILT_WRITE, -1);
	readd(kq, p[1], EVFILT_WRITE, -1);
	readd(kq, sp[0], EVFILT_READ, sp[1]);
	readd(kq, p[0], EVFILT_READ, p[1]);
	return 0;
}
