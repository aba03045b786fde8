/*
 * F15: a FIFO opened O_RDWR; after writing "foo" READ on it reports data 3.
 */
#include "t.h"

#include <sys/stat.h>

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
	int kq = t_kqueue(), fd;
	struct kevent ev[8];
	void *ud = (void *)0x15;

	strcpy(dir, "/tmp/kqtest-fifo.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		dir[0] = 0;
		T_FAIL("mkdtemp: %s", strerror(errno));
	}
	atexit(cleanup);
	snprintf(path, sizeof path, "%s/f", dir);
	T_ASSERT(mkfifo(path, 0600) == 0);

	fd = open(path, O_RDWR | O_NONBLOCK);
	T_ASSERT(fd >= 0);
	t_change(kq, fd, EVFILT_READ, EV_ADD, 0, 0, ud);
	T_NO_EVENTS(kq);

	t_write(fd, "foo", 3);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	T_KEVENT(&ev[0], fd, EVFILT_READ, 0, 0, 3, ud);
	return 0;
}
