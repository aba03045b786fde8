/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A failing change with room in the event list produces one record:
 * the change itself with flags exactly EV_ERROR, data = errno (ENOENT for a
 * DELETE of an absent knote), and ident, filter, fflags, udata and ext[]
 * echoed as given; kevent() returns 1 and leaves the next slot untouched.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	int ud;
	struct kevent ch, ev[2];

	t_pipe(p);
	EV_SET(&ch, p[0], EVFILT_READ, EV_DELETE | EV_CLEAR, NOTE_LOWAT, 77,
	       &ud);
	ch.ext[0] = 11;
	ch.ext[1] = 12;
	ch.ext[2] = 13;
	ch.ext[3] = 14;

	T_EQ(t_kevent1(kq, &ch, ev, 1), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, EV_ERROR, NOTE_LOWAT, ENOENT, &ud);
	T_EQ(ev[0].ext[0], 11);
	T_EQ(ev[0].ext[1], 12);
	T_EQ(ev[0].ext[2], 13);
	T_EQ(ev[0].ext[3], 14);
	T_ASSERT(t_untouched(&ev[1]));

	/* More room changes nothing: still one record. */
	T_EQ(t_kevent1(kq, &ch, ev, 2), 1);
	T_KEVENT(&ev[0], p[0], EVFILT_READ, EV_ERROR, NOTE_LOWAT, ENOENT, &ud);
	T_ASSERT(t_untouched(&ev[1]));

	/* The change array is not modified. */
	T_EQ(ch.flags, EV_DELETE | EV_CLEAR);
	T_EQ(ch.data, 77);
	return 0;
}
