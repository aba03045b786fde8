/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same with EV_ONESHOT knotes added afresh every round
 * (t_tcp_counts.h).  A one-shot knote takes its data when it fires, while
 * the harvest's reports are processed, and libkq may ask for all of a
 * harvest's one-shot counts in io_uring submissions at that point; each
 * record must still carry its own socket's count, and nothing may be left
 * after the round.  (Also run with LIBKQ_NO_IO_URING=1.)
 */
#include "t_tcp_counts.h"

int main(void)
{
	tc_run(true);
	return 0;
}
