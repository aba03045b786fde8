/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The filters that exist but cannot be registered through kevent()
 * (EVFILT_AIO, EVFILT_LIO, EVFILT_SENDFILE) fail with ENXIO when added
 * directly, e.g. {7, EVFILT_AIO}.  Taken from FreeBSD's source: the null
 * filter ops (filt_nullattach).
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int ud;
	struct kevent ch, ev[2];
	struct timespec z = { 0, 0 };
	static const short filt[] = { EVFILT_AIO, EVFILT_LIO,
				      EVFILT_SENDFILE };

	for (size_t i = 0; i < sizeof filt / sizeof filt[0]; i++) {
		EV_SET(&ch, 7, filt[i], EV_ADD, 0, 0, &ud);
		memset(ev, 0xa5, sizeof ev);
		int n = kevent(kq, &ch, 1, ev, 2, &z);
		if (n != 1)
			T_FAIL("filter %d: kevent returned %d (errno %d), "
			       "expected one error record", filt[i], n, errno);
		T_KEVENT(&ev[0], 7, filt[i], EV_ERROR, 0, ENXIO, &ud);
		T_ERRNO(kevent(kq, &ch, 1, NULL, 0, NULL), ENXIO);
	}
	T_NO_EVENTS(kq);
	return 0;
}
