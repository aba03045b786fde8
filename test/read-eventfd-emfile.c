/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * At the descriptor limit, reached after the program lowered its soft
 * RLIMIT_NOFILE with setrlimit(), READ and WRITE knotes on an eventfd
 * still report its counter, also for an eventfd whose counter the kqueue
 * reads there for the first time (t_eventfd_emfile.h).
 */
#include "t_eventfd_emfile.h"

static void lower(const struct rlimit *low)
{
	T_ASSERT(setrlimit(RLIMIT_NOFILE, low) == 0);
}

int main(void)
{
	t_eventfd_emfile(lower);
	return 0;
}
