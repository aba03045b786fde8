/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same as read-eventfd-emfile with the soft RLIMIT_NOFILE lowered by
 * prlimit(0, ...), the calling process's: the eventfd counters still come
 * exact at the descriptor limit (t_eventfd_emfile.h).
 */
#include "t_eventfd_emfile.h"

static void lower(const struct rlimit *low)
{
	T_ASSERT(prlimit(0, RLIMIT_NOFILE, low, NULL) == 0);
}

int main(void)
{
	t_eventfd_emfile(lower);
	return 0;
}
