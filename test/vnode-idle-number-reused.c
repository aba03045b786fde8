/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq keeps a closed kqueue's inotify instance open for a later kqueue.
 * A program may close that number (closefrom() before running a child, a
 * sweep of "unknown" descriptors) and get it again for a file of its own,
 * here its own inotify instance: the next kqueue must leave that file
 * alone (neither read its events nor close it) and still watch files.
 */
#include "t_vnode.h"

#include <sys/inotify.h>

/* The lowest-numbered inotify instance open, or -1. */
static int find_inotify(void)
{
	for (int fd = 0; fd < 1024; fd++) {
		char path[64], link[32];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, link, sizeof link - 1);
		if (n > 0) {
			link[n] = 0;
			if (strcmp(link, "anon_inode:inotify") == 0)
				return fd;
		}
	}
	return -1;
}

int main(void)
{
	char path[128];
	int f = vt_file(path, sizeof path);

	int kqa = t_kqueue();
	t_change(kqa, f, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, NULL);
	T_ASSERT(close(kqa) == 0);
	int idle = find_inotify();
	if (idle < 0)
		T_SKIP("no inotify instance kept after the kqueue's close");

	/* the program's own instance takes the number */
	T_ASSERT(close(idle) == 0);
	int own = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	T_ASSERT(own >= 0 && own != idle);
	int mine = dup3(own, idle, O_CLOEXEC);
	T_ASSERT(mine == idle && close(own) == 0);
	T_ASSERT(fcntl(mine, F_SETFL, O_NONBLOCK) == 0);
	T_ASSERT(inotify_add_watch(mine, path, IN_MODIFY) >= 0);
	t_write(f, "x", 1);

	int kqb = t_kqueue();
	t_change(kqb, f, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
		 (void *)0xb);
	T_NO_EVENTS(kqb);
	t_write(f, "y", 1);
	WANT1_ONLY(kqb, f, NOTE_WRITE | NOTE_EXTEND, 0xb);

	/* both writes are still in the program's instance */
	T_ASSERT(fcntl(mine, F_GETFD) == FD_CLOEXEC);
	char buf[4096];
	ssize_t n = read(mine, buf, sizeof buf);
	T_ASSERT(n >= (ssize_t)sizeof(struct inotify_event));
	const struct inotify_event *ev = (const struct inotify_event *)buf;
	T_ASSERT(ev->mask & IN_MODIFY);
	T_ASSERT(close(kqb) == 0);
	T_ASSERT(close(mine) == 0);
	return 0;
}
