/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The first READ knote on a new socket, added while another thread sleeps
 * in kevent() on the kqueue, neither wakes that thread nor waits for it.
 * The sleeper cannot hold a report of an entry that did not exist when it
 * went to sleep: only later reports of the new entry, which it processes
 * under the lock after the add.  (A server whose worker threads register
 * each new connection with the kqueue its listener thread waits on, as
 * APR's pollset does for Apache's event MPM, would otherwise pay a round
 * trip between the two threads per connection.)
 *
 * Each of 100 rounds: the sleeper waits alone in kevent() (the thread that
 * takes epoll's reports itself); an EV_CLEAR READ knote is added on a new
 * connection made by socketpair(); then a write to the connection wakes
 * the sleeper with that knote's record.  The sleeper's voluntary context
 * switches during the adds (the kernel's count) must stay near 0, and
 * every record must be right.
 */
#include "t_thread.h"

#define ROUNDS 100

static int kq;
static atomic_int tid, done, rounds;
static struct kevent got[ROUNDS];

static void *sleeper(void *arg)
{
	(void)arg;
	atomic_store(&tid, t_gettid());
	while (atomic_load(&rounds) < ROUNDS) {
		struct kevent ev;
		int n = kevent(kq, NULL, 0, &ev, 1, NULL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1) {
			t_thread_fail("the sleeper's kevent(): %d (%s)", n, n < 0 ? strerror(errno) : "");
			break;
		}
		got[atomic_load(&rounds)] = ev;
		atomic_fetch_add(&rounds, 1);
	}
	atomic_store(&done, 1);
	return NULL;
}

/* The thread's voluntary context switches, from its status file. */
static long switches(int id)
{
	char path[64], line[128];
	snprintf(path, sizeof path, "/proc/self/task/%d/status", id);
	FILE *f = fopen(path, "r");
	if (!f)
		T_FAIL("%s: %s", path, strerror(errno));
	long v = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
			break;
	fclose(f);
	if (v < 0)
		T_FAIL("no voluntary_ctxt_switches in %s", path);
	return v;
}

int main(void)
{
	t_nofile_raise();
	kq = t_kqueue();
	/* the kqueue's fd table grown past the numbers used below, as a
	 * server's is (the first knote at a new height takes the general
	 * path) */
	int warm[2], high = 2 * ROUNDS + 64;
	t_pipe(warm);
	T_ASSERT(dup2(warm[0], high) == high);
	t_change(kq, high, EVFILT_READ, EV_ADD, 0, 0, NULL);
	t_change(kq, high, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	close(high);
	close(warm[0]);
	close(warm[1]);

	pthread_t th;
	if (!t_start_waiter(&th, sleeper, NULL, &tid, &done, "the sleeper"))
		T_FAIL("the sleeper returned before any change: %s", t_thread_failure_state()->msg);
	int sp[ROUNDS][2];
	long woken = 0;
	for (int i = 0; i < ROUNDS; i++) {
		int64_t end = t_now_ns() + 5000000000LL;
		while (atomic_load(&rounds) < i)
			if (atomic_load(&done) || t_now_ns() > end)
				T_FAIL("round %d: no record for the write of round %d", i, i - 1);
		if (!t_await_asleep(&tid, &done, end, "the sleeper (round %d)", i))
			T_FAIL("the sleeper returned: %s", t_thread_failure_state()->msg);
		t_socketpair(sp[i]);
		long before = switches(atomic_load(&tid));
		t_change(kq, sp[i][0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &sp[i][0]);
		woken += switches(atomic_load(&tid)) - before;
		t_write(sp[i][1], "abc", 3);
	}
	T_ASSERT(pthread_join(th, NULL) == 0);
	if (t_thread_failed())
		T_FAIL("%s", t_thread_failure_state()->msg);
	if (woken > 10)
		T_FAIL("%d adds woke the sleeping thread %ld times", ROUNDS, woken);
	for (int i = 0; i < ROUNDS; i++) {
		T_KEVENT(&got[i], sp[i][0], EVFILT_READ, EV_CLEAR, 0, 3, &sp[i][0]);
		close(sp[i][0]);
		close(sp[i][1]);
	}
	T_NO_EVENTS(kq);
	return 0;
}
