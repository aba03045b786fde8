/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A kqueue descriptor supports only EVFILT_READ; EV_ADD {kq2,
 * EVFILT_WRITE} in kq1 fails with EINVAL (FreeBSD kqueue_kqfilter), both as
 * -1/errno and as an EV_ERROR record.
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	struct kevent ch;
	EV_SET(&ch, kq2, EVFILT_WRITE, EV_ADD, 0, 0, NULL);
	T_ERRNO(kevent(kq1, &ch, 1, NULL, 0, NULL), EINVAL);

	T_EQ(t_change_err(kq1, kq2, EVFILT_WRITE, EV_ADD, 0, 0, &ch), EINVAL);
	T_EQ(t_change_err(kq1, kq2, EVFILT_WRITE, EV_DELETE, 0, 0, NULL),
	     ENOENT);
	T_NO_EVENTS(kq1);
	return 0;
}
