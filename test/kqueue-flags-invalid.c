/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kqueuex() with an unknown flag bit (0x80) fails with EINVAL and
 * creates no descriptor (FreeBSD sys_kqueuex rejects every bit except
 * KQUEUE_CLOEXEC).  Library decisions checked as well: KQUEUE_CPONFORK
 * (FreeBSD 15) is not supported -> EINVAL, and kqueue1() accepts only
 * O_CLOEXEC|O_NONBLOCK, any other bit -> EINVAL.
 */
#include "t.h"

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	T_ASSERT(fd >= 0);
	close(fd);
	return fd;
}

int main(void)
{
	/* Let the library do any one-time set-up before counting. */
	int warm = kqueue();
	T_ASSERT(warm >= 0);
	T_EQ(close(warm), 0);
	int before = lowest_free_fd();

	T_ERRNO(kqueuex(0x80), EINVAL);
	T_ERRNO(kqueuex(KQUEUE_CLOEXEC | 0x80), EINVAL);
	T_ERRNO(kqueuex(0x80000000u), EINVAL);
	T_ERRNO(kqueuex(~0u), EINVAL);
	/* Deviation from FreeBSD 15: KQUEUE_CPONFORK would copy the queue into
	 * fork children; a user-space queue cannot be copied, so it is
	 * rejected instead of being silently ignored. */
	T_ERRNO(kqueuex(KQUEUE_CPONFORK), EINVAL);
	T_ERRNO(kqueuex(KQUEUE_CPONFORK | KQUEUE_CLOEXEC), EINVAL);

	T_ERRNO(kqueue1(O_RDWR), EINVAL);
	T_ERRNO(kqueue1(O_APPEND), EINVAL);
	T_ERRNO(kqueue1(O_CLOEXEC | O_TRUNC), EINVAL);
	T_ERRNO(kqueue1(-1), EINVAL);

	/* No descriptor was leaked by the failing calls. */
	T_EQ(lowest_free_fd(), before);

	/* The accepted flag sets work. */
	int ok[] = { 0, O_CLOEXEC, O_NONBLOCK, O_CLOEXEC | O_NONBLOCK };
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		int kq = kqueue1(ok[i]);
		if (kq < 0)
			T_FAIL("kqueue1(0x%x): %s", ok[i], strerror(errno));
		struct kevent ev;
		T_EQ(t_get(kq, &ev, 1), 0);
		T_EQ(close(kq), 0);
	}
	int kq = kqueuex(0);
	T_ASSERT(kq >= 0);
	T_EQ(close(kq), 0);
	return 0;
}
