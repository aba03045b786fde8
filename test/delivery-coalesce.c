/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several writes between two retrievals give one record per knote whose
 * data is the amount buffered now (FreeBSD coalescing): two 1-byte
 * writes -> one record with data 2; three more -> one record with data 5.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	void *ud = (void *)(uintptr_t)0x301;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ud);
	t_write(p[1], "a", 1);
	t_write(p[1], "b", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 2, ud);

	t_write(p[1], "c", 1);
	t_write(p[1], "d", 1);
	t_write(p[1], "e", 1);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 5, ud);
	return 0;
}
