/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After a close that no interposition sees, kevent() neither reports the
 * closed file under its old number nor spins: a wait with nothing to report
 * sleeps.  Both when the file died with the close and when it lives on
 * elsewhere (a dup, a child's copy), where epoll keeps its entry, keyed by
 * a number the process no longer uses for it.
 */
#include "../t.h"
#include "foreign.h"

#include <sys/resource.h>

static int64_t cpu_ns(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       (int64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void check(int keep_dup, unsigned short extra)
{
	int kq = t_kqueue(), s[2];
	struct kevent ev[4];

	t_socketpair(s);
	int fd = s[0];
	t_change(kq, fd, EVFILT_READ, EV_ADD | extra, 0, 0, (void *)1);
	t_write(s[1], "x", 1);
	int d = keep_dup ? dup(fd) : -1;
	T_ASSERT(foreign_raw_close(fd) == 0);

	int64_t c0 = cpu_ns(), w0 = t_now_ns();
	int n = t_wait(kq, ev, 4, 300);
	int64_t cpu = cpu_ns() - c0, wall = t_now_ns() - w0;
	for (int i = 0; i < n; i++)
		t_print_kevent("  unexpected", &ev[i]);
	T_EQ(n, 0);
	if (wall < 250000000)
		T_FAIL("kevent() returned after %lld ms of a 300 ms wait", (long long)(wall / 1000000));
	/* a sleeping wait costs microseconds; allow a loaded machine a lot */
	if (cpu > wall / 4)
		T_FAIL("kevent() used %lld ms of CPU in a %lld ms wait (dup kept: %d)",
		       (long long)(cpu / 1000000), (long long)(wall / 1000000), keep_dup);
	close(kq);
	close(s[1]);
	if (d >= 0)
		close(d);
}

int main(void)
{
	check(0, 0);
	check(0, EV_CLEAR);
	check(1, 0);
	check(1, EV_CLEAR);
	return 0;
}
