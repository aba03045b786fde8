/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bad input: a change with an unknown filter number (-14 just past
 * EVFILT_SYSCOUNT, -99, SHRT_MIN, positive values) fails with EINVAL:
 * -1/EINVAL with nevents = 0, an EV_ERROR record (data EINVAL, ident/filter
 * /udata echoed) with room in the eventlist (FreeBSD kqueue_register ->
 * kqueue_fo_find).  With EV_ADD, EV_DELETE or no
 * action; the queue is unaffected.
 */
#include "t.h"

#include <limits.h>

int main(void)
{
	int kq = t_kqueue();
	static const short bad[] = { -14, -15, -99, SHRT_MIN, 1, 5, 100,
				     SHRT_MAX };
	static const unsigned short acts[] = { EV_ADD, EV_DELETE, 0,
					       EV_ADD | EV_ENABLE,
					       EV_ADD | EV_RECEIPT };
	struct timespec z = { 0, 0 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		for (size_t j = 0; j < sizeof acts / sizeof acts[0]; j++) {
			struct kevent ch, ev[2];
			EV_SET(&ch, 1, bad[i], acts[j], 0, 0, &ch);
			errno = 0;
			int r = kevent(kq, &ch, 1, NULL, 0, NULL);
			if (r != -1 || errno != EINVAL)
				T_FAIL("filter %d flags 0x%x: %d/errno %d "
				       "(%s), expected -1/EINVAL", bad[i],
				       acts[j], r, errno, strerror(errno));
			memset(ev, 0, sizeof ev);
			r = kevent(kq, &ch, 1, ev, 2, &z);
			if (r != 1)
				T_FAIL("filter %d flags 0x%x: returned %d "
				       "(%s), expected 1 error record",
				       bad[i], acts[j], r, strerror(errno));
			T_KEVENT(&ev[0], 1, bad[i], EV_ERROR, 0, EINVAL, &ch);
		}
	}

	/* A bad change between two good ones (nevents 4): one error record,
	 * both good changes applied. */
	int p[2], q[2];
	t_pipe(p);
	t_pipe(q);
	t_write(p[1], "x", 1);
	t_write(q[1], "x", 1);
	struct kevent ch[3], ev[4];
	EV_SET(&ch[0], p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch[1], p[0], -42, EV_ADD, 0, 0, NULL);
	EV_SET(&ch[2], q[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	T_EQ(kevent(kq, ch, 3, ev, 4, &z), 1);
	T_KEVENT(&ev[0], p[0], -42, EV_ERROR, 0, EINVAL, NULL);
	T_EQ(t_get(kq, ev, 4), 2);
	return 0;
}
