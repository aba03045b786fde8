/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The replaced functions that are not cancellation points in glibc do not
 * act on a pending cancellation request: dup, dup2, dup3, fcntl (other than
 * F_SETLKW), socket, socketpair, setsockopt, getsockopt, sigaction, signal,
 * close_range, closefrom and fclose all return normally in a thread with a
 * request pending (deferred type), which is then acted on by
 * pthread_testcancel().
 */
#include "t_cancelpt.h"

static const char *volatile step = "start";
static atomic_int finished;

static void noop(int sig)
{
	(void)sig;
}

static void *runner(void *arg)
{
	int old;
	(void)arg;
	T_ASSERT(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) == 0);
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old) == 0);
	T_ASSERT(pthread_cancel(pthread_self()) == 0);
	T_ASSERT(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old) == 0);

	int p[2], sp[2], v = 1;
	step = "pipe";
	T_EQ(pipe(p), 0);
	step = "dup";
	int d = dup(p[0]);
	T_ASSERT(d >= 0);
	step = "dup2";
	T_EQ(dup2(p[0], d), d);
	step = "dup3";
	T_EQ(dup3(p[0], d, O_CLOEXEC), d);
	step = "fcntl(F_DUPFD_CLOEXEC)";
	int d2 = fcntl(p[0], F_DUPFD_CLOEXEC, 0);
	T_ASSERT(d2 >= 0);
	step = "fcntl(F_GETFL)";
	T_ASSERT(fcntl(p[0], F_GETFL) >= 0);
	step = "fcntl(F_SETFD)";
	T_EQ(fcntl(d2, F_SETFD, 0), 0);
	step = "socket";
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	T_ASSERT(s >= 0);
	step = "socketpair";
	T_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	step = "setsockopt";
	T_EQ(setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof v), 0);
	step = "getsockopt";
	socklen_t len = sizeof v;
	T_EQ(getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len), 0);
	step = "sigaction";
	t_on_signal(SIGUSR1, noop, 0);
	step = "signal";
	T_ASSERT(signal(SIGUSR2, noop) != SIG_ERR);
	step = "fclose";
	FILE *f = fdopen(d2, "r");
	T_ASSERT(f != NULL);
	T_EQ(fclose(f), 0);
	step = "close_range";
	T_EQ(close_range((unsigned)d, (unsigned)d, 0), 0);
	step = "closefrom";
	int hi = fcntl(s, F_DUPFD, 1000);
	T_ASSERT(hi >= 1000);
	closefrom(hi);
	T_ERRNO(fcntl(hi, F_GETFD), EBADF);
	step = "pthread_testcancel";
	atomic_store(&finished, 1);
	pthread_testcancel();
	step = "after pthread_testcancel";
	return (void *)1;
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	pthread_t th;
	void *rv = NULL;
	T_ASSERT(pthread_create(&th, NULL, runner, NULL) == 0);
	int err = t_join_within(th, 3000, &rv);
	if (err == ETIMEDOUT)
		T_FAIL("blocked in %s for 3 s", step);
	T_EQ(err, 0);
	if (!atomic_load(&finished))
		T_FAIL("%s acted on the pending cancellation request: not a "
		       "cancellation point in glibc", step);
	if (rv != PTHREAD_CANCELED)
		T_FAIL("the request was lost (pthread_testcancel returned)");
	return 0;
}
