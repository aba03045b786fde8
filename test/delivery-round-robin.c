/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 10 level-triggered READ knotes, all ready; get(3) four times.  FreeBSD
 * puts a returned level knote back at the tail of the queue, so small
 * collections rotate through all ready knotes: each call returns 3 distinct
 * knotes and together the 4 calls report all 10.
 */
#include "t.h"

#define N 10

int main(void)
{
	int kq = t_kqueue();
	int sp[N][2];
	int seen[N] = { 0 };
	struct kevent ev[3];

	for (int i = 0; i < N; i++) {
		char buf[N];
		t_socketpair(sp[i]);
		memset(buf, 'x', sizeof buf);
		t_write(sp[i][1], buf, (size_t)i + 1);
		t_change(kq, sp[i][0], EVFILT_READ, EV_ADD, 0, 0,
			 (void *)(uintptr_t)(i + 1));
	}
	for (int call = 0; call < 4; call++) {
		int n = t_get(kq, ev, 3);
		T_EQ(n, 3);
		int here[N] = { 0 };
		for (int k = 0; k < n; k++) {
			int i = (int)(uintptr_t)ev[k].udata - 1;
			if (i < 0 || i >= N)
				T_FAIL("call %d: unexpected udata %p", call,
				       ev[k].udata);
			T_KEVENT(&ev[k], sp[i][0], EVFILT_READ, 0, 0, i + 1,
				 (void *)(uintptr_t)(i + 1));
			if (here[i]++)
				T_FAIL("call %d returned knote %d twice", call,
				       i);
			seen[i]++;
		}
	}
	for (int i = 0; i < N; i++)
		if (!seen[i])
			T_FAIL("knote %d (fd %d) starved over 4 x get(3)", i,
			       sp[i][0]);
	return 0;
}
