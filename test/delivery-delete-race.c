/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Thread B deletes a READ knote while thread A waits in kevent() on the
 * same kqueue.  After B's kevent(EV_DELETE) has returned, A never receives
 * that knote: a call of A that starts after the delete returned must not
 * report it (a call already in progress may).  Each round re-adds the
 * knote with a new udata (the round number), makes it ready (write while A
 * sleeps, or data already present at the add), deletes it after a random
 * short delay and publishes the round as deleted; A checks every record's
 * udata against the last round published before its call began.
 */
#include "t_thread.h"

#define ROUNDS 2000

static int kq, p[2];
static atomic_uintptr_t deleted;  /* last round whose EV_DELETE returned */
static atomic_int stop;
static atomic_long seen;          /* records A received for the knote */

static void *waiter(void *arg)
{
	struct kevent ev[8];
	(void)arg;
	while (!atomic_load(&stop)) {
		uintptr_t d = atomic_load(&deleted);
		int n = t_wait(kq, ev, 8, 20);
		for (int i = 0; i < n; i++) {
			uintptr_t r = (uintptr_t)ev[i].udata;
			if (ev[i].ident != (uintptr_t)p[0] ||
			    ev[i].filter != EVFILT_READ || r == 0 ||
			    r > ROUNDS) {
				t_print_kevent("  unexpected", &ev[i]);
				t_thread_fail("unexpected record");
				continue;
			}
			atomic_fetch_add(&seen, 1);
			t_thread_check_not_deleted((size_t)r, (size_t)d);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t th;
	unsigned seed = 777;
	char c;

	kq = t_kqueue();
	t_pipe(p);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	T_ASSERT(pthread_create(&th, NULL, waiter, NULL) == 0);

	for (uintptr_t r = 1; r <= ROUNDS && !t_thread_failed(); r++) {
		if (r % 2) {
			/* A is (most likely) asleep; the write wakes it. */
			t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)r);
			for (volatile unsigned i = rand_r(&seed) % 20000; i > 0;
			     i--)
				;
			t_write(p[1], "x", 1);
		} else {
			/* Data already there: ready at the add. */
			t_write(p[1], "x", 1);
			t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, (void *)r);
		}
		for (volatile unsigned i = rand_r(&seed) % 5000; i > 0; i--)
			;
		t_change(kq, p[0], EVFILT_READ, EV_DELETE, 0, 0, NULL);
		atomic_store(&deleted, r);
		if (read(p[0], &c, 1) != 1)
			T_FAIL("round %zu: drain: %s", (size_t)r,
			       strerror(errno));
	}
	/* Give A a few more calls after the last delete. */
	t_sleep_ms(60);
	atomic_store(&stop, 1);
	T_ASSERT(pthread_join(th, NULL) == 0);
	t_thread_check();
	fprintf(stderr, "A received %ld records for the knote before its "
		"deletion\n", atomic_load(&seen));
	T_NO_EVENTS(kq);
	return 0;
}
