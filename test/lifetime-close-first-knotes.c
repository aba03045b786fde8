/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket the program made, with its first knote in each of two kqueues
 * (a READ in one, an EV_CLEAR WRITE in the other: the short path of an
 * add), closed: both knotes die with the close, so the next socket given
 * the same number starts with none in either kqueue (EV_DELETE finds
 * nothing, data on it reports nothing).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), kq2 = t_kqueue();
	int sp[2], warm[2], ud1, ud2;

	/* a knote made and deleted first, so that both kqueues have fd slots
	 * for the numbers used below, as a kqueue in use has (the first
	 * knote of a kqueue grows its table, and takes the general path) */
	t_socketpair(warm);
	t_change(kq, warm[1], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, warm[1], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	t_change(kq2, warm[1], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq2, warm[1], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	t_socketpair(sp);
	int num = sp[0];
	t_change(kq, num, EVFILT_READ, EV_ADD, 0, 0, &ud1);
	t_change(kq2, num, EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0, &ud2);
	close(sp[0]);
	close(sp[1]);
	t_socketpair(sp);
	if (sp[0] != num && sp[1] != num)
		T_SKIP("the number %d was not given out again", num);
	t_change_fails(kq, num, EVFILT_READ, EV_DELETE, NULL, ENOENT);
	t_change_fails(kq2, num, EVFILT_WRITE, EV_DELETE, NULL, ENOENT);
	t_write(sp[0] == num ? sp[1] : sp[0], "x", 1);
	T_NO_EVENTS(kq);
	T_NO_EVENTS(kq2);
	return 0;
}
