/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A close() that blocks is cancellable, as glibc's is: here the close of a
 * TCP socket with SO_LINGER set (5 s) and unsent data that the peer, which
 * never reads, has no room for, which waits in the kernel for the data to
 * go.  pthread_cancel() of the closing thread must end it well before the
 * 5 s, cancelled, without close() returning to it.
 */
#include "t_cancelpt.h"

static int sock;
static atomic_int returned;

static void *closer(void *arg)
{
	(void)arg;
	close(sock);
	atomic_store(&returned, 1);
	return (void *)1;
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
	struct sockaddr_in sin;
	int small = 4096;
	int l = t_inet_socket(SOCK_STREAM, 0, &sin);
	T_EQ(setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
	T_EQ(listen(l, 4), 0);
	sock = socket(AF_INET, SOCK_STREAM, 0);
	T_ASSERT(sock >= 0);
	T_EQ(setsockopt(sock, SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
	T_EQ(connect(sock, (struct sockaddr *)&sin, sizeof sin), 0);
	int peer = accept(l, NULL, NULL);   /* never read */
	T_ASSERT(peer >= 0);

	/* Fill the peer's receive window and our send buffer. */
	int fl = fcntl(sock, F_GETFL);
	T_EQ(fcntl(sock, F_SETFL, fl | O_NONBLOCK), 0);
	static char buf[65536];
	int64_t deadline = t_now_ns() + 2000000000LL;
	for (;;) {
		ssize_t w = write(sock, buf, sizeof buf);
		if (w < 0 && errno == EAGAIN) {
			/* a window update may still open a little room */
			t_sleep_ms(20);
			if (write(sock, buf, sizeof buf) < 0 && errno == EAGAIN)
				break;
			continue;
		}
		if (w < 0)
			T_FAIL("write: %s", strerror(errno));
		if (t_now_ns() > deadline)
			T_SKIP("the connection never filled up");
	}
	T_EQ(fcntl(sock, F_SETFL, fl), 0);
	struct linger lg = { .l_onoff = 1, .l_linger = 5 };
	T_EQ(setsockopt(sock, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);

	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, closer, NULL) == 0);
	t_sleep_ms(300);
	if (atomic_load(&returned))
		T_SKIP("close() did not wait for the unsent data (SO_LINGER)");
	int64_t t0 = t_now_ns();
	T_ASSERT(pthread_cancel(th) == 0);
	void *rv = NULL;
	int err = t_join_within(th, 2000, &rv);
	if (err == ETIMEDOUT)
		T_FAIL("close() blocked by SO_LINGER was not cancelled within 2 s");
	T_EQ(err, 0);
	if (atomic_load(&returned) || rv != PTHREAD_CANCELED)
		T_FAIL("close() blocked by SO_LINGER returned after %lld ms "
		       "instead of acting on the cancellation",
		       (long long)((t_now_ns() - t0) / 1000000));
	/* The kernel closes the descriptor even when the wait is cut short. */
	T_ERRNO(fcntl(sock, F_GETFD), EBADF);
	return 0;
}
