/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The descriptors libkq keeps for its kqueues are not the program's: on
 * FreeBSD those numbers are free.  close() of one fails with EBADF and
 * changes nothing; close_range() and closefrom() over them close the
 * program's descriptors around them; dup2() and dup3() from one fail with
 * EBADF, and onto one put the program's descriptor there (libkq's moves
 * away); and every kqueue keeps working: threads asleep in one are still
 * woken by triggers, and records still come, an eventfd's count too (its
 * fdinfo files are among libkq's numbers; t_hidden.h).
 */
#include "t.h"
#include "t_hidden.h"

#include <linux/close_range.h>

int main(void)
{
	const struct t_calls calls = {
		"the program's", close, dup2, dup3, close_range, closefrom,
	};
	t_hidden_check(&calls);
	return 0;
}
