/*
 * G10: WRITE on a FIFO opened O_RDWR fires: {fd, WRITE, 0, 0,
 * free space >= PIPE_BUF, udata}.
 */
#include "t.h"

#include <limits.h>
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
	void *ud = (void *)0x610;

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
	t_change(kq, fd, EVFILT_WRITE, EV_ADD, 0, 0, ud);
	T_EQ(t_wait(kq, ev, 8, 2000), 1);
	if (ev[0].ident != (uintptr_t)fd || ev[0].filter != EVFILT_WRITE ||
	    ev[0].flags != 0 || ev[0].fflags != 0 || ev[0].data < PIPE_BUF ||
	    ev[0].udata != ud) {
		t_print_kevent("  got ", &ev[0]);
		T_FAIL("want {fd, WRITE, 0, 0, >= PIPE_BUF, udata}");
	}
	return 0;
}
