/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A collection with fewer slots than ready knotes, with USER knotes (as
 * kevent-nevents-limit does with pipes): with 5 triggered (level) USER knotes,
 * get(3) returns exactly 3 records, of 3 distinct knotes, and leaves the rest
 * of the event array untouched.  The returned level knotes go to the tail of
 * the queue, so the next get(3) returns the two not yet seen first: all 5 are
 * seen within two calls.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	struct kevent ev[8], pattern;
	int seen[6] = { 0 };

	for (uintptr_t i = 1; i <= 5; i++) {
		t_change(kq, i, EVFILT_USER, EV_ADD, 0, 0, (void *)(i * 16));
		t_change(kq, i, EVFILT_USER, 0, NOTE_TRIGGER, 0,
			 (void *)(i * 16));
	}
	memset(ev, 0x5a, sizeof ev);
	memset(&pattern, 0x5a, sizeof pattern);
	T_EQ(t_get(kq, ev, 3), 3);
	for (int i = 0; i < 3; i++) {
		uintptr_t id = ev[i].ident;
		if (id < 1 || id > 5 || seen[id])
			T_FAIL("record %d: bad or repeated ident %" PRIuPTR,
			       i, id);
		seen[id] = 1;
		T_KEVENT(&ev[i], id, EVFILT_USER, 0, 0, 0, (void *)(id * 16));
	}
	for (int i = 3; i < 8; i++)
		if (memcmp(&ev[i], &pattern, sizeof pattern) != 0)
			T_FAIL("ev[%d] was written", i);

	T_EQ(t_get(kq, ev, 3), 3);
	for (int i = 0; i < 3; i++) {
		uintptr_t id = ev[i].ident;
		T_ASSERT(id >= 1 && id <= 5);
		T_KEVENT(&ev[i], id, EVFILT_USER, 0, 0, 0, (void *)(id * 16));
		seen[id] = 1;
	}
	for (int i = 1; i <= 5; i++)
		if (!seen[i])
			T_FAIL("knote %d not reported within two get(3) calls",
			       i);
	return 0;
}
