/* SPDX-License-Identifier: BSD-2-Clause */
/* process-start-kqueue (bench/process-start.c): one kqueue made and closed. */
#include <sys/event.h>
#include <unistd.h>

int main(void)
{
	int kq = kqueue();
	return kq < 0 || close(kq) != 0;
}
