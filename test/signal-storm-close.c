/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * close() is async-signal-safe: a handler that closes a descriptor with a
 * knote must complete when it interrupts its own thread inside close() or
 * dup2() of another descriptor with a knote, and the knote of the
 * descriptor it closed must be gone (t_closestorm.h has the loop and its
 * checks).
 */
/*
 * close() is async-signal-safe: a handler that closes a descriptor with a
 * knote must complete when it interrupts its own thread inside close() or
 * dup2() of another descriptor with a knote, and the
 * knote of the descriptor it closed must be gone (t_closestorm.h has the
 * loop and its checks).
 */
#include "t_closestorm.h"

int main(void)
{
	t_closestorm_run("signal-storm-close: close() in a handler "
			 "interrupting close()/dup2()", 0);
	return 0;
}
