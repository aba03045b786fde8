/*
 * G08: WRITE on a TCP socket that is not connected does not fire (FreeBSD
 * filt_sowrite: PR_CONNREQUIRED and not SS_ISCONNECTED -> 0), neither fresh
 * nor bound; Linux epoll reports such a socket as OUT|HUP, which the library
 * must suppress.  Once the socket connects, the same knote fires with
 * data > 0 and no EV_EOF.
 */
#include "t.h"

#include <arpa/inet.h>
#include <netinet/in.h>

int main(void)
{
	int kq = t_kqueue(), l, s;
	struct sockaddr_in sin, me;
	socklen_t len = sizeof sin;
	struct kevent ev[8];
	void *ud = (void *)0x608;

	s = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(s >= 0);
	t_change(kq, s, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	memset(&me, 0, sizeof me);
	me.sin_family = AF_INET;
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	T_ASSERT(bind(s, (struct sockaddr *)&me, sizeof me) == 0);
	T_NO_EVENTS(kq);

	l = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(l >= 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	T_ASSERT(bind(l, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_ASSERT(listen(l, 4) == 0);
	T_ASSERT(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	T_NO_EVENTS(kq);

	T_ASSERT(connect(s, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	if (ev[0].ident != (uintptr_t)s || ev[0].filter != EVFILT_WRITE ||
	    ev[0].flags != 0 || ev[0].fflags != 0 || ev[0].data <= 0 ||
	    ev[0].udata != ud) {
		t_print_kevent("  got ", &ev[0]);
		T_FAIL("want {s, WRITE, 0, 0, > 0, udata}");
	}
	return 0;
}
