/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A change that must wait for a sleeping thread (an EV_ADD or EV_DELETE of
 * a descriptor knote while another thread sleeps in kevent() with no
 * timeout) wakes that sleeper and waits for it.  If meanwhile a third
 * thread queues a knote and takes it off again (NOTE_TRIGGER of a user
 * knote, then EV_DELETE), the kqueue's ready queue is empty again, and the
 * first thread's wake-up must still reach the sleeper: a library that
 * clears its wake-up state whenever the queue empties can take that
 * wake-up away, and then the sleeper sleeps on and the changing thread
 * waits for it for good (an event library's poll thread asleep, its
 * workers' re-arms hung).
 *
 * The interleaving is arranged: the sleeper and the trigger thread share a
 * processor, the sleeper at the idle scheduling class, and the trigger
 * thread spins while it waits for each change, so the sleeper, once woken,
 * runs only after the trigger thread's calls, when it sleeps in its turn.
 * Checked for 300 changes (about 3 s): no change waits for a second.
 */
#include "t_thread.h"

#include <sched.h>

#define ROUNDS 300

static int kq;
static int sv[2];
static atomic_int stop;
static atomic_long go, ack, done;

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void spin_ns(int64_t ns)
{
	int64_t end = t_now_ns() + ns;
	while (t_now_ns() < end)
		;
}

static void *sleeper(void *arg)
{
	(void)arg;
	pin(0);
	struct sched_param sp = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	struct kevent ev[8];
	while (!atomic_load(&stop))
		if (kevent(kq, NULL, 0, ev, 8, NULL) < 0 && errno != EINTR)
			break;
	return NULL;
}

static void user(unsigned short flags, unsigned fflags)
{
	struct kevent ch;
	EV_SET(&ch, 1, EVFILT_USER, flags, fflags, 0, NULL);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
		T_FAIL("EVFILT_USER change 0x%x: %s", flags, strerror(errno));
}

static void *trigger(void *arg)
{
	(void)arg;
	pin(0);
	long seen = 0;
	/* (a NOTE_TRIGGER in the creating change does not trigger) */
	user(EV_ADD | EV_CLEAR, 0);
	while (!atomic_load(&stop)) {
		/* spin (the sleeper cannot run), but not for ever: a woken
		 * sleeper must get the processor now and then */
		int64_t end = t_now_ns() + 20000000;
		while (atomic_load(&go) == seen && t_now_ns() < end && !atomic_load(&stop))
			;
		if (atomic_load(&go) == seen) {
			t_sleep_ms(1);
			continue;
		}
		seen = atomic_load(&go);
		spin_ns(200000);   /* the change has written and waits */
		user(0, NOTE_TRIGGER);
		user(EV_DELETE, 0);
		user(EV_ADD | EV_CLEAR, 0);
		atomic_store(&ack, seen);
		t_sleep_ms(1);     /* the sleeper's turn */
	}
	return NULL;
}

static void *changer(void *arg)
{
	(void)arg;
	pin(1);
	struct kevent ch;
	for (long i = 1; i <= ROUNDS && !atomic_load(&stop); i++) {
		atomic_store(&go, i);
		EV_SET(&ch, sv[0], EVFILT_READ, (i & 1) ? EV_ADD : EV_DELETE, 0, 0, NULL);
		if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
			T_FAIL("change %ld: %s", i, strerror(errno));
		atomic_store(&done, i);
		int64_t end = t_now_ns() + 50000000;
		while (atomic_load(&ack) != i && t_now_ns() < end)
			t_sleep_ms(1);
	}
	return NULL;
}

int main(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		T_SKIP("needs two processors");
	kq = t_kqueue();
	T_ASSERT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	pthread_t th[3];
	T_ASSERT(pthread_create(&th[0], NULL, sleeper, NULL) == 0);
	t_sleep_ms(20);
	T_ASSERT(pthread_create(&th[1], NULL, trigger, NULL) == 0);
	T_ASSERT(pthread_create(&th[2], NULL, changer, NULL) == 0);

	long last = -1;
	int64_t since = t_now_ns();
	while (atomic_load(&done) < ROUNDS) {
		t_sleep_ms(20);
		long n = atomic_load(&done);
		if (n != last) {
			last = n;
			since = t_now_ns();
		} else if (t_now_ns() - since > 1000000000LL) {
			T_FAIL("change %ld waited for the sleeper for over a second: "
			       "its wake-up was lost", n + 1);
		}
	}
	atomic_store(&stop, 1);
	T_ASSERT(pthread_join(th[2], NULL) == 0);
	T_ASSERT(pthread_join(th[1], NULL) == 0);
	/* the sleeper: a knote that fires wakes it */
	struct kevent ch;
	EV_SET(&ch, 2, EVFILT_USER, EV_ADD, 0, 0, NULL);
	T_ASSERT(kevent(kq, &ch, 1, NULL, 0, NULL) == 0);
	EV_SET(&ch, 2, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	T_ASSERT(kevent(kq, &ch, 1, NULL, 0, NULL) == 0);
	T_ASSERT(pthread_join(th[0], NULL) == 0);
	return 0;
}
