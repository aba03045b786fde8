/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A number libkq held for itself, closed by a raw system call (a
 * program's close_range() by syscall, as some daemons' close-everything
 * does) and then given to a file of the program's, is the program's:
 * close() of it closes it (libkq's mark of the number does not outlive
 * the file).  The kqueue that lost its descriptor is the program's loss,
 * as after any raw close of a kqueue's descriptors.
 */
#include "t.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>

int main(void)
{
	static char mine[8192];
	for (int fd = 0; fd < 8192; fd++)
		mine[fd] = fcntl(fd, F_GETFD) >= 0;
	int kq = t_kqueue();
	mine[kq] = 1;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		T_SKIP("no /proc/self/fd");
	int h = -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(d) && fd < 8192 && !mine[fd])
			h = fd;
	}
	closedir(d);
	if (h < 0)
		T_FAIL("libkq holds no descriptor of its own? (none found)");
	T_EQ(syscall(SYS_close, h), 0);
	int n = open("/dev/null", O_RDONLY);
	T_ASSERT(n >= 0);
	T_EQ(syscall(SYS_dup3, n, h, 0), h);
	T_ASSERT(close(n) == 0);
	if (close(h) != 0)
		T_FAIL("close(%d) of the program's /dev/null at a number libkq had "
		       "held: %s", h, strerror(errno));
	if (fcntl(h, F_GETFD) != -1)
		T_FAIL("close(%d) left the program's file open", h);
	return 0;
}
