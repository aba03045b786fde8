/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared library linked WITH -lkq, standing for an event library: the
 * lifetime-linked-library test program links only this, never libkq, so
 * the C library comes before libkq in its lookup order.  The calls this
 * library makes (close, sigaction, getsockopt) must still reach libkq.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <sys/event.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

int shim_kqueue(void) { return kqueue(); }

int shim_change(int kq, int ident, int filter, int flags)
{
	struct kevent ch, ev;
	struct timespec z = { 0, 0 };
	EV_SET(&ch, (uintptr_t)ident, (short)filter, (unsigned short)(flags | EV_RECEIPT), 0, 0, NULL);
	int n = kevent(kq, &ch, 1, &ev, 1, &z);
	if (n < 0)
		return -1;
	return n == 1 && (ev.flags & EV_ERROR) ? (int)ev.data : 0;
}

int shim_wait(int kq, int ms, long long *data, unsigned *fflags, int *ident)
{
	struct kevent ev;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int n = kevent(kq, NULL, 0, &ev, 1, &ts);
	if (n == 1) {
		*data = ev.data;
		*fflags = ev.fflags;
		*ident = (int)ev.ident;
	}
	return n;
}

int shim_close(int fd) { return close(fd); }

int shim_socketpair(int sv[2]) { return socketpair(AF_UNIX, SOCK_STREAM, 0, sv); }

int shim_ignore(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int shim_so_error(int fd)
{
	int err = -1;
	socklen_t len = sizeof err;
	return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 ? err : -1;
}
