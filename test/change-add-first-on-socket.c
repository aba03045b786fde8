/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The first READ or WRITE knote on a socket the program made itself (the
 * commonest change of all, which libkq applies on a short path): its
 * records in every field, level and EV_CLEAR, added alone or from a
 * changelist with room for records, the EBADF of a socket closed behind
 * libkq's back (fflags echoed as given).  (The close of such a socket:
 * lifetime-close-first-knotes.)
 */
#include "t.h"

/* Finds the record of (ident, filter) among n; fails if it is missing. */
static const struct kevent *find(const struct kevent *ev, int n, uintptr_t ident, short filter)
{
	for (int i = 0; i < n; i++)
		if (ev[i].ident == ident && ev[i].filter == filter)
			return &ev[i];
	T_FAIL("no record for ident %" PRIuPTR " filter %d among %d", ident, filter, n);
}

int main(void)
{
	int kq = t_kqueue();
	int sp[2], ud1, ud2, ud3;
	struct kevent ev[8], ch;
	struct timespec z = { 0, 0 };

	/* a knote made and deleted first, so that the kqueue has fd slots
	 * for the numbers used below, as a kqueue in use has (the first
	 * knote of a kqueue grows its table, and takes the general path) */
	int warm[2];
	t_socketpair(warm);
	t_change(kq, warm[1], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, warm[1], EVFILT_READ, EV_DELETE, 0, 0, NULL);

	/* level READ: the count, again at the next call */
	t_socketpair(sp);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &ud1);
	T_NO_EVENTS(kq);
	t_write(sp[1], "abc", 3);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, &ud1);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, &ud1);

	/* EV_CLEAR WRITE, from a changelist with room for records: no
	 * record for the change, then one record of it, then none */
	EV_SET(&ch, sp[1], EVFILT_WRITE, EV_ADD | EV_ENABLE | EV_CLEAR, 0, 0, &ud2);
	int n = kevent(kq, &ch, 1, ev, 8, &z);
	if (n != 2)
		T_FAIL("changelist with the WRITE add: %d records, expected 2", n);
	T_KEVENT(find(ev, n, sp[0], EVFILT_READ), sp[0], EVFILT_READ, 0, 0, 3, &ud1);
	const struct kevent *w = find(ev, n, sp[1], EVFILT_WRITE);
	if (w->flags != EV_CLEAR || w->fflags != 0 || w->data <= 0 || w->udata != &ud2)
		T_FAIL("WRITE record: flags %#x fflags %#x data %lld udata %p",
		       w->flags, w->fflags, (long long)w->data, w->udata);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, &ud1);

	/* deleted and added again (the number keeps its entry meanwhile) */
	t_change(kq, sp[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	t_change(kq, sp[0], EVFILT_READ, EV_ADD, 0, 0, &ud3);
	T_GET1(kq, sp[0], EVFILT_READ, 0, 0, 3, &ud3);
	close(sp[0]);
	close(sp[1]);
	T_NO_EVENTS(kq);

	/* a socket closed where libkq could not see: EBADF, as a record
	 * (fflags and data as given) and as errno */
	t_socketpair(sp);
	t_raw_close(sp[0]);
	EV_SET(&ch, sp[0], EVFILT_READ, EV_ADD, NOTE_LOWAT, 2, &ud1);
	memset(ev, 0xa5, sizeof ev);
	n = kevent(kq, &ch, 1, ev, 8, &z);
	if (n != 1)
		T_FAIL("add on a closed socket: %d records, expected 1", n);
	T_KEVENT(&ev[0], sp[0], EVFILT_READ, EV_ERROR, NOTE_LOWAT, EBADF, &ud1);
	errno = 0;
	if (kevent(kq, &ch, 1, NULL, 0, NULL) != -1 || errno != EBADF)
		T_FAIL("add on a closed socket without records: errno %d", errno);
	close(sp[1]);
	T_NO_EVENTS(kq);
	return 0;
}
