/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A knote activated while another thread is in the middle of a scan is
 * never lost: it is reported by the next call (FreeBSD's scan marker leaves
 * knotes queued during a pass for the following call).
 * Setup: 64 level READ knotes always ready keep every scan busy; a writer
 * thread writes 1 byte to a pipe watched READ|EV_CLEAR at random moments,
 * one byte per round.  The collector uses nevents (128) larger than
 * everything queued, so any call that starts after the write has completed
 * must contain the pipe's record, exactly once; every call also returns all
 * 64 level knotes.  The collector reads the byte (it must be there: no
 * phantom record) and acknowledges the round.
 */
#include "t.h"
#include <pthread.h>
#include <stdatomic.h>

#define NLEVEL 64
#define ROUNDS 1000

static int p[2];
static atomic_int written;   /* last round whose write() has returned */
static atomic_int acked;     /* last round the collector has seen */
static atomic_int stop;

static void *writer(void *arg)
{
	unsigned seed = 12345;
	(void)arg;
	for (int r = 1; r <= ROUNDS; r++) {
		while (atomic_load(&acked) < r - 1)
			if (atomic_load(&stop))
				return NULL;
		for (volatile unsigned i = rand_r(&seed) % 20000; i > 0; i--)
			;
		t_write(p[1], "x", 1);
		atomic_store(&written, r);
	}
	return NULL;
}

int main(void)
{
	int kq = t_kqueue();
	int lv[NLEVEL][2];
	static struct kevent ev[128];
	void *up = (void *)(uintptr_t)0x306;
	pthread_t th;

	for (int i = 0; i < NLEVEL; i++) {
		t_pipe(lv[i]);
		t_write(lv[i][1], "L", 1);
		t_change(kq, lv[i][0], EVFILT_READ, EV_ADD, 0, 0,
			 (void *)(uintptr_t)(i + 1));
	}
	t_pipe(p);
	T_ASSERT(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	t_change(kq, p[0], EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, up);

	T_ASSERT(pthread_create(&th, NULL, writer, NULL) == 0);
	int64_t deadline = t_now_ns() + 8000000000LL;
	int r = 1;
	long calls = 0;
	while (r <= ROUNDS) {
		if (t_now_ns() > deadline) {
			atomic_store(&stop, 1);
			T_FAIL("round %d not reported within 8 s (%ld calls)",
			       r, calls);
		}
		int w = atomic_load(&written);
		int n = t_get(kq, ev, 128);
		calls++;
		int np = 0, nl = 0;
		for (int k = 0; k < n; k++) {
			if (ev[k].ident == (uintptr_t)p[0] &&
			    ev[k].filter == EVFILT_READ) {
				T_KEVENT(&ev[k], p[0], EVFILT_READ, EV_CLEAR, 0,
					 1, up);
				np++;
			} else {
				int i = (int)(uintptr_t)ev[k].udata - 1;
				if (i < 0 || i >= NLEVEL)
					T_FAIL("unexpected udata %p",
					       ev[k].udata);
				T_KEVENT(&ev[k], lv[i][0], EVFILT_READ, 0, 0, 1,
					 ev[k].udata);
				nl++;
			}
		}
		if (nl != NLEVEL)
			T_FAIL("round %d: a call returned %d of the %d ready "
			       "level knotes", r, nl, NLEVEL);
		if (np > 1)
			T_FAIL("round %d: pipe reported %d times in one call",
			       r, np);
		if (np == 1) {
			char c;
			if (read(p[0], &c, 1) != 1)
				T_FAIL("round %d: record without data "
				       "(phantom): %s", r, strerror(errno));
			atomic_store(&acked, r);
			r++;
			/* per round: a loaded machine may take long overall */
			deadline = t_now_ns() + 8000000000LL;
		} else if (w >= r) {
			atomic_store(&stop, 1);
			T_FAIL("round %d: the write completed before this call "
			       "started, but the call did not report it", r);
		}
	}
	T_ASSERT(pthread_join(th, NULL) == 0);
	T_EQ(t_get(kq, ev, 128), NLEVEL);
	return 0;
}
