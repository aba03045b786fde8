/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Registering a kqueue in itself ({kq, EVFILT_READ} added to kq) fails
 * with EINVAL, as -1/errno with nevents = 0 and as an EV_ERROR record with
 * room in the eventlist (FreeBSD kqueue_register).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ch;
	EV_SET(&ch, kq, EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), EINVAL);

	struct kevent ev[2];
	int tag;
	EV_SET(&ch, kq, EVFILT_READ, EV_ADD, 0, 0, &tag);
	T_EQ(t_kevent1(kq, &ch, ev, 2), 1);
	T_KEVENT(&ev[0], kq, EVFILT_READ, EV_ERROR, 0, EINVAL, &tag);

	/* Nothing was registered. */
	T_EQ(t_change_err(kq, kq, EVFILT_READ, EV_DELETE, 0, 0, NULL), ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
