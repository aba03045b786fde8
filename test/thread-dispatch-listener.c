/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The recommended multi-threaded pattern: 8 threads wait in kevent()
 * (nevents 1) on one kqueue holding READ|EV_DISPATCH on a non-blocking TCP
 * listener.  For each of 20 connections exactly one thread gets the record
 * (data 1); it accept()s successfully (no thread sees EAGAIN: nobody else
 * was told) and re-enables the knote with EV_ENABLE.  No second record
 * appears within 50 ms of the first.  At the end a level USER knote stops
 * all 8 threads.
 */
#include "t_thread.h"

#define NTHREADS 8
#define ROUNDS 20
#define STOP_ID 99

static int kq, lst;
static atomic_int records, accepted, enabled;

static void *worker(void *arg)
{
	struct timespec to = { 1, 0 };
	struct kevent ev;
	(void)arg;
	for (;;) {
		int n = kevent(kq, NULL, 0, &ev, 1, &to);
		if (n < 0) {
			if (errno != EINTR)
				t_thread_fail("kevent failed");
			continue;
		}
		if (n == 0)
			continue;
		if (ev.filter == EVFILT_USER && ev.ident == STOP_ID)
			return NULL;
		if (ev.filter != EVFILT_READ || ev.ident != (uintptr_t)lst ||
		    ev.flags != EV_DISPATCH || ev.data != 1) {
			t_print_kevent("  unexpected", &ev);
			t_thread_fail("unexpected record");
			continue;
		}
		atomic_fetch_add(&records, 1);
		int c = accept(lst, NULL, NULL);
		if (c < 0) {
			t_thread_fail(errno == EAGAIN ? "accept: EAGAIN "
				      "(record without a connection)" :
				      "accept failed");
		} else {
			close(c);
			atomic_fetch_add(&accepted, 1);
		}
		struct kevent ch;
		EV_SET(&ch, lst, EVFILT_READ, EV_ENABLE, 0, 0, NULL);
		if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
			t_thread_fail("EV_ENABLE failed");
		atomic_fetch_add(&enabled, 1);
	}
}

static void wait_for(atomic_int *v, int want, const char *what, int round)
{
	int64_t end = t_now_ns() + 2000000000LL;
	while (atomic_load(v) < want) {
		if (t_now_ns() > end)
			T_FAIL("connection %d: %s (%d of %d)", round, what,
			       atomic_load(v), want);
		t_sleep_ms(1);
	}
}

int main(void)
{
	struct sockaddr_in sin;
	pthread_t th[NTHREADS];

	t_fail_after(20, "thread-dispatch-listener: still running after 20 s");
	kq = t_kqueue();
	lst = t_inet_socket(SOCK_STREAM, 32, &sin);
	T_ASSERT(fcntl(lst, F_SETFL, O_NONBLOCK) == 0);
	t_change(kq, lst, EVFILT_READ, EV_ADD | EV_DISPATCH, 0, 0, NULL);
	t_change(kq, STOP_ID, EVFILT_USER, EV_ADD, 0, 0, NULL);
	for (int i = 0; i < NTHREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, worker, NULL) == 0);
	t_sleep_ms(20);

	for (int r = 1; r <= ROUNDS; r++) {
		int c = socket(AF_INET, SOCK_STREAM, 0);
		T_ASSERT(c >= 0);
		if (connect(c, (struct sockaddr *)&sin, sizeof sin) != 0)
			T_FAIL("connect: %s", strerror(errno));
		wait_for(&records, r, "no thread got the record", r);
		wait_for(&enabled, r, "the knote was not re-enabled", r);
		t_sleep_ms(50);
		if (atomic_load(&records) != r)
			T_FAIL("connection %d reported to %d threads", r,
			       atomic_load(&records) - r + 1);
		t_thread_check();
		T_EQ(close(c), 0);
	}
	T_EQ(atomic_load(&accepted), ROUNDS);

	t_change(kq, STOP_ID, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	t_join_all(th, NTHREADS, 3, "did not see the level stop knote");
	t_thread_check();
	alarm(0);
	return 0;
}
