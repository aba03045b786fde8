/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * 8 threads wait in kevent() (nevents 1) on one
 * kqueue; one activation of an EV_CLEAR / EV_ONESHOT knote is delivered to
 * exactly one thread, for every filter: READ|EV_CLEAR (a pipe write),
 * READ|EV_ONESHOT (re-added each round),
 * WRITE|EV_CLEAR (a full pipe drained by one read), TIMER one-shot (10 ms),
 * SIGNAL (EV_CLEAR forced; kill of the process), VNODE NOTE_WRITE|EV_CLEAR
 * (one pwrite), PROC NOTE_EXIT (a child exits) and USER|EV_CLEAR.  5 rounds
 * each; before each activation all 8 threads are asleep; after the record
 * arrived, 30 ms more must bring no second one.
 */
#include "t_thread.h"

#include <sys/wait.h>

#define NTHREADS 8
#define ROUNDS 5
#define STOP_ID 99

enum { K_READ, K_READ1, K_WRITE, K_TIMER, K_SIGNAL, K_VNODE, K_PROC, K_USER,
       NKINDS };
static const char *names[NKINDS] = { "READ|EV_CLEAR", "READ|EV_ONESHOT",
	"WRITE|EV_CLEAR", "TIMER oneshot", "SIGNAL", "VNODE", "PROC",
	"USER|EV_CLEAR" };

static int kq;
static atomic_int tids[NTHREADS];
static atomic_int count[NKINDS];
static atomic_int bad;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *waiter(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct timespec to = { 1, 0 };
	struct kevent ev;
	atomic_store(&tids[me], t_gettid());
	for (;;) {
		int n = kevent(kq, NULL, 0, &ev, 1, &to);
		if (n < 0) {
			if (errno != EINTR)
				atomic_store(&bad, errno);
			continue;
		}
		if (n == 0)
			continue;
		if (ev.filter == EVFILT_USER && ev.ident == STOP_ID)
			return NULL;
		intptr_t k = (intptr_t)ev.udata;
		if (k < 0 || k >= NKINDS) {
			t_print_kevent("  unexpected", &ev);
			atomic_store(&bad, -1);
			continue;
		}
		atomic_fetch_add(&count[k], 1);
	}
}

#define UD(k) ((void *)(intptr_t)(k))

static void all_asleep(void)
{
	t_all_asleep(tids, NTHREADS, 5);
}

static void expect_one(int k, int want)
{
	t_taken_once(&count[k], want, &bad, names[k]);
}

int main(void)
{
	int rp[2], r1[2], wp[2], file;
	pthread_t th[NTHREADS];
	static char big[1 << 20];

	t_fail_after(30, "thread-single-filters: still running after 30 s");
	t_on_signal(SIGUSR1, on_usr1, SA_RESTART);
	kq = t_kqueue();
	t_pipe(rp);
	t_pipe(r1);
	t_pipe(wp);
	T_ASSERT(fcntl(wp[1], F_SETFL, O_NONBLOCK) == 0);
	file = t_tmp_file(NULL);

	t_change(kq, STOP_ID, EVFILT_USER, EV_ADD, 0, 0, NULL);
	t_change(kq, rp[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, UD(K_READ));
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, UD(K_SIGNAL));
	t_change(kq, file, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
		 UD(K_VNODE));
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, UD(K_USER));
	/* The WRITE knote's initial "writable" record is taken here. */
	t_change(kq, wp[1], EVFILT_WRITE, EV_ADD | EV_CLEAR, 0, 0,
		 UD(K_WRITE));
	struct kevent ev[8];
	T_EQ(t_get(kq, ev, 8), 1);
	T_NO_EVENTS(kq);

	for (int i = 0; i < NTHREADS; i++)
		T_ASSERT(pthread_create(&th[i], NULL, waiter,
					(void *)(intptr_t)i) == 0);

	for (int r = 1; r <= ROUNDS; r++) {
		char c;

		all_asleep();
		t_write(rp[1], "x", 1);
		expect_one(K_READ, r);

		t_write(r1[1], "y", 1);
		all_asleep();
		t_change(kq, r1[0], EVFILT_READ, EV_ADD | EV_ONESHOT, 0, 0,
			 UD(K_READ1));
		expect_one(K_READ1, r);
		T_EQ(read(r1[0], &c, 1), 1);

		/* Fill the pipe (no event: not writable), then free it all
		 * with one read: one activation. */
		while (write(wp[1], big, sizeof big) > 0)
			;
		T_EQ(errno, EAGAIN);
		all_asleep();
		T_ASSERT(read(wp[0], big, sizeof big) > 0);
		expect_one(K_WRITE, r);

		all_asleep();
		t_change(kq, 2, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 10,
			 UD(K_TIMER));
		expect_one(K_TIMER, r);

		all_asleep();
		T_EQ(kill(getpid(), SIGUSR1), 0);
		expect_one(K_SIGNAL, r);

		all_asleep();
		T_EQ(pwrite(file, "v", 1, 0), 1);
		expect_one(K_VNODE, r);

		pid_t pid = fork();
		T_ASSERT(pid >= 0);
		if (pid == 0) {
			t_sleep_ms(30);
			_exit(0);
		}
		t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0,
			 UD(K_PROC));
		all_asleep();
		expect_one(K_PROC, r);
		T_EQ(waitpid(pid, NULL, 0), pid);

		all_asleep();
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, UD(K_USER));
		expect_one(K_USER, r);
	}

	t_change(kq, STOP_ID, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	t_join_all(th, NTHREADS, 5, "did not see the level stop knote");
	alarm(0);
	return 0;
}
