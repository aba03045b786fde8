/*
 * F25 (hang-up variant): when the pty slave is closed, READ on the master
 * fires with EV_EOF (FreeBSD pts: PTS_FINISHED -> EV_EOF; data keeps its
 * last value, 0 here since nothing was ever written).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), m, s;
	struct kevent ev[8];
	void *ud = (void *)0x25e;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0)
		T_SKIP("posix_openpt: %s", strerror(errno));
	if (grantpt(m) != 0 || unlockpt(m) != 0)
		T_SKIP("grantpt/unlockpt: %s", strerror(errno));
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		T_SKIP("open pty slave: %s", strerror(errno));

	t_change(kq, m, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(close(s) == 0);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT(&ev[0], m, EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
