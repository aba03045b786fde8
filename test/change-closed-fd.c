/*
 * C14: a change naming an fd number that is not open fails with EBADF, for
 * EV_ADD on READ and WRITE as well as for EV_DELETE, EV_ENABLE and a bare
 * modify (the fd is looked up before the knote).  SPEC §3.3 step 4, §7.
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
	int fd = p[0];
	close(p[0]);
	close(p[1]);

	expect_fail(kq, fd, EVFILT_READ, EV_ADD, &ud, EBADF);
	expect_fail(kq, fd, EVFILT_WRITE, EV_ADD, &ud, EBADF);
	expect_fail(kq, fd, EVFILT_READ, EV_DELETE, &ud, EBADF);
	expect_fail(kq, fd, EVFILT_READ, EV_ENABLE, &ud, EBADF);
	expect_fail(kq, fd, EVFILT_WRITE, 0, &ud, EBADF);
	T_NO_EVENTS(kq);
	return 0;
}
