/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq interposes fcntl() and fcntl64() (src/births.c: F_DUPFD* and
 * F_SETFD may copy a socket); everything else must pass through as the
 * C library's would: the third argument (an int, a pointer or nothing),
 * the result, and errno.  Checked through fcntl(), through fcntl64() as
 * the dynamic linker finds it, and from the helper library built without
 * -lkq: F_GETFL/F_SETFL O_NONBLOCK, F_GETFD/F_SETFD, F_SETLK and
 * F_OFD_GETLK/F_OFD_SETLK on a temporary file (a struct read and written),
 * F_DUPFD/F_DUPFD_CLOEXEC giving the lowest free number >= arg,
 * F_GETPIPE_SZ, and EBADF/EINVAL/EAGAIN failures.
 */
#include "births.h"

#include <dlfcn.h>
#include <sys/syscall.h>

typedef int (*fcntl_fn)(int, int, ...);

static const char *path;

static void check(fcntl_fn f, const char *name)
{
	struct flock lk;
	int p[2];

	fprintf(stderr, "%s\n", name);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	T_ASSERT(fd >= 0);

	/* F_GETFL / F_SETFL */
	int fl = f(fd, F_GETFL);
	T_ASSERT(fl >= 0);
	T_EQ(fl & O_ACCMODE, O_RDWR);
	T_EQ(fl & O_NONBLOCK, 0);
	T_EQ(f(fd, F_SETFL, fl | O_NONBLOCK), 0);
	T_EQ(f(fd, F_GETFL) & O_NONBLOCK, O_NONBLOCK);
	T_EQ(f(fd, F_GETFL), syscall(SYS_fcntl, fd, F_GETFL));
	T_EQ(f(fd, F_SETFL, fl), 0);
	T_EQ(f(fd, F_GETFL) & O_NONBLOCK, 0);

	/* F_GETFD / F_SETFD */
	T_EQ(f(fd, F_GETFD), FD_CLOEXEC);
	T_EQ(f(fd, F_SETFD, 0), 0);
	T_EQ(f(fd, F_GETFD), 0);
	T_EQ(f(fd, F_SETFD, FD_CLOEXEC), 0);
	T_EQ(f(fd, F_GETFD), FD_CLOEXEC);

	/* a process lock, seen (and conflicting) from another open file
	 * description's OFD lock */
	memset(&lk, 0, sizeof lk);
	lk.l_type = F_WRLCK;
	lk.l_whence = SEEK_SET;
	lk.l_start = 10;
	lk.l_len = 20;
	T_EQ(f(fd, F_SETLK, &lk), 0);
	int other = open(path, O_RDWR | O_CLOEXEC);
	T_ASSERT(other >= 0);
	memset(&lk, 0, sizeof lk);
	lk.l_type = F_WRLCK;
	lk.l_whence = SEEK_SET;
	lk.l_start = 0;
	lk.l_len = 0;
	T_EQ(f(other, F_OFD_GETLK, &lk), 0);
	T_EQ(lk.l_type, F_WRLCK);
	T_EQ(lk.l_start, 10);
	T_EQ(lk.l_len, 20);
	lk.l_start = 15;
	lk.l_len = 1;
	lk.l_pid = 0;
	T_ERRNO(f(other, F_OFD_SETLK, &lk), EAGAIN);
	lk.l_type = F_UNLCK;
	lk.l_start = 0;
	lk.l_len = 0;
	T_EQ(f(fd, F_SETLK, &lk), 0);
	lk.l_type = F_WRLCK;
	lk.l_start = 15;
	lk.l_len = 1;
	lk.l_pid = 0;
	T_EQ(f(other, F_OFD_SETLK, &lk), 0);
	T_ASSERT(close(other) == 0);

	/* F_DUPFD: the lowest free number >= arg */
	int base = fd + 50;
	T_ERRNO(f(base, F_GETFD), EBADF);
	T_ERRNO(f(base + 1, F_GETFD), EBADF);
	T_EQ(dup2(fd, base + 1), base + 1);
	T_EQ(f(fd, F_DUPFD, base), base);
	T_EQ(f(fd, F_DUPFD, base), base + 2);
	T_EQ(f(base, F_GETFD), 0);
	T_ASSERT(close(base + 1) == 0);
	T_EQ(f(fd, F_DUPFD_CLOEXEC, base), base + 1);
	T_EQ(f(base + 1, F_GETFD), FD_CLOEXEC);
	for (int i = 0; i < 3; i++)
		T_ASSERT(close(base + i) == 0);

	/* failures and their errno */
	T_ERRNO(f(base, F_GETFD), EBADF);
	T_ERRNO(f(base, F_GETFL), EBADF);
	T_ERRNO(f(base, F_SETFL, O_NONBLOCK), EBADF);
	T_ERRNO(f(base, F_DUPFD, 0), EBADF);
	T_ERRNO(f(-1, F_SETFD, FD_CLOEXEC), EBADF);
	T_ERRNO(f(fd, F_DUPFD, -1), EINVAL);
	T_ERRNO(f(fd, F_GETPIPE_SZ), EBADF);   /* not a pipe */
	T_ERRNO(f(fd, 0x7fff), EINVAL);        /* no such command */

	/* F_GETPIPE_SZ on a pipe */
	t_pipe(p);
	T_EQ(f(p[0], F_GETPIPE_SZ), syscall(SYS_fcntl, p[0], F_GETPIPE_SZ));
	T_ASSERT(f(p[1], F_GETPIPE_SZ) > 0);
	T_ASSERT(close(p[0]) == 0);
	T_ASSERT(close(p[1]) == 0);
	T_ASSERT(close(fd) == 0);
}

int main(void)
{
	int fd = t_tmp_file(&path);
	T_ASSERT(close(fd) == 0);

	check(fcntl, "fcntl");
	fcntl_fn f64 = (fcntl_fn)dlsym(RTLD_DEFAULT, "fcntl64");
	if (f64 != NULL)
		check(f64, "fcntl64");
	check(foreign_fcntl, "fcntl in library");
	return 0;
}
