/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq's setrlimit(), setrlimit64(), prlimit() and prlimit64() (which
 * follow RLIMIT_NOFILE for the descriptor kept in reserve for eventfd
 * counts) keep glibc's contract: each call returns what the prlimit64
 * system call glibc makes returns, with the same errno, and leaves errno
 * alone when it succeeds.  Compared with the same call made through
 * syscall(): an unknown resource and a soft limit above the hard one
 * (EINVAL), a bad pointer (EFAULT), NULL limits (nothing set), limits
 * read back, another process's limits (set and read; this process's stay,
 * and so do the descriptors libkq keeps for an eventfd's count),
 * a process that does not exist (ESRCH), one not ours (EPERM unless root).
 * The functions called are libkq's (the test would otherwise check glibc
 * against itself).
 */
#include "t.h"

#include <dlfcn.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

static int sys_prlimit(pid_t pid, int res, const struct rlimit *new, struct rlimit *old)
{
	return (int)syscall(SYS_prlimit64, pid, res, new, old);
}

/* The outcome of one call: its value and errno (left at 4321 on success
 * when it was unchanged). */
struct out {
	int r, err;
};

#define CALL(expr) ({ errno = 4321; int r_ = (expr); (struct out){ r_, errno }; })
/* libkq's call, then the system call's, in that order */
#define SAME(what, lib, sys) do {                                          \
	struct out lib_ = CALL(lib);                                       \
	struct out sys_ = CALL(sys);                                       \
	same((what), lib_, sys_);                                          \
} while (0)

static void same(const char *what, struct out lib, struct out sys)
{
	if (lib.r != sys.r || lib.err != sys.err)
		T_FAIL("%s: libkq %d errno %d (%s), system call %d errno %d (%s)", what, lib.r,
		       lib.err, strerror(lib.err), sys.r, sys.err, strerror(sys.err));
	if (lib.r == 0 && lib.err != 4321)
		T_FAIL("%s: errno changed to %d on success", what, lib.err);
}

static void same_limit(const char *what, const struct rlimit *a, const struct rlimit *b)
{
	if (a->rlim_cur != b->rlim_cur || a->rlim_max != b->rlim_max)
		T_FAIL("%s: libkq read %llu/%llu, the system call %llu/%llu", what,
		       (unsigned long long)a->rlim_cur, (unsigned long long)a->rlim_max,
		       (unsigned long long)b->rlim_cur, (unsigned long long)b->rlim_max);
}

/* The numbers of the fdinfo files open in the process, as a bit mask of
 * the first 8192 (libkq's, kept to read eventfd counts). */
static void fdinfo_numbers(unsigned char *mask)
{
	memset(mask, 0, 1024);
	for (int fd = 0; fd < 8192; fd++) {
		char path[64], what[128];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t m = readlink(path, what, sizeof what - 1);
		what[m > 0 ? m : 0] = 0;
		if (strstr(what, "/fdinfo/"))
			mask[fd / 8] |= (unsigned char)(1 << fd % 8);
	}
}

/* The library a function's code is in. */
static const char *home(void *fn)
{
	Dl_info di;
	return dladdr(fn, &di) && di.dli_fname ? di.dli_fname : "?";
}

int main(void)
{
	static const char *const names[4] = { "setrlimit", "setrlimit64", "prlimit",
					      "prlimit64" };
	for (int i = 0; i < 4; i++) {
		void *fn = dlsym(RTLD_DEFAULT, names[i]);
		if (!fn || !strstr(home(fn), "libkq"))
			T_FAIL("%s() is %s's, not libkq's", names[i], fn ? home(fn) : "nobody");
	}

	struct rlimit cur, got_lib, got_sys;
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &cur) == 0);

	/* refused */
	struct rlimit inverted = { 10, 5 };
	SAME("setrlimit(unknown resource)", setrlimit(1000, &cur),
	     sys_prlimit(0, 1000, &cur, NULL));
	SAME("setrlimit64(unknown resource)", setrlimit64(1000, (struct rlimit64 *)&cur),
	     sys_prlimit(0, 1000, &cur, NULL));
	SAME("prlimit(unknown resource)", prlimit(0, 1000, &cur, NULL),
	     sys_prlimit(0, 1000, &cur, NULL));
	SAME("setrlimit(soft above hard)", setrlimit(RLIMIT_NOFILE, &inverted),
	     sys_prlimit(0, RLIMIT_NOFILE, &inverted, NULL));
	SAME("prlimit64(soft above hard)",
	     prlimit64(0, RLIMIT_NOFILE, (struct rlimit64 *)&inverted, NULL),
	     sys_prlimit(0, RLIMIT_NOFILE, &inverted, NULL));
	SAME("setrlimit(bad pointer)", setrlimit(RLIMIT_NOFILE, (struct rlimit *)8),
	     sys_prlimit(0, RLIMIT_NOFILE, (struct rlimit *)8, NULL));
	SAME("prlimit(bad old pointer)", prlimit(0, RLIMIT_NOFILE, NULL, (struct rlimit *)8),
	     sys_prlimit(0, RLIMIT_NOFILE, NULL, (struct rlimit *)8));

	/* NULL limits: nothing set, nothing read (glibc's header says the
	 * pointer is not NULL, so the call goes through a plain pointer; the
	 * function takes it all the same) */
	int (*volatile set)(__rlimit_resource_t, const struct rlimit *) = setrlimit;
	SAME("setrlimit(NULL)", set(RLIMIT_NOFILE, NULL),
	     sys_prlimit(0, RLIMIT_NOFILE, NULL, NULL));
	SAME("prlimit(NULL, NULL)", prlimit(0, RLIMIT_NOFILE, NULL, NULL),
	     sys_prlimit(0, RLIMIT_NOFILE, NULL, NULL));
	SAME("prlimit(read)", prlimit(0, RLIMIT_NOFILE, NULL, &got_lib),
	     sys_prlimit(0, RLIMIT_NOFILE, NULL, &got_sys));
	same_limit("prlimit(read)", &got_lib, &got_sys);

	/* set to what it is, and lower and back, reading the old value */
	SAME("setrlimit(same)", setrlimit(RLIMIT_NOFILE, &cur),
	     sys_prlimit(0, RLIMIT_NOFILE, &cur, NULL));
	struct rlimit low = cur;
	low.rlim_cur = cur.rlim_cur > 200 ? 200 : cur.rlim_cur;
	SAME("prlimit(lower)", prlimit(0, RLIMIT_NOFILE, &low, &got_lib),
	     sys_prlimit(0, RLIMIT_NOFILE, &low, &got_sys));
	T_EQ(got_lib.rlim_cur, cur.rlim_cur);
	T_EQ(got_sys.rlim_cur, low.rlim_cur);
	SAME("setrlimit64(back)", setrlimit64(RLIMIT_NOFILE, (struct rlimit64 *)&cur),
	     sys_prlimit(0, RLIMIT_NOFILE, &cur, NULL));
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &got_lib) == 0);
	same_limit("after setting it back", &got_lib, &cur);
	/* another resource passes through the same way */
	struct rlimit core;
	T_ASSERT(getrlimit(RLIMIT_CORE, &core) == 0);
	SAME("setrlimit(RLIMIT_CORE)", setrlimit(RLIMIT_CORE, &core),
	     sys_prlimit(0, RLIMIT_CORE, &core, NULL));

	/* another process: its limit changes, ours does not, and nothing
	 * of libkq's moves (an eventfd's count read: files kept for it) */
	int kq = t_kqueue(), efd = eventfd(0, EFD_NONBLOCK);
	T_ASSERT(efd >= 0);
	t_change(kq, efd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_eventfd_add(efd, 1);
	T_GET1(kq, efd, EVFILT_READ, 0, 0, 1, NULL);
	static unsigned char before[1024], after[1024];
	fdinfo_numbers(before);
	pid_t child = fork();
	T_ASSERT(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	struct rlimit c1 = cur, c2 = cur;
	c1.rlim_cur = cur.rlim_cur > 64 ? 64 : cur.rlim_cur;
	c2.rlim_cur = cur.rlim_cur > 65 ? 65 : cur.rlim_cur;
	SAME("prlimit(child, set)", prlimit(child, RLIMIT_NOFILE, &c1, &got_lib),
	     sys_prlimit(child, RLIMIT_NOFILE, &c2, &got_sys));
	same_limit("prlimit(child) old", &got_lib, &cur);
	T_EQ(got_sys.rlim_cur, c1.rlim_cur);
	SAME("prlimit64(child, read)",
	     prlimit64(child, RLIMIT_NOFILE, NULL, (struct rlimit64 *)&got_lib),
	     sys_prlimit(child, RLIMIT_NOFILE, NULL, &got_sys));
	same_limit("prlimit64(child, read)", &got_lib, &got_sys);
	T_EQ(got_lib.rlim_cur, c2.rlim_cur);
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &got_lib) == 0);
	same_limit("this process's after the child's changed", &got_lib, &cur);
	fdinfo_numbers(after);
	if (memcmp(before, after, sizeof before))
		T_FAIL("libkq's fdinfo files moved for another process's limit");
	T_ASSERT(kill(child, SIGKILL) == 0 && waitpid(child, NULL, 0) == child);
	T_ASSERT(close(kq) == 0 && close(efd) == 0);

	/* no such process; a process not ours (read only: root may) */
	SAME("prlimit(no such pid)", prlimit(0x7ffffff0, RLIMIT_NOFILE, NULL, &got_lib),
	     sys_prlimit(0x7ffffff0, RLIMIT_NOFILE, NULL, &got_sys));
	SAME("prlimit(pid 1, read)", prlimit(1, RLIMIT_NOFILE, NULL, &got_lib),
	     sys_prlimit(1, RLIMIT_NOFILE, NULL, &got_sys));
	return 0;
}
