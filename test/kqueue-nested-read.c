/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ on a kqueue descriptor (kq2 registered in kq1) reports
 * one record whose data is the number of knotes queued in kq2 (FreeBSD
 * filt_kqueue: kn_data = kq_count); here kq2 has 3 ready pipe READ knotes,
 * so data = 3.
 */
#include "t.h"

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int p[3][2];
	for (int i = 0; i < 3; i++) {
		t_pipe(p[i]);
		t_write(p[i][1], "xy", 2);
		t_change(kq2, p[i][0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	}

	int tag;
	t_change(kq1, kq2, EVFILT_READ, EV_ADD, 0, 0, &tag);
	struct kevent ev[4];
	T_WAIT1(kq1, 2000, kq2, EVFILT_READ, 0, 0, 3, &tag);

	/* kq2 still holds its three records. */
	T_EQ(t_get(kq2, ev, 4), 3);
	return 0;
}
