/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * WRITE on a listening socket never fires (FreeBSD filt_sowrite
 * returns 0 for listeners), neither right after registration nor with a
 * connection pending.  Checked for a TCP listener on 127.0.0.1 and an
 * AF_UNIX stream listener.
 */
#include "t.h"

#include <poll.h>

int main(void)
{
	int kq = t_kqueue(), tl, ul, tc, uc;
	struct sockaddr_in sin;
	struct sockaddr_un sun;
	void *ud = (void *)0x606;

	tl = t_inet_socket(SOCK_STREAM, 16, &sin);
	ul = t_unix_listener(16, &sun);

	t_change(kq, tl, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	t_change(kq, ul, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	tc = socket(AF_INET, SOCK_STREAM, 0);
	uc = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(tc >= 0 && uc >= 0);
	T_ASSERT(connect(tc, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_ASSERT(connect(uc, (struct sockaddr *)&sun, sizeof sun) == 0);
	/* Make sure both connections are pending (poll, independent of the
	 * library) before checking that WRITE stays silent. */
	struct pollfd pfd[2] = { { tl, POLLIN, 0 }, { ul, POLLIN, 0 } };
	T_EQ(poll(&pfd[0], 1, 2000), 1);
	T_EQ(poll(&pfd[1], 1, 2000), 1);
	T_NO_EVENTS(kq);
	return 0;
}
