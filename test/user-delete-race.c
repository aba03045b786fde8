/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Triggers of a USER knote from one thread race its EV_DELETE in
 * another while a third thread waits in kevent().  After the kevent() that
 * deleted the knote has returned, no record for it is produced: a call of
 * the waiter that starts after the delete returned never reports it (a call
 * already in progress may).  Triggers of a deleted knote fail
 * ENOENT and have no effect; nothing crashes.  Each round re-adds the knote
 * (ident 1) with udata = round number (level, EV_CLEAR, EV_DISPATCH or
 * EV_ONESHOT in turn); the trigger thread keeps the udata (EV_KEEPUDATA), so
 * every record names its round.
 */
#include "t_thread.h"

#define ROUNDS 200000          /* upper bound; the loop runs ~1 s */
#define RUN_NS 1000000000LL

static int kq;
static atomic_uintptr_t deleted;   /* last round whose EV_DELETE returned */
static atomic_uintptr_t last_seen; /* round of the waiter's latest record */
static atomic_int stop;
static atomic_long seen, triggers, attempts;

static void *waiter(void *arg)
{
	struct kevent ev[8];
	(void)arg;
	while (!atomic_load(&stop)) {
		uintptr_t d = atomic_load(&deleted);
		int n = t_wait(kq, ev, 8, 20);
		for (int i = 0; i < n; i++) {
			uintptr_t r = (uintptr_t)ev[i].udata;
			if (ev[i].ident != 1 || ev[i].filter != EVFILT_USER ||
			    r == 0 || r > ROUNDS) {
				t_print_kevent("  unexpected", &ev[i]);
				t_thread_fail("unexpected record");
				continue;
			}
			atomic_fetch_add(&seen, 1);
			atomic_store(&last_seen, r);
			t_thread_check_not_deleted((size_t)r, (size_t)d);
		}
	}
	return NULL;
}

static void *trigger(void *arg)
{
	struct kevent ch;
	unsigned seed = 4242;
	(void)arg;
	EV_SET(&ch, 1, EVFILT_USER, EV_KEEPUDATA, NOTE_TRIGGER, 0, NULL);
	while (!atomic_load(&stop)) {
		atomic_fetch_add(&attempts, 1);
		if (kevent(kq, &ch, 1, NULL, 0, NULL) == 0)
			atomic_fetch_add(&triggers, 1);
		else if (errno != ENOENT)
			t_thread_fail("trigger failed with an errno other "
				      "than ENOENT");
		for (volatile unsigned i = rand_r(&seed) % 200; i > 0; i--)
			;
	}
	return NULL;
}

int main(void)
{
	static const unsigned short kinds[] = { 0, EV_CLEAR, EV_DISPATCH,
						EV_ONESHOT };
	pthread_t tw, tt;
	unsigned seed = 777;

	t_fail_after(30, "user-delete-race: still running after 30 s (hang?)");

	kq = t_kqueue();
	T_ASSERT(pthread_create(&tw, NULL, waiter, NULL) == 0);
	T_ASSERT(pthread_create(&tt, NULL, trigger, NULL) == 0);

	/* Start only once the trigger thread is hammering. */
	while (atomic_load(&attempts) < 100)
		sched_yield();
	int64_t end = t_now_ns() + RUN_NS;
	uintptr_t r;
	for (r = 1; r <= ROUNDS && !t_thread_failed() &&
		    t_now_ns() < end; r++) {
		unsigned short kind = kinds[r % 4];
		t_change(kq, 1, EVFILT_USER, EV_ADD | kind, 0, 0, (void *)r);
		if (r % 3 == 0) {
			/* Trigger it here too (a one-shot knote may already
			 * be delivered and gone), and let the waiter get it
			 * (bounded wait) so records are surely seen. */
			struct kevent tr;
			EV_SET(&tr, 1, EVFILT_USER, EV_KEEPUDATA, NOTE_TRIGGER,
			       0, NULL);
			int64_t lim = t_now_ns() + 200000000LL;
			if (kevent(kq, &tr, 1, NULL, 0, NULL) != 0 &&
			    !(errno == ENOENT && kind == EV_ONESHOT))
				T_FAIL("round %zu: trigger failed: %s",
				       (size_t)r, strerror(errno));
			while (atomic_load(&last_seen) != r &&
			       t_now_ns() < lim)
				sched_yield();
		}
		/* Keep the knote alive 0-20 us so triggers land on it. */
		int64_t until = t_now_ns() + rand_r(&seed) % 20000;
		while (t_now_ns() < until)
			;
		/* nevents 0: this call must not collect events itself. */
		struct kevent del;
		EV_SET(&del, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL);
		int err = kevent(kq, &del, 1, NULL, 0, NULL) == 0 ? 0 : errno;
		/* Only a delivered one-shot knote can be gone already. */
		if (err != 0 && !(err == ENOENT && kind == EV_ONESHOT))
			T_FAIL("round %zu: EV_DELETE failed: %s", (size_t)r,
			       strerror(err));
		atomic_store(&deleted, r);
	}
	/* Give the waiter a few more calls after the last delete. */
	t_sleep_ms(60);
	atomic_store(&stop, 1);
	T_ASSERT(pthread_join(tt, NULL) == 0);
	T_ASSERT(pthread_join(tw, NULL) == 0);
	t_thread_check();
	fprintf(stderr, "%zu rounds, %ld of %ld triggers hit a knote, %ld "
		"records before the deletions\n", (size_t)(r - 1),
		atomic_load(&triggers), atomic_load(&attempts),
		atomic_load(&seen));
	if (atomic_load(&seen) == 0)
		T_FAIL("the waiter never received a record");
	if (atomic_load(&triggers) == 0)
		fprintf(stderr, "warning: no trigger of the other thread "
			"landed on a live knote (race not exercised)\n");
	T_NO_EVENTS(kq);
	T_EQ(t_change_err(kq, 1, EVFILT_USER, EV_DELETE, 0, 0, NULL), ENOENT);
	return 0;
}
