/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * io_uring batching of socket counts (src/mux/uring.c) survives a moment
 * at the descriptor limit.  A kqueue whose first batch comes while
 * RLIMIT_NOFILE is reached cannot make its ring (io_uring_setup() fails
 * with EMFILE): the counts then come from ioctl, exactly, and once
 * descriptors are free again a later batch makes the ring after all.  Only
 * a kernel that refuses io_uring turns the batching off for good.
 * Skipped where this process does not batch at all (io_uring refused,
 * LIBKQ_NO_IO_URING=1).
 */
#include "t_fdfill.h"

#include <poll.h>

enum { N = 8 };

/* How many io_uring instances this process holds. */
static int rings(void)
{
	DIR *d = opendir("/proc/self/fd");
	T_ASSERT(d != NULL);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char path[300], link[64];
		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(path, link, sizeof link - 1);
		if (k > 0) {
			link[k] = 0;
			n += strcmp(link, "anon_inode:[io_uring]") == 0;
		}
	}
	closedir(d);
	return n;
}

/* One collection on kq: every socket's record, with its byte count. */
static void collect(int kq, const int *srv)
{
	struct kevent ev[2 * N];
	int n = t_get(kq, ev, 2 * N);
	T_EQ(n, N);
	for (int k = 0; k < n; k++) {
		int i = (int)(intptr_t)ev[k].udata - 1;
		T_ASSERT(i >= 0 && i < N);
		T_KEVENT(&ev[k], srv[i], EVFILT_READ, 0, 0, (i + 1) * 3, ev[k].udata);
	}
}

int main(void)
{
	int cli[N], srv[N];
	char buf[64];
	memset(buf, 'u', sizeof buf);
	for (int i = 0; i < N; i++) {
		t_tcp_pair(&cli[i], &srv[i]);
		t_write(cli[i], buf, (size_t)(i + 1) * 3);
		struct pollfd p = { .fd = srv[i], .events = POLLIN };
		T_EQ(poll(&p, 1, 5000), 1);
	}

	/* does this process batch at all? */
	int probe = t_kqueue(), before = rings();
	for (int i = 0; i < N; i++)
		t_change(probe, srv[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)(i + 1));
	collect(probe, srv);
	if (rings() == before)
		T_SKIP("no io_uring batching in this process");
	T_EQ(close(probe), 0);
	before = rings();

	int kq = t_kqueue();
	for (int i = 0; i < N; i++)
		t_change(kq, srv[i], EVFILT_READ, EV_ADD, 0, 0, (void *)(intptr_t)(i + 1));

	struct t_fdfill fill;
	t_fdfill(&fill);
	collect(kq, srv);   /* io_uring_setup() fails here: EMFILE */
	t_fdfill_undo(&fill);
	T_EQ(rings(), before);

	/* a failed attempt is not repeated at once (it costs tens of
	 * microseconds), but within a second a batch tries again */
	int64_t deadline = t_now_ns() + 2000000000LL;
	do {
		t_sleep_ms(50);
		collect(kq, srv);
	} while (rings() == before && t_now_ns() < deadline);
	if (rings() != before + 1)
		T_FAIL("no ring made after the descriptor limit was lifted");
	collect(kq, srv);
	return 0;
}
