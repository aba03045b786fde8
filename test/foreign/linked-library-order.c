/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program that does not link libkq itself, using a library that does (as
 * a server uses an event library): the C library then comes before libkq
 * in the program's lookup order.  The library's own close(), sigaction()
 * and getsockopt() must still reach libkq, as on FreeBSD:
 *   - a knote dies with the library's close of its descriptor;
 *   - EVFILT_SIGNAL counts a signal the library then sets to SIG_IGN (an
 *     event library's usual step right after its EV_ADD);
 *   - the library's getsockopt(SO_ERROR) finds the error after the EV_EOF
 *     record of a refused connect.
 * Only the shim's functions are called here: the program has no libkq.
 */
#define _GNU_SOURCE
#include "shim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define EVFILT_READ   (-1)
#define EVFILT_WRITE  (-2)
#define EVFILT_SIGNAL (-6)
#define EV_ADD        0x0001
#define EV_DELETE     0x0002
#define EV_CLEAR      0x0020

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); exit(1); } } while (0)

int main(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* A sanitizer's runtime lives in the program and intercepts close()
	 * and sigaction() for every library; it forwards each call to the
	 * next definition after the program, which here, with no libkq in the
	 * program, is the C library's.  Nothing libkq can change. */
	fprintf(stderr, "SKIP: the sanitizer's interceptors pass the library's calls "
		"to the C library when the program does not link libkq\n");
	return 77;
#endif
	long long data;
	unsigned fflags;
	int ident, p[2];
	int kq = shim_kqueue();
	CHECK(kq >= 0);

	CHECK(pipe(p) == 0);
	CHECK(shim_change(kq, p[0], EVFILT_READ, EV_ADD) == 0);
	CHECK(shim_close(p[0]) == 0);
	CHECK(shim_change(kq, p[0], EVFILT_READ, EV_DELETE) == EBADF);

	CHECK(shim_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD | EV_CLEAR) == 0);
	CHECK(shim_ignore(SIGUSR1) == 0);
	raise(SIGUSR1);
	raise(SIGUSR1);
	CHECK(shim_wait(kq, 1000, &data, &fflags, &ident) == 1);
	CHECK(ident == SIGUSR1 && data == 2);

	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int l = socket(AF_INET, SOCK_STREAM, 0);   /* bound, never listening */
	CHECK(l >= 0 && bind(l, (struct sockaddr *)&sin, sizeof sin) == 0);
	CHECK(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	CHECK(s >= 0);
	if (connect(s, (struct sockaddr *)&sin, sizeof sin) == 0 || errno != EINPROGRESS) {
		fprintf(stderr, "SKIP: connect() to 127.0.0.1 did not start (%s)\n", strerror(errno));
		return 77;
	}
	CHECK(shim_change(kq, s, EVFILT_WRITE, EV_ADD) == 0);
	CHECK(shim_wait(kq, 2000, &data, &fflags, &ident) == 1);
	CHECK(ident == s && fflags == ECONNREFUSED);
	CHECK(shim_so_error(s) == ECONNREFUSED);
	return 0;
}
