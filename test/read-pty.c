/*
 * F25: READ on a pty master fires when the slave side writes; data = bytes
 * readable on the master (>= 1; the exact count is up to the line
 * discipline's output processing).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "t.h"

int main(void)
{
	int kq = t_kqueue(), m, s;
	struct kevent ev[8];
	void *ud = (void *)0x25;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0)
		T_SKIP("posix_openpt: %s", strerror(errno));
	if (grantpt(m) != 0 || unlockpt(m) != 0)
		T_SKIP("grantpt/unlockpt: %s", strerror(errno));
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		T_SKIP("open pty slave: %s", strerror(errno));

	t_change(kq, m, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(s, "abc", 3);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	if (ev[0].ident != (uintptr_t)m || ev[0].filter != EVFILT_READ ||
	    ev[0].flags != 0 || ev[0].fflags != 0 || ev[0].data < 1 ||
	    ev[0].udata != ud) {
		t_print_kevent("  got ", &ev[0]);
		T_FAIL("want {master, READ, 0, 0, >= 1, udata}");
	}
	return 0;
}
