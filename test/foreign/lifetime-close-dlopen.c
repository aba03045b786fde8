/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A module loaded with dlopen() (RTLD_LOCAL, as plugins are) that does not
 * link libkq closes a watched descriptor: its knotes go, as on FreeBSD.
 */
#include "../t.h"

#include <dlfcn.h>

int main(void)
{
	void *h = dlopen(KQ_FOREIGN_SO, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		T_FAIL("dlopen(%s): %s", KQ_FOREIGN_SO, dlerror());
	int (*fclose_)(int) = (int (*)(int))dlsym(h, "foreign_close");
	T_ASSERT(fclose_ != NULL);

	int kq = t_kqueue(), p[2], q[2];
	struct kevent ev[2];

	t_pipe(p);
	int fd = p[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)1);
	T_ASSERT(fclose_(fd) == 0);
	T_EQ(t_change_err(kq, fd, EVFILT_READ, EV_DELETE, 0, 0, NULL), EBADF);

	t_pipe(q);
	T_EQ(q[0], fd);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, (void *)2);
	t_write(q[1], "z", 1);
	T_EQ(t_wait(kq, ev, 2, 1000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 1, (void *)2);
	dlclose(h);
	return 0;
}
