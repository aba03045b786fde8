/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scale: one kqueue holds 10,000 VNODE knotes on 10,000 distinct
 * files.  All EV_ADDs succeed; the kqueue owns O(1) descriptors (one
 * inotify instance per kqueue, not one per knote): /proc/self/fd is
 * counted after the 10,000 files were opened and before the kqueue was
 * created, and again after the 10,000 registrations; the difference stays
 * within a handful.  Writing to 5 of the files reports exactly those 5,
 * each once: {fd, VNODE, EV_CLEAR, NOTE_WRITE|NOTE_EXTEND, 0, its udata},
 * and nothing else.  Closing the kqueue releases its descriptors (its
 * inotify instance may stay, idle, for a later kqueue).  Library
 * design; no FreeBSD analogue.  Needs RLIMIT_NOFILE >= 10,000 + slack
 * (the soft limit is raised to the hard one if needed) and inotify's
 * max_user_watches >= 10,000 + slack; skipped with the reason otherwise.
 * Creating the 10,000 files under /tmp dominates the run time (0.2 to 4 s
 * on a loaded ext4 disk); the library's part (registration) is printed
 * separately.
 */
#include "t_vnode.h"

#include <sys/resource.h>

#define N 10000
#define BUDGET 8   /* epoll, its private dup, inotify, other lazy fds, slack */
#define BATCH 500

static int fds[N];

static void need_limits(void)
{
	struct rlimit rl;
	long watches = -1;
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "r");

	if (f != NULL) {
		if (fscanf(f, "%ld", &watches) != 1)
			watches = -1;
		fclose(f);
	}
	if (watches >= 0 && watches < N + 1000)
		T_SKIP("inotify max_user_watches is %ld, need %d", watches,
		       N + 1000);
	T_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < N + 100) {
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < N + 100)
			T_SKIP("RLIMIT_NOFILE hard limit %llu < %d",
			       (unsigned long long)rl.rlim_max, N + 100);
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ?
			      (rlim_t)(N + 100) : rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			T_SKIP("cannot raise RLIMIT_NOFILE to %llu: %s",
			       (unsigned long long)rl.rlim_cur,
			       strerror(errno));
	}
}

int main(void)
{
	static const int pick[] = { 0, 1, 4999, 7777, N - 1 };
	const int npick = (int)(sizeof pick / sizeof pick[0]);
	const char *dir;
	char path[128];
	struct kevent ch[BATCH], ev[64];
	int seen[sizeof pick / sizeof pick[0]] = { 0 };
	int64_t t0 = t_now_ns();

	need_limits();
	dir = vt_mkdir();
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof path, "%s/f%05d", dir, i);
		fds[i] = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			      0600);
		if (fds[i] < 0)
			T_FAIL("open(%s): %s", path, strerror(errno));
	}

	int64_t t1 = t_now_ns();
	int before = t_count_fds();
	int kq = t_kqueue();
	for (int i = 0; i < N; i += BATCH) {
		for (int k = 0; k < BATCH; k++)
			EV_SET(&ch[k], fds[i + k], EVFILT_VNODE,
			       EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
			       (void *)(intptr_t)(i + k + 1));
		if (kevent(kq, ch, BATCH, NULL, 0, NULL) != 0)
			T_FAIL("registering knotes %d..%d: %s", i,
			       i + BATCH - 1, strerror(errno));
	}
	int owned = t_count_fds() - before;
	fprintf(stderr, "%d files created in %.0f ms; %d VNODE knotes "
		"registered in %.0f ms; the kqueue owns %d descriptors\n", N,
		(t1 - t0) / 1e6, N, (t_now_ns() - t1) / 1e6, owned);
	if (owned > BUDGET)
		T_FAIL("kqueue owns %d descriptors for %d VNODE knotes "
		       "(budget %d)", owned, N, BUDGET);
	T_NO_EVENTS(kq);

	for (int p = 0; p < npick; p++)
		t_write(fds[pick[p]], "x", 1);
	int got = 0;
	while (got < npick) {
		int n = t_wait(kq, ev, 64, 2000);
		if (n == 0)
			T_FAIL("only %d of %d written files reported", got,
			       npick);
		for (int k = 0; k < n; k++) {
			int idx = (int)(intptr_t)ev[k].udata - 1, p;
			for (p = 0; p < npick && pick[p] != idx; p++)
				;
			if (p == npick || seen[p]) {
				t_print_kevent("  unexpected", &ev[k]);
				T_FAIL("record for a file not written to, or "
				       "twice");
			}
			seen[p] = 1;
			T_KEVENT(&ev[k], fds[idx], EVFILT_VNODE, EV_CLEAR,
				 NOTE_WRITE | NOTE_EXTEND, 0, ev[k].udata);
		}
		got += n;
	}
	T_NO_EVENTS(kq);

	T_ASSERT(close(kq) == 0);
	T_EQ(t_count_fds_but_idle(), before);
	T_ASSERT(t_count_inotify() <= 4);
	for (int i = 0; i < N; i++)
		T_ASSERT(close(fds[i]) == 0);
	fprintf(stderr, "done in %.0f ms\n", (t_now_ns() - t0) / 1e6);
	return 0;
}
