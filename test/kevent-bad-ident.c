/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bad input: an fd filter (READ, WRITE) whose ident is not an open
 * descriptor -- a closed number, INT_MAX, 2^31, 2^32 + 3, UINTPTR_MAX
 * ((uintptr_t)-1) -- fails with EBADF for EV_ADD and EV_DELETE, as
 * -1/errno and as an EV_ERROR record, never crashes and registers nothing
 * (FreeBSD kqueue_register: ident > INT_MAX or fget failure -> EBADF;
 * the descriptor is looked up before the knote).  Overlaps
 * change-ident-too-big and change-closed-fd, which use a single value each.
 */
#include "t.h"

#include <limits.h>

int main(void)
{
	int kq = t_kqueue();
	/* A high closed number, so no descriptor the library might open
	 * meanwhile can take it. */
	int closed = 900;
	int fd = open("/dev/null", O_RDONLY);
	T_ASSERT(fd >= 0);
	if (dup2(fd, closed) != closed)
		T_SKIP("cannot use descriptor number %d", closed);
	T_EQ(close(fd), 0);
	T_EQ(close(closed), 0);

	const uintptr_t bad[] = {
		(uintptr_t)closed, (uintptr_t)INT_MAX,
		(uintptr_t)INT_MAX + 1, ((uintptr_t)1 << 32) + 3,
		UINTPTR_MAX, UINTPTR_MAX - 1,
	};
	static const short filt[] = { EVFILT_READ, EVFILT_WRITE };
	static const unsigned short acts[] = { EV_ADD, EV_DELETE,
					       EV_ADD | EV_ONESHOT,
					       EV_ADD | EV_RECEIPT };
	struct timespec z = { 0, 0 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		for (size_t f = 0; f < 2; f++)
			for (size_t a = 0; a < sizeof acts / sizeof acts[0];
			     a++) {
				struct kevent ch, ev[2];
				EV_SET(&ch, bad[i], filt[f], acts[a], 0, 0,
				       &ch);
				errno = 0;
				int r = kevent(kq, &ch, 1, NULL, 0, NULL);
				if (r != -1 || errno != EBADF)
					T_FAIL("ident %" PRIuPTR " filter %d "
					       "flags 0x%x: %d/errno %d (%s), "
					       "expected -1/EBADF", bad[i],
					       filt[f], acts[a], r, errno,
					       strerror(errno));
				memset(ev, 0, sizeof ev);
				r = kevent(kq, &ch, 1, ev, 2, &z);
				if (r != 1)
					T_FAIL("ident %" PRIuPTR " filter %d "
					       "flags 0x%x: returned %d, "
					       "expected 1 error record",
					       bad[i], filt[f], acts[a], r);
				T_KEVENT(&ev[0], bad[i], filt[f], EV_ERROR, 0,
					 EBADF, &ch);
			}
	T_NO_EVENTS(kq);
	return 0;
}
