/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on a pty master, hang-up variant of read-pty: when the pty slave is
 * closed, READ on the master fires with EV_EOF (FreeBSD pts: PTS_FINISHED ->
 * EV_EOF; data keeps its last value, 0 here since nothing was ever written).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), m, s;
	void *ud = (void *)0x25e;

	t_pty(&m, &s);

	t_change(kq, m, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(close(s) == 0);
	T_WAIT1(kq, 2000, m, EVFILT_READ, EV_EOF, 0, 0, ud);
	return 0;
}
