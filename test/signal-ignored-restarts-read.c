/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal whose disposition ignores it (SIGCHLD's default, here) does not
 * interrupt a blocking read(): the kernel discards it.  While a knote
 * watches it libkq's handler stands in, and must have the read restarted.
 */
#include "t.h"

#include <sys/wait.h>

int main(void)
{
	int kq = t_kqueue(), p[2];
	t_change(kq, SIGCHLD, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	T_ASSERT(pipe(p) == 0);

	pid_t child = fork();
	T_ASSERT(child >= 0);
	if (child == 0) {
		usleep(50000);   /* exits while the parent reads */
		_exit(0);
	}
	pid_t writer = fork();
	T_ASSERT(writer >= 0);
	if (writer == 0) {
		usleep(300000);
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	char c;
	ssize_t n = read(p[0], &c, 1);
	if (n < 0)
		T_FAIL("read() failed with %s: the ignored SIGCHLD interrupted it",
		       strerror(errno));
	T_EQ(n, 1);
	T_ASSERT(waitpid(child, NULL, 0) == child);
	T_ASSERT(waitpid(writer, NULL, 0) == writer);
	return 0;
}
