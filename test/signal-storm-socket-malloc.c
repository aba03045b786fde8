/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket(), socketpair(), accept() and dup() are async-signal-safe: called
 * from a handler that interrupted malloc() or free() on the same thread,
 * they must complete.  libkq notes facts about new descriptors in a table
 * by number; a number in a block of the table never used before must not
 * make the call allocate memory with malloc (whose lock the interrupted
 * thread holds, or whose heap it is in the middle of changing).
 *
 * Each new descriptor takes the lowest free number, so to make the handler's
 * descriptor open a fresh block (numbers 4096 * k and up), every number
 * below it is filled first with dup()s of /dev/null.  The soft
 * RLIMIT_NOFILE is raised to the hard limit; each 4096 numbers under it give
 * one attempt per process, so the attempts run in child processes, each
 * starting with an untouched table above number 4095.  In a child, for each
 * block: the numbers below it are filled, then the main thread calls
 * malloc() and free() of sizes that bypass malloc's per-thread cache (a
 * second thread exists, so malloc takes its arena lock) while a timer sends
 * SIGALRM every 20 us; the first handler run that finds the thread inside
 * malloc() or free() makes one descriptor, by socket(), socketpair(),
 * accept() of a connection queued beforehand, or dup(), in turn.  The
 * descriptor must be at the block's first number.  The parent fails the
 * test when a child makes no progress for 2 s (deadlock) or dies.
 */
#include "t_storm.h"

#include <sys/wait.h>

#define BLOCK 4096
#define SPIN_SIZES 6

enum { ACT_SOCKET, ACT_SOCKETPAIR, ACT_ACCEPT, ACT_DUP, NACT };
static const char *const act_name[NACT] = { "socket()", "socketpair()",
					    "accept()", "dup()" };

static volatile sig_atomic_t in_malloc, want = -1, got = -2, got_errno;
static int listener, devnull;

static void on_alarm(int sig)
{
	int e = errno;
	(void)sig;
	if (want < 0 || !in_malloc)
		return;
	int act = want, fd = -1, sv[2];
	want = -1;
	switch (act) {
	case ACT_SOCKET:
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		break;
	case ACT_SOCKETPAIR:
		fd = socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? sv[0] : -1;
		break;
	case ACT_ACCEPT:
		fd = accept(listener, NULL, NULL);
		break;
	case ACT_DUP:
		fd = dup(devnull);
		break;
	}
	got_errno = fd < 0 ? errno : 0;
	got = fd;
	errno = e;
}

static void *idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Child progress for the parent's watchdog: one byte per step. */
static int progress_fd;

static void step(void)
{
	if (write(progress_fd, "s", 1) != 1)
		_exit(5);
}

static void spin_until_made(void)
{
	static const size_t sizes[SPIN_SIZES] = { 1100, 2500, 7000, 20000,
						  45000, 100000 };
	void *keep[SPIN_SIZES] = { 0 };
	unsigned i = 0;
	while (got == -2) {
		size_t sz = sizes[i % SPIN_SIZES];
		in_malloc = 1;
		free(keep[i % SPIN_SIZES]);
		void *p = malloc(sz);
		in_malloc = 0;
		if (p == NULL)
			_exit(6);
		((volatile char *)p)[sz - 1] = 1;
		keep[i % SPIN_SIZES] = p;
		i++;
	}
	for (i = 0; i < SPIN_SIZES; i++)
		free(keep[i]);
}

static void child(int first_act, int blocks, struct sockaddr_un *sun, socklen_t slen)
{
	sigset_t all, old;
	pthread_t th;

	/* Another thread: from now on malloc() takes its arena lock. */
	sigfillset(&all);
	if (pthread_sigmask(SIG_BLOCK, &all, &old) != 0 ||
	    pthread_create(&th, NULL, idle, NULL) != 0 ||
	    pthread_sigmask(SIG_SETMASK, &old, NULL) != 0)
		_exit(7);
	t_on_signal(SIGALRM, on_alarm, SA_RESTART);
	devnull = open("/dev/null", O_RDONLY);
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (devnull < 0 || listener < 0 ||
	    bind(listener, (struct sockaddr *)sun, slen) != 0 ||
	    listen(listener, 16) != 0)
		_exit(8);
	/* connections for the accept()s, made now: below the blocks */
	for (int b = 0; b < blocks; b++) {
		int c = socket(AF_UNIX, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)sun, slen) != 0)
			_exit(9);
	}
	for (int b = 1; b <= blocks; b++) {
		int target = b * BLOCK;
		int act = (first_act + b) % NACT;
		for (;;) {
			int d = dup(devnull);
			if (d < 0 || d >= target) {
				fprintf(stderr, "FAIL: filling: dup() gave %d "
					"(errno %d) below %d\n", d, errno, target);
				_exit(1);
			}
			if (d == target - 1)
				break;
		}
		step();
		got = -2;
		want = act;
		struct t_storm storm;
		t_storm_start(&storm, SIGALRM, 20000);
		spin_until_made();
		t_storm_stop(&storm);
		if (got != target) {
			fprintf(stderr, "FAIL: %s in the handler gave %d (errno "
				"%d), expected %d\n", act_name[act], (int)got,
				(int)got_errno, target);
			_exit(1);
		}
		step();
	}
	_exit(0);
}

int main(void)
{
	rlim_t nofile = t_nofile_raise();
	long lim = nofile == RLIM_INFINITY ? 5 * BLOCK + 2 : (long)nofile;
	/* the last block's descriptors: up to two (socketpair) */
	int blocks = (int)((lim - 2) / BLOCK);
	if (blocks > 4)
		blocks = 4;
	if (blocks < 1)
		T_SKIP("RLIMIT_NOFILE %ld: no descriptor number %d or above",
		       lim, BLOCK);

	int64_t start = t_now_ns();
	int children = 0;
	while (children < 4 || (children < 60 && t_now_ns() - start < 2500000000LL)) {
		int pp[2];
		t_pipe(pp);
		struct sockaddr_un sun;
		memset(&sun, 0, sizeof sun);
		sun.sun_family = AF_UNIX;
		int k = snprintf(sun.sun_path + 1, sizeof sun.sun_path - 1,
				 "kqtest-malloc-%d-%d", (int)getpid(), children);
		socklen_t slen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)k);
		fflush(stderr);
		pid_t pid = fork();
		if (pid < 0)
			T_FAIL("fork: %s", strerror(errno));
		if (pid == 0) {
			close(pp[0]);
			progress_fd = pp[1];
			child(children % NACT, blocks, &sun, slen);
		}
		close(pp[1]);
		T_ASSERT(fcntl(pp[0], F_SETFL, O_NONBLOCK) == 0);
		int64_t last = t_now_ns();
		int steps = 0, status;
		for (;;) {
			char buf[16];
			ssize_t r;
			while ((r = read(pp[0], buf, sizeof buf)) > 0) {
				steps += (int)r;
				last = t_now_ns();
			}
			pid_t w = waitpid(pid, &status, WNOHANG);
			if (w == pid)
				break;
			if (w < 0)
				T_FAIL("waitpid: %s", strerror(errno));
			if (t_now_ns() - last > 2000000000LL) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				int b = steps / 2 + 1;
				T_FAIL("child %d stalled for 2 s with the handler's "
				       "%s at number %d (block %d) due while the "
				       "thread was in malloc()/free(): deadlock",
				       children, act_name[(children % NACT + b) % NACT],
				       b * BLOCK, b);
			}
			t_sleep_ms(2);
		}
		close(pp[0]);
		if (WIFSIGNALED(status))
			T_FAIL("child %d killed by signal %d after %d steps (heap "
			       "corrupted by an allocation in the handler?)",
			       children, WTERMSIG(status), steps);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			T_FAIL("child %d exited with %d after %d steps", children,
			       WEXITSTATUS(status), steps);
		children++;
	}
	fprintf(stderr, "%d children, %d blocks each\n", children, blocks);
	return 0;
}
