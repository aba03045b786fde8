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
#include "../t_private_close.h"

#include <dlfcn.h>

#include "kq_libc_versions.h"   /* the build's: KQ_LIBC_VERSION_popen */

void *interposer_popen(void);

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

	int a, b, p1, p2;
	t_two_watched(&a, &b, &p1, &p2);

	t_epoll_ctl_trap();
	t_close_private(a);
	t_close_copied(b);
	return 0;
#endif
}
