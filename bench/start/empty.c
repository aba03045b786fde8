/* SPDX-License-Identifier: BSD-2-Clause */
/* process-start-plain and process-start-libkq (bench/process-start.c):
 * nothing but the start and the exit; the second is linked with libkq. */
int main(void)
{
	return 0;
}
