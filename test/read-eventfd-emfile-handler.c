/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The same as read-eventfd-emfile with the soft RLIMIT_NOFILE lowered by
 * setrlimit() in a signal handler that interrupted the thread asleep in
 * kevent() on another kqueue: setrlimit() is async-signal-safe, and the
 * eventfd counters still come exact at the descriptor limit
 * (t_eventfd_emfile.h).
 */
#include "t_eventfd_emfile.h"

static struct rlimit want;
static volatile sig_atomic_t lowered = -1;

static void on_usr1(int sig)
{
	(void)sig;
	int e = errno;
	lowered = setrlimit(RLIMIT_NOFILE, &want) == 0;
	errno = e;
}

static void *poke(void *arg)
{
	usleep(50000);
	pthread_kill(*(pthread_t *)arg, SIGUSR1);
	return NULL;
}

static void lower(const struct rlimit *low)
{
	want = *low;
	struct sigaction sa = { .sa_handler = on_usr1 };
	T_ASSERT(sigaction(SIGUSR1, &sa, NULL) == 0);
	int kq = t_kqueue();
	pthread_t self = pthread_self(), t;
	T_ASSERT(pthread_create(&t, NULL, poke, &self) == 0);
	struct kevent ev;
	struct timespec ts = { 2, 0 };
	errno = 0;
	int n = kevent(kq, NULL, 0, &ev, 1, &ts);
	if (n != -1 || errno != EINTR)   /* as FreeBSD's, not restarted */
		T_FAIL("kevent() the handler interrupted: %d (%s)", n, strerror(errno));
	T_ASSERT(pthread_join(t, NULL) == 0);
	if (lowered != 1)
		T_FAIL("setrlimit() in the handler: %d", (int)lowered);
	T_ASSERT(close(kq) == 0);
}

int main(void)
{
	t_eventfd_emfile(lower);
	return 0;
}
