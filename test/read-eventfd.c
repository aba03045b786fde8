/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * READ on an eventfd (FreeBSD >= 13 semantics): data = counter value.
 * Writing 5 -> data 5; writing 2 more -> data 7; after read() resets the
 * counter nothing fires.
 */
#include "t.h"

#include <sys/eventfd.h>

int main(void)
{
	int kq = t_kqueue(), efd;
	void *ud = (void *)0x23;
	uint64_t v;

	efd = eventfd(0, EFD_NONBLOCK);
	T_ASSERT(efd >= 0);
	t_change(kq, efd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	v = 5;
	t_write(efd, &v, sizeof v);
	T_WAIT1(kq, 2000, efd, EVFILT_READ, 0, 0, 5, ud);

	v = 2;
	t_write(efd, &v, sizeof v);
	T_WAIT1(kq, 2000, efd, EVFILT_READ, 0, 0, 7, ud);

	T_EQ(read(efd, &v, sizeof v), sizeof v);
	T_EQ(v, 7);
	T_NO_EVENTS(kq);
	return 0;
}
