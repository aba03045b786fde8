/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Many TCP sockets writable at once, with READ knotes ready on their peers
 * in the same kqueue (t_tcp_counts.h): each record carries its own
 * socket's count.  libkq may ask a harvest's questions in io_uring
 * submissions (a WRITE knote asks two, a READ knote one) instead of one
 * system call each; the answers must land on the right knotes, across
 * several submissions, round after round.  (Also run with
 * LIBKQ_NO_IO_URING=1.)
 */
#include "t_tcp_counts.h"

int main(void)
{
	tc_run(false);
	return 0;
}
