/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A library before libkq in the lookup order defines popen() without a
 * version and calls on to the next popen(), libkq's (interposer.c).  A
 * reference to popen under the C library's version, from code built
 * without -lkq, is then bound by the loader to that library, whose call
 * still reaches libkq: every child is still one libkq sees, as
 * dlvsym() with the C library's version answers (it passes over a
 * definition without a version).  So an accepted socket without
 * SOCK_CLOEXEC is private, and its close() makes no EPOLL_CTL_DEL
 * (counted by a seccomp trap, t_epoll_ctl.h); a dup()ed socket's close,
 * which must make its DEL, shows that the trap counts.
 */
#include "../t.h"
#include "../t_epoll_ctl.h"

#include <dlfcn.h>

#include "kq_libc_versions.h"   /* the build's: KQ_LIBC_VERSION_popen */

void *interposer_popen(void);

/* An accepted, inheritable connection with a READ knote whose record was
 * taken; *peer is its other end. */
static int watched_connection(int kq, int l, const struct sockaddr_in *sin, int *peer)
{
	struct kevent ev;
	*peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	T_ASSERT(*peer >= 0);
	T_ASSERT(connect(*peer, (const struct sockaddr *)sin, sizeof *sin) == 0);
	int a = accept(l, NULL, NULL);
	T_ASSERT(a >= 0);
	T_EQ(fcntl(a, F_GETFD) & FD_CLOEXEC, 0);
	t_change(kq, a, EVFILT_READ, EV_ADD, 0, 0, (void *)0x2222);
	t_write(*peer, "ab", 2);
	T_EQ(t_wait(kq, &ev, 1, 1000), 1);
	T_KEVENT(&ev, a, EVFILT_READ, 0, 0, 2, (void *)0x2222);
	char buf[2];
	T_EQ(read(a, buf, 2), 2);
	return a;
}

int main(void)
{
#if !defined(__x86_64__) || !defined(KQ_LIBC_VERSION_popen)
	/* elsewhere vfork() is the C library's: no socket is private unless
	 * it is close-on-exec */
	T_SKIP("libkq sees every child only on x86-64");
#else
	/* the premise: the unversioned popen comes first, and the versioned
	 * lookup passes over it */
	T_ASSERT(dlsym(RTLD_DEFAULT, "popen") == interposer_popen());
	void *v = dlvsym(RTLD_DEFAULT, "popen", KQ_LIBC_VERSION_popen);
	T_ASSERT(v != NULL);
	T_ASSERT(v != interposer_popen());

	struct sockaddr_in sin;
	int kq = t_kqueue();
	int l = t_inet_socket(SOCK_STREAM | SOCK_CLOEXEC, 8, &sin);
	int p1, p2;
	int a = watched_connection(kq, l, &sin, &p1);
	int b = watched_connection(kq, l, &sin, &p2);
	int copy = dup(b);
	T_ASSERT(copy >= 0);

	t_epoll_ctl_trap();
	T_ASSERT(close(a) == 0);
	if (t_epoll_ctls[EPOLL_CTL_DEL] != 0)
		T_FAIL("close() of an accepted socket no child can hold made %d "
		       "EPOLL_CTL_DEL%s, expected none", (int)t_epoll_ctls[EPOLL_CTL_DEL],
		       t_epoll_ctls[EPOLL_CTL_DEL] == 1 ? "" : "s");
	T_ASSERT(close(b) == 0);
	if (t_epoll_ctls[EPOLL_CTL_DEL] != 1)
		T_FAIL("close() of a dup()ed socket made %d EPOLL_CTL_DELs, expected 1",
		       (int)t_epoll_ctls[EPOLL_CTL_DEL]);
	return 0;
#endif
}
