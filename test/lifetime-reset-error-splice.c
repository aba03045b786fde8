/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * splice() from a reset connection whose error libkq took for an EV_EOF
 * record fails with ECONNRESET, as it does without libkq; the read after
 * it sees end of file.
 */
#include "t_reset_error.h"

int main(void)
{
	int c = t_reset_after_eof(), p[2];
	T_ASSERT(pipe(p) == 0);

	T_ERRNO(splice(c, NULL, p[1], NULL, 16, SPLICE_F_NONBLOCK), ECONNRESET);
	t_reset_then_eof(c);
	return 0;
}
