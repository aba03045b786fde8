/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A shared library built WITHOUT -lkq, standing for any library a program
 * uses (an event library, a TLS library, a language runtime): its calls to
 * close(), dup2(), signal(), getsockopt() ... are references to glibc's
 * versioned symbols (close@GLIBC_2.2.5), made by code that never heard of
 * libkq.  The lifetime-* tests call through it, and load it with dlopen().
 */
#define _GNU_SOURCE
#include "foreign.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int foreign_close(int fd) { return close(fd); }
int foreign_raw_close(int fd) { return (int)syscall(SYS_close, fd); }
int foreign_dup2(int oldfd, int newfd) { return dup2(oldfd, newfd); }
int foreign_dup3(int oldfd, int newfd, int flags) { return dup3(oldfd, newfd, flags); }
int foreign_close_range(unsigned first, unsigned last, int flags)
{
	return close_range(first, last, flags);
}
void foreign_closefrom(int lowfd) { closefrom(lowfd); }

int foreign_so_error(int fd, int *err)
{
	socklen_t len = sizeof *err;
	*err = -1;
	return getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &len);
}

void (*foreign_signal(int sig, void (*h)(int)))(int) { return signal(sig, h); }

int foreign_sigaction(int sig, void (*h)(int), int flags)
{
	struct sigaction sa = { .sa_handler = h, .sa_flags = flags };
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int foreign_connect(int fd, const void *addr, unsigned len)
{
	return connect(fd, (const struct sockaddr *)addr, (socklen_t)len);
}

long foreign_recv(int fd, void *buf, unsigned long n) { return (long)recv(fd, buf, n, 0); }
long foreign_send(int fd, const void *buf, unsigned long n) { return (long)send(fd, buf, n, 0); }
long foreign_read(int fd, void *buf, unsigned long n) { return (long)read(fd, buf, n); }
long foreign_write(int fd, const void *buf, unsigned long n) { return (long)write(fd, buf, n); }

int foreign_socketpair(int domain, int type, int protocol, int sv[2])
{
	return socketpair(domain, type, protocol, sv);
}
int foreign_accept4(int fd, int flags) { return accept4(fd, NULL, NULL, flags); }
int foreign_dup(int fd) { return dup(fd); }

int foreign_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}
