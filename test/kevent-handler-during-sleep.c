/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal handler's kevent() on the kqueue its own thread sleeps in (a
 * kevent() with no timeout, asleep in the kernel when the signal comes) is
 * a whole kevent(), as on FreeBSD, where the sleeping call holds nothing:
 * an EV_DELETE of a knote that does not exist gets its ENOENT record, an
 * EV_ADD of a readable pipe is reported at once to the handler's own
 * collection (exact fields), and a trigger wakes the sleeping loop.
 * 200 rounds; a helper thread sends the signal once the main thread is
 * seen asleep in an epoll wait (/proc's syscall file).
 */
#include "t_storm.h"

#include <pthread.h>
#include <sys/syscall.h>

#define ROUNDS 200

static int kq, c[2];
static pid_t main_tid;
static pthread_t main_thread;
static atomic_int round_no, handled;
static volatile sig_atomic_t wrong, wrong_n, wrong_what;

static void on_usr1(int sig)
{
	(void)sig;
	int e = errno;
	struct kevent ch[3], ev[4];
	struct timespec zero = { 0, 0 };
	EV_SET(&ch[0], 99, EVFILT_USER, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[1], c[0], EVFILT_READ, EV_ADD, 0, 0, (void *)0xc);
	int n = kevent(kq, ch, 2, ev, 4, &zero);
	if (n != 1 || ev[0].ident != 99 || ev[0].filter != EVFILT_USER ||
	    ev[0].flags != EV_ERROR || ev[0].data != ENOENT) {
		wrong = 1;
		wrong_what = 1;
		wrong_n = n;
	}
	n = kevent(kq, NULL, 0, ev, 4, &zero);
	if (n != 1 || ev[0].ident != (uintptr_t)c[0] || ev[0].filter != EVFILT_READ ||
	    ev[0].flags != 0 || ev[0].fflags != 0 || ev[0].data != 1 ||
	    ev[0].udata != (void *)0xc) {
		wrong = 1;
		wrong_what = 2;
		wrong_n = n;
	}
	EV_SET(&ch[0], c[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[1], 7, EVFILT_USER, 0, NOTE_TRIGGER, 0, (void *)0x7);
	if (kevent(kq, ch, 2, NULL, 0, NULL) != 0) {
		wrong = 1;
		wrong_what = 3;
		wrong_n = -errno;
	}
	atomic_fetch_add(&handled, 1);
	errno = e;
}

/* Whether thread tid sits in an epoll wait now. */
static int asleep_in_epoll(pid_t tid)
{
	char path[64], buf[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long nr = -1;
	if (fgets(buf, sizeof buf, f))
		nr = strtol(buf, NULL, 10);
	fclose(f);
	return nr == SYS_epoll_wait || nr == SYS_epoll_pwait
#ifdef SYS_epoll_pwait2
	       || nr == SYS_epoll_pwait2
#endif
		;
}

static void *signaller(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		while (atomic_load(&round_no) != r)
			usleep(100);
		int s;
		while ((s = asleep_in_epoll(main_tid)) == 0)
			usleep(100);
		if (s < 0)
			return (void *)1;
		pthread_kill(main_thread, SIGUSR1);
		while (atomic_load(&round_no) == r)
			usleep(100);
	}
	return NULL;
}

int main(void)
{
	t_watch_start("kevent-handler-during-sleep: a whole kevent() in a handler "
		      "while its thread sleeps", 3000, 60000);
	if (asleep_in_epoll((pid_t)syscall(SYS_gettid)) < 0)
		T_SKIP("/proc/self/task/TID/syscall cannot be read here");
	kq = t_kqueue();
	T_ASSERT(pipe(c) == 0);
	T_EQ(write(c[1], "c", 1), 1);
	t_change(kq, 7, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, (void *)0x7);
	/* the handler's EV_ADD then finds its storage made (no malloc() in
	 * a handler) */
	t_change(kq, c[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, c[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	T_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0);
	main_tid = (pid_t)syscall(SYS_gettid);
	main_thread = pthread_self();
	pthread_t s;
	T_ASSERT(pthread_create(&s, NULL, signaller, NULL) == 0);
	t_watch_stage("rounds");
	for (int r = 0; r < ROUNDS; r++) {
		struct kevent ev[4];
		int n;
		do {
			n = kevent(kq, NULL, 0, ev, r % 2 ? 4 : 1, NULL);
		} while (n < 0 && errno == EINTR);
		if (n != 1 || ev[0].ident != 7 || ev[0].filter != EVFILT_USER ||
		    ev[0].flags != EV_CLEAR || ev[0].udata != (void *)0x7)
			T_FAIL("round %d: kevent() gave %d records, first ident %lu "
			       "filter %d", r, n, (unsigned long)ev[0].ident, ev[0].filter);
		if (wrong)
			T_FAIL("round %d: the handler's call %d went wrong (it returned "
			       "%d)", r, (int)wrong_what, (int)wrong_n);
		atomic_store(&round_no, r + 1);
		t_watch_tick();
	}
	void *rv;
	pthread_join(s, &rv);
	t_watch_done();
	if (rv)
		T_FAIL("the signalling thread could not read /proc");
	T_EQ(atomic_load(&handled), ROUNDS);
	return 0;
}
