/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A level knote shared by threads, the known thundering-herd pitfall of a
 * listener: 8 threads wait in kevent() (nevents 1) on one
 * kqueue holding a level READ knote on a non-blocking TCP listener.  For
 * each of 10 connections at least one thread gets the record and the
 * connection is accepted exactly once; duplicates (a second thread told of
 * the same connection, whose accept() then fails EAGAIN) are allowed and
 * counted.  No thread blocks: after the last connection every thread still
 * answers, i.e. a level USER stop knote ends all 8 within 3 s.
 */
#include "t_thread.h"

#define NTHREADS 8
#define ROUNDS 10
#define STOP_ID 99

static int kq, lst;
static atomic_int records, accepted, dups;

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
		    ev.flags != 0 || ev.data < 1) {
			t_print_kevent("  unexpected", &ev);
			t_thread_fail("unexpected record");
			continue;
		}
		atomic_fetch_add(&records, 1);
		int c = accept(lst, NULL, NULL);
		if (c >= 0) {
			close(c);
			atomic_fetch_add(&accepted, 1);
		} else if (errno == EAGAIN) {
			atomic_fetch_add(&dups, 1);
		} else {
			t_thread_fail("accept failed");
		}
	}
}

int main(void)
{
	struct sockaddr_in sin;
	pthread_t th[NTHREADS];

	t_fail_after(20, "thread-level-listener: still running after 20 s");
	kq = t_kqueue();
	lst = t_inet_socket(SOCK_STREAM, 32, &sin);
	T_ASSERT(fcntl(lst, F_SETFL, O_NONBLOCK) == 0);
	t_change(kq, lst, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, STOP_ID, EVFILT_USER, EV_ADD, 0, 0, NULL);
	for (int i = 0; i < NTHREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, worker, NULL) == 0);
	t_sleep_ms(20);

	for (int r = 1; r <= ROUNDS; r++) {
		int before = atomic_load(&records);
		int c = socket(AF_INET, SOCK_STREAM, 0);
		T_ASSERT(c >= 0);
		if (connect(c, (struct sockaddr *)&sin, sizeof sin) != 0)
			T_FAIL("connect: %s", strerror(errno));
		int64_t end = t_now_ns() + 2000000000LL;
		while (atomic_load(&accepted) < r) {
			if (t_now_ns() > end)
				T_FAIL("connection %d: not accepted within 2 s "
				       "(%d records)", r,
				       atomic_load(&records) - before);
			t_sleep_ms(1);
		}
		t_sleep_ms(20);
		T_EQ(atomic_load(&accepted), r);
		T_ASSERT(atomic_load(&records) - before >= 1);
		t_thread_check();
		T_EQ(close(c), 0);
	}
	fprintf(stderr, "%d connections: %d records, %d duplicates\n", ROUNDS,
		atomic_load(&records), atomic_load(&dups));

	t_change(kq, STOP_ID, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	t_join_all(th, NTHREADS, 3, "did not answer the stop knote");
	t_thread_check();
	alarm(0);
	return 0;
}
