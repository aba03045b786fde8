/*
 * F10: a socket whose SO_RCVLOWAT the program set to 4: a READ knote (no
 * NOTE_LOWAT) does not fire with 3 bytes buffered and fires with 4
 * ({r, READ, 0, 0, 4, udata}); FreeBSD filt_soread honours sb_lowat.
 * Checked on an AF_UNIX socketpair (Linux poll ignores SO_RCVLOWAT there,
 * so the library must compare itself) and on TCP over 127.0.0.1.
 */
#include "t.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>

static void tcp_pair(int *r, int *w)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof sin;
	int l = socket(AF_INET, SOCK_STREAM, 0);

	T_ASSERT(l >= 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	T_ASSERT(bind(l, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_ASSERT(listen(l, 4) == 0);
	T_ASSERT(getsockname(l, (struct sockaddr *)&sin, &len) == 0);
	*w = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(*w >= 0);
	T_ASSERT(connect(*w, (struct sockaddr *)&sin, sizeof sin) == 0);
	*r = accept(l, NULL, NULL);
	T_ASSERT(*r >= 0);
	T_ASSERT(close(l) == 0);
}

/* Waits (bounded) until n bytes have arrived in fd's receive buffer. */
static void wait_inq(int fd, int n)
{
	int64_t deadline = t_now_ns() + 2000000000LL;
	int v = 0;

	for (;;) {
		T_ASSERT(ioctl(fd, FIONREAD, &v) == 0);
		if (v >= n)
			return;
		if (t_now_ns() > deadline)
			T_FAIL("only %d of %d bytes arrived", v, n);
		t_sleep_ms(1);
	}
}

static void check(int r, int w)
{
	int kq = t_kqueue(), lowat = 4;
	struct kevent ev[8];
	void *ud = (void *)0x10;

	T_ASSERT(setsockopt(r, SOL_SOCKET, SO_RCVLOWAT, &lowat,
			    sizeof lowat) == 0);
	t_change(kq, r, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(w, "abc", 3);
	wait_inq(r, 3);
	T_NO_EVENTS(kq);

	t_write(w, "d", 1);
	wait_inq(r, 4);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT(&ev[0], r, EVFILT_READ, 0, 0, 4, ud);
	T_ASSERT(close(kq) == 0);
}

int main(void)
{
	int sp[2], r, w;

	t_socketpair(sp);
	check(sp[0], sp[1]);
	tcp_pair(&r, &w);
	check(r, w);
	return 0;
}
