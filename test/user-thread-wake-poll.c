/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Prompt wake-up through other waits: a trigger of a USER knote from another
 * thread wakes at once (< 100 ms) (a) a thread blocked in poll(kq, POLLIN)
 * (the kqueue descriptor becomes readable) and (b) a thread
 * blocked in kevent() on kq1 that watches kq2 with EVFILT_READ, when the
 * USER knote is in kq2 (record {kq2, READ, 0, 0, 1}).
 */
#include "t_thread.h"

#include <poll.h>

#define MAX_LATENCY_NS (100 * 1000000LL)

static int wait_fd, use_poll;
static atomic_int tid, done;
static int result, err;
static short revents;
static struct kevent rec;
static int64_t t_ret;

static void *waiter(void *arg)
{
	(void)arg;
	atomic_store(&tid, t_gettid());
	if (use_poll) {
		struct pollfd pfd = { .fd = wait_fd, .events = POLLIN };
		result = poll(&pfd, 1, 10000);
		revents = pfd.revents;
	} else {
		struct timespec ten = { 10, 0 };
		result = kevent(wait_fd, NULL, 0, &rec, 1, &ten);
	}
	err = errno;
	t_ret = t_now_ns();
	atomic_store(&done, 1);
	return NULL;
}

/* Runs the waiter on fd, triggers <1, USER> in trigger_kq once it sleeps. */
static void run(int fd, int poll_mode, int trigger_kq)
{
	pthread_t th;
	wait_fd = fd;
	use_poll = poll_mode;
	atomic_store(&tid, 0);
	atomic_store(&done, 0);
	if (!t_start_waiter(&th, waiter, NULL, &tid, &done, "waiter"))
		T_FAIL("waiter returned %d before the trigger", result);
	t_sleep_ms(20);
	if (atomic_load(&done))
		T_FAIL("waiter returned %d before the trigger", result);

	int64_t t0 = t_now_ns();
	t_change(trigger_kq, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 3;
	if (pthread_timedjoin_np(th, NULL, &dl) != 0)
		T_FAIL("waiter still blocked 3 s after the trigger");
	if (result < 0)
		T_FAIL("waiter failed: %s", strerror(err));
	if (t_ret - t0 > MAX_LATENCY_NS)
		T_FAIL("waiter woke %.1f ms after the trigger",
		       (double)(t_ret - t0) / 1e6);
}

int main(void)
{
	int kq1 = t_kqueue(), kq2 = t_kqueue();
	int ud;

	t_fail_after(20, "user-thread-wake-poll: still running after 20 s (hang?)");

	/* (a) poll() on the kqueue itself. */
	t_change(kq2, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	run(kq2, 1, kq2);
	T_EQ(result, 1);
	if (!(revents & POLLIN))
		T_FAIL("poll woke without POLLIN: 0x%x", revents);
	T_GET1(kq2, 1, EVFILT_USER, EV_CLEAR, 0, 0, NULL);

	/* (b) kevent() on a kqueue watching the kqueue of the USER knote. */
	t_change(kq1, kq2, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, &ud);
	T_NO_EVENTS(kq1);
	run(kq1, 0, kq2);
	T_EQ(result, 1);
	T_KEVENT(&rec, kq2, EVFILT_READ, EV_CLEAR, 0, 1, &ud);
	T_GET1(kq2, 1, EVFILT_USER, EV_CLEAR, 0, 0, NULL);
	T_NO_EVENTS(kq1);
	return 0;
}
