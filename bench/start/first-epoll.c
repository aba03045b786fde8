/* SPDX-License-Identifier: BSD-2-Clause */
/* process-start-epoll (bench/process-start.c): one epoll set made and
 * closed, without libkq. */
#include <sys/epoll.h>
#include <unistd.h>

int main(void)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	return ep < 0 || close(ep) != 0;
}
