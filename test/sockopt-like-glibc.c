/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq's setsockopt() and getsockopt() (which note SO_RCVLOWAT for READ
 * knotes, and give back a socket error kept for an EV_EOF record) keep
 * glibc's contract where neither of those is at stake: the same value,
 * errno and option contents as glibc's own functions (looked up in
 * libc.so.6), and errno left alone on success.  Cases: an option set and
 * read back (SO_RCVBUF, SO_RCVLOWAT, TCP_NODELAY), a length too short for
 * the option, a negative length, an unknown level and an unknown option, a
 * descriptor that is not a socket (ENOTSOCK), one that is not open
 * (EBADF), a bad pointer (EFAULT), SO_ERROR with no error pending, and a
 * read of TCP_INFO shorter than the structure (the kernel says how much it
 * wrote).
 */
#include "t.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);
typedef int (*getsockopt_fn)(int, int, int, void *, socklen_t *);

struct out {
	int r, err;
	socklen_t len;
	int val;
};

#define UNSET 4321

static void same(const char *what, struct out lib, struct out glibc)
{
	if (lib.r != glibc.r || lib.err != glibc.err || lib.len != glibc.len || lib.val != glibc.val)
		T_FAIL("%s: libkq %d errno %d len %u value %d, glibc %d errno %d len %u value %d",
		       what, lib.r, lib.err, (unsigned)lib.len, lib.val, glibc.r, glibc.err,
		       (unsigned)glibc.len, glibc.val);
	if (lib.r == 0 && lib.err != UNSET)
		T_FAIL("%s: errno changed to %d on success", what, lib.err);
}

static struct out set(setsockopt_fn f, int fd, int level, int name, const void *v, socklen_t len)
{
	struct out o = { 0, 0, len, 0 };
	errno = UNSET;
	o.r = f(fd, level, name, v, len);
	o.err = errno;
	return o;
}

static struct out get(getsockopt_fn f, int fd, int level, int name, void *v, socklen_t len)
{
	struct out o = { 0, 0, len, -7 };
	int buf[64];
	memset(buf, 0xa5, sizeof buf);
	errno = UNSET;
	o.r = f(fd, level, name, v ? v : buf, &o.len);
	o.err = errno;
	if (!v)
		o.val = buf[0];
	return o;
}

int main(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		T_SKIP("dlopen(libc.so.6): %s", dlerror());
	setsockopt_fn gset = (setsockopt_fn)dlsym(h, "setsockopt");
	getsockopt_fn gget = (getsockopt_fn)dlsym(h, "getsockopt");
	if (!gset || !gget)
		T_SKIP("glibc's setsockopt/getsockopt not found");
	if (gset == setsockopt)
		T_SKIP("setsockopt() is glibc's here (libkq does not replace it)");

	int tcp = socket(AF_INET, SOCK_STREAM, 0), file = open("/dev/null", O_RDONLY);
	T_ASSERT(tcp >= 0 && file >= 0);
	int closed = dup(file);
	T_ASSERT(closed >= 0 && close(closed) == 0);
	int one = 1, big = 1 << 16, lowat = 5;

	struct { const char *what; int fd, level, name; const void *v; socklen_t len; } sets[] = {
		{ "set SO_RCVBUF", tcp, SOL_SOCKET, SO_RCVBUF, &big, sizeof big },
		{ "set SO_RCVLOWAT", tcp, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat },
		{ "set TCP_NODELAY", tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one },
		{ "set, length too short", tcp, SOL_SOCKET, SO_RCVBUF, &big, 2 },
		{ "set, unknown level", tcp, 4242, 1, &one, sizeof one },
		{ "set, unknown option", tcp, SOL_SOCKET, 4242, &one, sizeof one },
		{ "set on a file", file, SOL_SOCKET, SO_RCVBUF, &big, sizeof big },
		{ "set on a closed number", closed, SOL_SOCKET, SO_RCVBUF, &big, sizeof big },
		{ "set from a bad pointer", tcp, SOL_SOCKET, SO_RCVBUF, (void *)8, sizeof big },
		{ "set on -1", -1, SOL_SOCKET, SO_RCVBUF, &big, sizeof big },
	};
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		same(sets[i].what,
		     set(setsockopt, sets[i].fd, sets[i].level, sets[i].name, sets[i].v, sets[i].len),
		     set(gset, sets[i].fd, sets[i].level, sets[i].name, sets[i].v, sets[i].len));

	struct { const char *what; int fd, level, name; void *v; socklen_t len; } gets[] = {
		{ "get SO_RCVBUF", tcp, SOL_SOCKET, SO_RCVBUF, NULL, sizeof(int) },
		{ "get SO_RCVLOWAT", tcp, SOL_SOCKET, SO_RCVLOWAT, NULL, sizeof(int) },
		{ "get TCP_NODELAY", tcp, IPPROTO_TCP, TCP_NODELAY, NULL, sizeof(int) },
		{ "get SO_ERROR, none pending", tcp, SOL_SOCKET, SO_ERROR, NULL, sizeof(int) },
		{ "get SO_ERROR, short length", tcp, SOL_SOCKET, SO_ERROR, NULL, 2 },
		{ "get TCP_INFO, first 8 bytes", tcp, IPPROTO_TCP, TCP_INFO, NULL, 8 },
		{ "get, negative length", tcp, SOL_SOCKET, SO_RCVBUF, NULL, (socklen_t)-1 },
		{ "get, unknown level", tcp, 4242, 1, NULL, sizeof(int) },
		{ "get, unknown option", tcp, SOL_SOCKET, 4242, NULL, sizeof(int) },
		{ "get on a file", file, SOL_SOCKET, SO_RCVBUF, NULL, sizeof(int) },
		{ "get on a closed number", closed, SOL_SOCKET, SO_RCVBUF, NULL, sizeof(int) },
		{ "get into a bad pointer", tcp, SOL_SOCKET, SO_RCVBUF, (void *)8, sizeof(int) },
		{ "get SO_ERROR into a bad pointer", tcp, SOL_SOCKET, SO_ERROR, (void *)8, sizeof(int) },
	};
	for (size_t i = 0; i < sizeof gets / sizeof gets[0]; i++)
		same(gets[i].what,
		     get(getsockopt, gets[i].fd, gets[i].level, gets[i].name, gets[i].v, gets[i].len),
		     get(gget, gets[i].fd, gets[i].level, gets[i].name, gets[i].v, gets[i].len));
	return 0;
}
