/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Threads add and delete at least 100,000 knotes while
 * other threads wait on the same kqueue; no crash, no lost and no phantom
 * event.  Two churn threads each add and delete, in batches of 32 changes
 * per kevent() call, READ knotes on 32 pipes that never get data and USER
 * knotes that are never triggered (a record for either is a phantom), and
 * WRITE knotes on those pipes' write ends (always writable: records are
 * legitimate but must carry the udata of their own descriptor).  Three
 * waiter threads collect (nevents 4, 20 ms timeout).  A producer triggers a
 * USER|EV_CLEAR knote and writes one byte to a pipe watched READ|EV_CLEAR,
 * one at a time: each must be reported exactly once within 2 s (not lost,
 * not doubled), and the byte must be there when its record is (not a
 * phantom).
 */
#include "t_thread.h"


#define NCHURN 2
#define NPIPES 32
#define NWAIT 3
#define TARGET 100000L
#define ROUNDS 1000

#define TAG_EMPTY 0x10000
#define TAG_WRITE 0x20000
#define TAG_USER 0x30000
#define TAG_MASK 0xf0000
#define UD_TRIG ((void *)1)
#define UD_PIPE ((void *)2)

static int kq, prod[2];
static int churn_fds[NCHURN][NPIPES][2];
static atomic_int stop;
static atomic_long changes, trig_seen, pipe_seen, wrecords;
static void *churn(void *arg)
{
	int me = (int)(intptr_t)arg;
	struct kevent ch[NPIPES];
	long round = 0;

	while (!atomic_load(&stop)) {
		int kind = (int)(round++ % 3);
		for (int pass = 0; pass < 2; pass++) {
			unsigned short fl = pass == 0 ? EV_ADD : EV_DELETE;
			for (int i = 0; i < NPIPES; i++) {
				int fd = kind == 1 ? churn_fds[me][i][1]
						   : churn_fds[me][i][0];
				uintptr_t tag = kind == 0 ? TAG_EMPTY :
						kind == 1 ? TAG_WRITE : TAG_USER;
				uintptr_t id = kind == 2 ?
					(uintptr_t)(1000 + me * NPIPES + i) :
					(uintptr_t)fd;
				short filt = kind == 0 ? EVFILT_READ :
					     kind == 1 ? EVFILT_WRITE :
							 EVFILT_USER;
				EV_SET(&ch[i], id, filt, fl, 0, 0,
				       (void *)(tag | id));
			}
			if (kevent(kq, ch, NPIPES, NULL, 0, NULL) != 0) {
				t_thread_fail("churn kevent failed");
				return NULL;
			}
			atomic_fetch_add(&changes, NPIPES);
		}
	}
	return NULL;
}

static void *waiter(void *arg)
{
	struct kevent ev[4];
	(void)arg;
	while (!atomic_load(&stop)) {
		int n = t_wait(kq, ev, 4, 20);
		for (int i = 0; i < n; i++) {
			uintptr_t ud = (uintptr_t)ev[i].udata;
			if (ev[i].udata == UD_TRIG && ev[i].ident == 1 &&
			    ev[i].filter == EVFILT_USER) {
				atomic_fetch_add(&trig_seen, 1);
			} else if (ev[i].udata == UD_PIPE &&
				   ev[i].ident == (uintptr_t)prod[0] &&
				   ev[i].filter == EVFILT_READ) {
				char c;
				if (read(prod[0], &c, 1) != 1)
					t_thread_fail("producer pipe reported "
						      "without data (phantom)");
				atomic_fetch_add(&pipe_seen, 1);
			} else if ((ud & TAG_MASK) == TAG_WRITE &&
				   ev[i].filter == EVFILT_WRITE &&
				   (ud & ~(uintptr_t)TAG_MASK) == ev[i].ident) {
				atomic_fetch_add(&wrecords, 1);
			} else {
				t_print_kevent("  phantom", &ev[i]);
				t_thread_fail("record of a knote that never "
					      "had an event, or with another "
					      "knote's udata");
			}
		}
	}
	return NULL;
}

static void await(atomic_long *v, long want, const char *what, int r)
{
	int64_t end = t_now_ns() + 2000000000LL;
	while (atomic_load(v) < want) {
		if (t_thread_failed())
			return;
		if (t_now_ns() > end) {
			char m[160];
			snprintf(m, sizeof m, "round %d: %s lost (%ld of %ld "
				 "after 2 s)", r, what, atomic_load(v), want);
			t_thread_fail(m);
			return;
		}
		t_sleep_ms(1);
	}
}

int main(void)
{
	pthread_t tc[NCHURN], tw[NWAIT];

	t_fail_after(20, "thread-stress: still running after 20 s");
	kq = t_kqueue();
	t_pipe(prod);
	T_ASSERT(fcntl(prod[0], F_SETFL, O_NONBLOCK) == 0);
	for (int c = 0; c < NCHURN; c++)
		for (int i = 0; i < NPIPES; i++)
			t_pipe(churn_fds[c][i]);
	t_change(kq, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, UD_TRIG);
	t_change(kq, prod[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, UD_PIPE);

	for (int i = 0; i < NWAIT; i++)
		T_ASSERT(pthread_create(&tw[i], NULL, waiter, NULL) == 0);
	for (int c = 0; c < NCHURN; c++)
		T_ASSERT(pthread_create(&tc[c], NULL, churn,
					(void *)(intptr_t)c) == 0);

	/* Rounds for 2 s (at most ROUNDS), longer only if the churn has not
	 * reached TARGET changes yet (at most 4 s). */
	int64_t start = t_now_ns();
	int r;
	for (r = 1; !t_thread_failed(); r++) {
		int64_t el = t_now_ns() - start;
		if (el > 4000000000LL)
			break;
		if ((el > 2000000000LL || r > ROUNDS) &&
		    atomic_load(&changes) >= TARGET)
			break;
		t_change(kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, UD_TRIG);
		await(&trig_seen, r, "USER trigger", r);
		t_write(prod[1], "p", 1);
		await(&pipe_seen, r, "pipe byte", r);
	}
	r--;
	t_sleep_ms(50);
	atomic_store(&stop, 1);
	for (int c = 0; c < NCHURN; c++)
		T_ASSERT(pthread_join(tc[c], NULL) == 0);
	for (int i = 0; i < NWAIT; i++)
		T_ASSERT(pthread_join(tw[i], NULL) == 0);
	t_thread_check();
	fprintf(stderr, "%d rounds, %ld changes by the churn threads, %ld "
		"WRITE records\n", r, atomic_load(&changes),
		atomic_load(&wrecords));
	if (atomic_load(&trig_seen) != r || atomic_load(&pipe_seen) != r)
		T_FAIL("USER reported %ld times, pipe %ld times, for %d "
		       "activations each", atomic_load(&trig_seen),
		       atomic_load(&pipe_seen), r);
	if (atomic_load(&changes) < TARGET)
		T_FAIL("only %ld changes in 4 s", atomic_load(&changes));
	T_NO_EVENTS(kq);
	return 0;
}
