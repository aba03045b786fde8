/*
 * C23: a change without EV_ADD on an absent knote of an open fd fails with
 * ENOENT: flags 0, EV_ENABLE, EV_DISABLE and EV_KEEPUDATA alone; nothing is
 * created.  Checked as an EV_ERROR record and as -1/errno.  SPEC §3.3 step 6.
 */
#include "t.h"

static void expect_fail(int kq, uintptr_t ident, short filter,
	unsigned short flags, void *ud, int err)
{
	struct kevent ch, ev[2];
	struct timespec z = { 0, 0 };

	EV_SET(&ch, ident, filter, flags, 0, 0, ud);
	memset(ev, 0xa5, sizeof ev);
	int n = kevent(kq, &ch, 1, ev, 2, &z);
	if (n != 1)
		T_FAIL("filter %d flags 0x%x: kevent returned %d (errno %d), "
		       "expected one error record", filter, flags, n, errno);
	T_KEVENT(&ev[0], ident, filter, EV_ERROR, 0, err, ud);
	T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), err);
}

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;

	t_pipe(p);
	t_write(p[1], "x", 1);
	expect_fail(kq, p[0], EVFILT_READ, 0, &ud, ENOENT);
	expect_fail(kq, p[0], EVFILT_READ, EV_ENABLE, &ud, ENOENT);
	expect_fail(kq, p[0], EVFILT_READ, EV_DISABLE, &ud, ENOENT);
	expect_fail(kq, p[0], EVFILT_READ, EV_KEEPUDATA, &ud, ENOENT);
	expect_fail(kq, p[1], EVFILT_WRITE, 0, &ud, ENOENT);
	T_NO_EVENTS(kq);
	return 0;
}
