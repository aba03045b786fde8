/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A daemon's main thread ends with pthread_exit() and another thread goes
 * on: /proc/self then names the exited leader, whose fd, fdinfo and
 * mountinfo entries are gone, while /proc/thread-self still serves the
 * live thread.  EVFILT_VNODE (also with NOTE_REVOKE, which reads the mount
 * table, and on a directory, whose removal is watched through its parent),
 * EVFILT_READ on a regular file and the counter of an eventfd must work as
 * before (test/t_procfs.h).  The worker thread ends the process.
 */
#include "t_procfs.h"

/* Waits (at most 5 s) until the leader thread is a zombie. */
static void leader_gone(void)
{
	char path[64], buf[256];
	snprintf(path, sizeof path, "/proc/thread-self/../%d/stat", (int)getpid());
	for (int i = 0; i < 5000; i++) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			T_SKIP("%s: %s", path, strerror(errno));
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		T_ASSERT(n > 0);
		buf[n] = 0;
		const char *p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'Z')
			return;
		t_sleep_ms(1);
	}
	T_FAIL("the main thread did not exit");
}

static void *worker(void *arg)
{
	(void)arg;
	leader_gone();
	char link[64];
	if (readlink("/proc/self/fd/0", link, sizeof link) >= 0)
		fprintf(stderr, "note: /proc/self/fd still serves here\n");
	tp_check_filters(true);
	exit(0);
}

int main(void)
{
	pthread_t th;
	int err = pthread_create(&th, NULL, worker, NULL);
	if (err)
		T_FAIL("pthread_create: %s", strerror(err));
	pthread_exit(NULL);
}
