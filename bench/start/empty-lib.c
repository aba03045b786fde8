/* SPDX-License-Identifier: BSD-2-Clause */
/* libprocess-start-lib.so (bench/process-start.c): a library with nothing
 * in it, what one more library costs a program's start whatever it holds. */
int process_start_lib(void);
int process_start_lib(void)
{
	return 0;
}
