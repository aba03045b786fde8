/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Three EV_ADD|EV_RECEIPT changes with nevents 1: the first receipt
 * fills the array; the second change is applied but, finding no room for its
 * receipt, ends processing; kevent() returns 0 (the zero error code), the
 * first receipt stays in ev[0], the third change is not processed.  With
 * nevents 0 the first receipt change already ends processing that way.
 * Taken from FreeBSD's source: kqueue_kevent
 * `if (nevents == 0) return (error)`.
 * Expressed with READ knotes on three pipes.
 */
#include "t.h"

static int present(int kq, int fd)
{
	int err = t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	if (err != 0 && err != ENOENT)
		T_FAIL("DELETE of fd %d: unexpected error %d", fd, err);
	return err == 0;
}

int main(void)
{
	int kq = t_kqueue();
	int p[3][2];
	int ud[3];
	struct kevent ch[3], ev[2];
	struct timespec z = { 0, 0 };

	for (int i = 0; i < 3; i++) {
		t_pipe(p[i]);
		EV_SET(&ch[i], p[i][0], EVFILT_READ, EV_ADD | EV_RECEIPT, 0, 0,
		       &ud[i]);
	}

	memset(ev, 0xa5, sizeof ev);
	T_EQ(kevent(kq, ch, 3, ev, 1, &z), 0);
	T_KEVENT(&ev[0], p[0][0], EVFILT_READ, EV_ERROR, 0, 0, &ud[0]);
	T_ASSERT(t_untouched(&ev[1]));
	T_ASSERT(present(kq, p[0][0]));
	T_ASSERT(present(kq, p[1][0]));
	T_ASSERT(!present(kq, p[2][0]));

	/* nevents 0: first change applied, return 0, second not processed. */
	T_EQ(kevent(kq, ch, 2, NULL, 0, NULL), 0);
	T_ASSERT(present(kq, p[0][0]));
	T_ASSERT(!present(kq, p[1][0]));
	return 0;
}
