/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The numbers libkq holds for itself are free numbers to a shared library
 * that does not link libkq, as to the program: its close() of one fails
 * with EBADF, its close_range() and closefrom() close the program's
 * descriptors around them, its dup2() from one fails with EBADF, and its
 * dup2() and dup3() onto one put its descriptor there.  The kqueue goes
 * on working: threads asleep in it are woken by triggers, a pipe's record
 * and an eventfd's count come, exact (t_hidden.h; the eventfd's fdinfo
 * files are among libkq's numbers).
 */
#include "../t.h"
#include "../t_hidden.h"
#include "foreign.h"

int main(void)
{
	const struct t_calls calls = {
		"the library's", foreign_close, foreign_dup2, foreign_dup3, foreign_close_range,
		foreign_closefrom,
	};
	t_hidden_check(&calls);
	return 0;
}
