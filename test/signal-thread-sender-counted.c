/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sends from another thread while the main thread sleeps in kevent(), in
 * the cases where Linux merges none of them, must each be counted: three
 * sends give records adding up to data 3, and the program's handler runs
 * three times.  Each record is {sig, EVFILT_SIGNAL, EV_CLEAR, 0, n, udata}.
 *  A. SIGUSR1 blocked in the main thread, unblocked in the sender, three
 *     kill(getpid()): the kernel hands each to the only thread that takes
 *     it, the sender, which runs the handler before kill() returns, so
 *     none is pending when the next comes.
 *  B. SIGUSR1 unblocked in both, three raise() in the sender: directed at
 *     the sender itself, taken the same way.
 *  C. SIGRTMIN+1 unblocked in both, three kill(getpid()): the kernel
 *     queues a real-time signal once per send, whichever thread takes it.
 * (The case where Linux merges: signal-thread-sender-merges.)
 */
#include "t.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/syscall.h>

enum { KILL_PROCESS, RAISE };

struct job {
	int sig, how;
};

static atomic_int hits, sender_hits;
static pid_t _Atomic sender_tid;

static void on_sig(int sig)
{
	(void)sig;
	if ((pid_t)syscall(SYS_gettid) == atomic_load(&sender_tid))
		atomic_fetch_add(&sender_hits, 1);
	atomic_fetch_add(&hits, 1);
}

static void *sender(void *arg)
{
	struct job *j = arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, j->sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	atomic_store(&sender_tid, (pid_t)syscall(SYS_gettid));
	t_sleep_ms(50);   /* the main thread is asleep in kevent() by now */
	for (int i = 0; i < 3; i++) {
		int r = j->how == RAISE ? raise(j->sig) : kill(getpid(), j->sig);
		if (r != 0)
			T_FAIL("send %d: %s", i, strerror(errno));
	}
	return NULL;
}

/* Records until their data adds up to want (or 2 s pass); the sum. */
static int64_t collect(int kq, int sig, int64_t want, void *ud)
{
	int64_t sum = 0, deadline = t_now_ns() + 2000000000LL;
	while (sum < want && t_now_ns() < deadline) {
		struct kevent ev[4];
		struct timespec ts = { 0, 100000000 };
		int n = kevent(kq, NULL, 0, ev, 4, &ts);
		if (n < 0 && errno == EINTR)
			continue;   /* FreeBSD's kevent() may say so too */
		if (n < 0)
			T_FAIL("kevent: %s", strerror(errno));
		for (int i = 0; i < n; i++) {
			T_KEVENT_MIN(&ev[i], sig, EVFILT_SIGNAL, EV_CLEAR, 0, 1, ud);
			sum += ev[i].data;
		}
	}
	return sum;
}

static void run(const char *name, int sig, int how, bool main_blocks)
{
	int kq = t_kqueue();
	int ud;
	t_change(kq, sig, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	T_EQ(pthread_sigmask(main_blocks ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL), 0);
	atomic_store(&hits, 0);
	atomic_store(&sender_hits, 0);
	atomic_store(&sender_tid, 0);

	struct job j = { .sig = sig, .how = how };
	pthread_t th;
	T_EQ(pthread_create(&th, NULL, sender, &j), 0);
	int64_t sum = collect(kq, sig, 3, &ud);
	T_EQ(pthread_join(th, NULL), 0);
	if (sum != 3)
		T_FAIL("%s: records add up to %" PRId64 ", expected 3", name, sum);
	if (atomic_load(&hits) != 3)
		T_FAIL("%s: handler ran %d times, expected 3", name, atomic_load(&hits));
	if (sig < SIGRTMIN && atomic_load(&sender_hits) != 3)
		T_FAIL("%s: the sender ran the handler %d times, expected 3",
		       name, atomic_load(&sender_hits));
	t_sleep_ms(20);
	T_NO_EVENTS(kq);
	T_EQ(pthread_sigmask(SIG_UNBLOCK, &s, NULL), 0);
	T_EQ(close(kq), 0);
}

int main(void)
{
#ifdef __SANITIZE_THREAD__
	/* ThreadSanitizer interposes sigaction() itself and runs handlers
	 * late, at its own safe points, so sends it holds back merge the way
	 * the kernel's never would here. */
	T_SKIP("handler timing and dispositions are ThreadSanitizer's own here");
#endif
	t_fail_after(20, "signal-thread-sender-counted hung");
	t_on_signal(SIGUSR1, on_sig, SA_RESTART);
	t_on_signal(SIGRTMIN + 1, on_sig, SA_RESTART);
	for (int round = 0; round < 10; round++) {
		run("A: kill(), main thread blocks", SIGUSR1, KILL_PROCESS, true);
		run("B: raise() in the sender", SIGUSR1, RAISE, false);
		run("C: real-time kill()", SIGRTMIN + 1, KILL_PROCESS, false);
	}
	alarm(0);
	return 0;
}
