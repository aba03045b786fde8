/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program linked with the shared libkq does not load the unwinder
 * (libgcc_s) when it starts: loading it cost each exec of a small program
 * more than loading libkq itself.  It is still there when it is needed: a
 * thread cancelled while blocked in kevent() (twice: the second unwind uses
 * what the first one found) ends with PTHREAD_CANCELED, and the kqueue's
 * cleanup ran, so the kqueue serves this thread and a new waiter after.
 */
#include "t_cancel.h"

#include <dlfcn.h>

static int kq;

static void *blocker(void *arg)
{
	(void)arg;
	struct kevent ev[4];
	kevent(kq, NULL, 0, ev, 4, NULL);
	return NULL;
}

static void cancel_one(void)
{
	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, blocker, NULL) == 0);
	t_sleep_ms(100);   /* let it block */
	T_ASSERT(pthread_cancel(th) == 0);
	void *rv = NULL;
	T_EQ(pthread_join(th, &rv), 0);
	if (rv != PTHREAD_CANCELED)
		T_FAIL("the thread blocked in kevent() was not cancelled");
}

static void *second_waiter(void *arg)
{
	t_cancel_kq_works(*(int *)arg);
	return NULL;
}

int main(void)
{
	T_CANCEL_SKIP_ASAN();
#ifdef __SANITIZE_THREAD__
	T_SKIP("the ThreadSanitizer runtime loads libgcc_s itself");
#endif
	alarm(20);   /* a cancellation that never ends the thread hangs */
	if (dlopen("libgcc_s.so.1", RTLD_LAZY | RTLD_NOLOAD))
		T_FAIL("libgcc_s is loaded at start: libkq.so asks for it");

	kq = t_kqueue();
	cancel_one();
	cancel_one();
	t_cancel_kq_works(kq);
	pthread_t th;
	T_ASSERT(pthread_create(&th, NULL, second_waiter, &kq) == 0);
	T_EQ(pthread_join(th, NULL), 0);
	return 0;
}
