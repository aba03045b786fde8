/*
 * G07: WRITE on an unconnected (connectionless) UDP socket fires at once:
 * {s, WRITE, 0, 0, free space > 0, udata}.
 */
#include "t.h"

#include <netinet/in.h>

int main(void)
{
	int kq = t_kqueue(), s;
	struct kevent ev[8];
	void *ud = (void *)0x607;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	T_ASSERT(s >= 0);
	t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_get(kq, ev, 8), 1);
	if (ev[0].ident != (uintptr_t)s || ev[0].filter != EVFILT_WRITE ||
	    ev[0].flags != 0 || ev[0].fflags != 0 || ev[0].data <= 0 ||
	    ev[0].udata != ud) {
		t_print_kevent("  got ", &ev[0]);
		T_FAIL("want {s, WRITE, 0, 0, > 0, udata}");
	}
	return 0;
}
