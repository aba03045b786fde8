/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kqueue() returns a new descriptor for an empty queue (a
 * zero-timeout collection returns 0 records) and close() of it succeeds;
 * afterwards the number is no longer a kqueue (EBADF).
 */
#include "t.h"

int main(void)
{
	int kq = kqueue();
	T_ASSERT(kq >= 0);
	T_ASSERT(fcntl(kq, F_GETFD) != -1);

	struct kevent ev[4];
	memset(ev, 0, sizeof ev);
	T_EQ(t_get(kq, ev, 1), 0);
	T_EQ(t_get(kq, ev, 4), 0);

	/* A second queue is a different descriptor. */
	int kq2 = kqueue();
	T_ASSERT(kq2 >= 0);
	T_ASSERT(kq2 != kq);
	T_EQ(t_get(kq2, ev, 1), 0);

	T_EQ(close(kq), 0);
	struct timespec z = { 0, 0 };
	T_ERRNO(kevent(kq, NULL, 0, ev, 1, &z), EBADF);

	/* The other queue is unaffected. */
	T_EQ(t_get(kq2, ev, 1), 0);
	T_EQ(close(kq2), 0);
	return 0;
}
