/*
 * G06: WRITE on a listening socket never fires (FreeBSD filt_sowrite
 * returns 0 for listeners), neither right after registration nor with a
 * connection pending.  Checked for a TCP listener on 127.0.0.1 and an
 * AF_UNIX stream listener.
 */
#include "t.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/un.h>

static char dir[64];
static char path[128];

static void cleanup(void)
{
	if (path[0])
		unlink(path);
	if (dir[0])
		rmdir(dir);
}

int main(void)
{
	int kq = t_kqueue(), tl, ul, tc, uc;
	struct sockaddr_in sin;
	struct sockaddr_un sun;
	socklen_t len = sizeof sin;
	void *ud = (void *)0x606;

	tl = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(tl >= 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	T_ASSERT(bind(tl, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_ASSERT(listen(tl, 16) == 0);
	T_ASSERT(getsockname(tl, (struct sockaddr *)&sin, &len) == 0);

	strcpy(dir, "/tmp/kqtest-wl.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		dir[0] = 0;
		T_FAIL("mkdtemp: %s", strerror(errno));
	}
	atexit(cleanup);
	snprintf(path, sizeof path, "%s/s", dir);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, path);
	ul = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(ul >= 0);
	T_ASSERT(bind(ul, (struct sockaddr *)&sun, sizeof sun) == 0);
	T_ASSERT(listen(ul, 16) == 0);

	t_change(kq, tl, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	t_change(kq, ul, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	tc = socket(AF_INET, SOCK_STREAM, 0);
	uc = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(tc >= 0 && uc >= 0);
	T_ASSERT(connect(tc, (struct sockaddr *)&sin, sizeof sin) == 0);
	T_ASSERT(connect(uc, (struct sockaddr *)&sun, sizeof sun) == 0);
	/* Make sure both connections are pending (poll, independent of the
	 * library) before checking that WRITE stays silent. */
	struct pollfd pfd[2] = { { tl, POLLIN, 0 }, { ul, POLLIN, 0 } };
	T_EQ(poll(&pfd[0], 1, 2000), 1);
	T_EQ(poll(&pfd[1], 1, 2000), 1);
	T_NO_EVENTS(kq);
	return 0;
}
