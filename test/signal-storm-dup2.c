/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dup2() is async-signal-safe: a handler that dup2()s /dev/null over a
 * descriptor with a knote (which closes that descriptor first) must
 * complete when it interrupts its own thread inside close() or dup2() of
 * another descriptor with a knote, and the knote of the replaced
 * descriptor must be gone (t_closestorm.h has the loop and its checks).
 */
/*
 * dup2() is async-signal-safe: a handler that dup2()s /dev/null over a
 * descriptor with a knote (which closes that descriptor first) must
 * complete when it interrupts its own thread inside close() or dup2() of
 * another descriptor with a knote, and the knote of the
 * replaced descriptor must be gone (t_closestorm.h has the loop and its
 * checks).
 */
#include "t_closestorm.h"

int main(void)
{
	t_closestorm_run("signal-storm-dup2: dup2() in a handler "
			 "interrupting close()/dup2()", 1);
	return 0;
}
