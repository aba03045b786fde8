/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Each thread remembers the two kqueues it last entered, to skip the
 * look-up of their numbers.  Whatever happened to them since, kevent() must act
 * on the kqueue the number names now: EBADF once it is closed or the number
 * is something else, and the records of the new kqueue once another one
 * has the number, whether libkq made it afresh or reused the closed one's
 * memory.  Threads polling several kqueues in turn always get each one's
 * own records.
 */
#include "t.h"

#include <pthread.h>

struct watched {
	int kq;
	int p[2];
	void *udata;
};

/* A kqueue with one readable pipe watched under udata. */
static void watch(struct watched *w, void *udata)
{
	w->kq = t_kqueue();
	t_pipe(w->p);
	w->udata = udata;
	t_change(w->kq, w->p[0], EVFILT_READ, EV_ADD, 0, 0, udata);
	t_write(w->p[1], "abc", 3);
}

static void check(const struct watched *w)
{
	T_GET1(w->kq, w->p[0], EVFILT_READ, 0, 0, 3, w->udata);
}

static void unwatch(struct watched *w)
{
	T_EQ(close(w->p[0]), 0);
	T_EQ(close(w->p[1]), 0);
}

static void expect_ebadf(int fd)
{
	struct kevent ev[2];
	struct timespec z = { 0, 0 };
	errno = 0;
	T_EQ(kevent(fd, NULL, 0, ev, 2, &z), -1);
	T_EQ(errno, EBADF);
}

static struct watched shared[2];

static void *poll_both(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++)
		check(&shared[i & 1]);
	return NULL;
}

int main(void)
{
	struct watched a, b, c;

	/* closed: EBADF, also once a pipe has the number */
	watch(&a, (void *)0xa1);
	check(&a);
	int x = a.kq;
	T_EQ(close(x), 0);
	expect_ebadf(x);
	int p[2];
	t_pipe(p);
	if (p[0] != x)
		T_FAIL("the pipe is at %d, not the lowest free number %d", p[0], x);
	expect_ebadf(x);
	T_EQ(close(p[0]), 0);
	T_EQ(close(p[1]), 0);
	unwatch(&a);

	/* a new kqueue at the number, after two were closed in turn */
	watch(&a, (void *)0xa2);
	watch(&b, (void *)0xb2);
	check(&a);
	x = a.kq;
	T_EQ(close(a.kq), 0);
	T_EQ(close(b.kq), 0);
	watch(&c, (void *)0xc2);
	T_EQ(c.kq, x);
	check(&c);
	unwatch(&a);
	unwatch(&b);

	/* the remembered kqueue alive at another number, a new one at x */
	watch(&a, (void *)0xa3);
	check(&c);   /* c at x is the last one entered */
	T_EQ(close(c.kq), 0);
	t_pipe(p);   /* takes x, so the next kqueue goes elsewhere */
	T_EQ(p[0], x);
	watch(&b, (void *)0xb3);
	T_ASSERT(b.kq != x);
	check(&b);
	check(&a);
	T_EQ(close(p[0]), 0);
	T_EQ(close(p[1]), 0);
	struct watched d;
	watch(&d, (void *)0xd3);
	T_EQ(d.kq, x);
	check(&b);
	check(&d);
	check(&a);
	check(&d);
	unwatch(&c);

	/* three kqueues in turn: more than the thread remembers */
	struct watched e;
	watch(&e, (void *)0xe4);
	for (int i = 0; i < 9; i++)
		check(i % 3 == 0 ? &a : i % 3 == 1 ? &d : &e);
	/* the older guess stale: d closed, its number taken by a new kqueue */
	check(&d);
	check(&a);
	int dn = d.kq;
	T_EQ(close(d.kq), 0);
	expect_ebadf(dn);
	watch(&d, (void *)0xd4);
	T_EQ(d.kq, dn);
	check(&a);
	check(&d);
	check(&e);

	/* threads taking turns on two kqueues each */
	shared[0] = a;
	shared[1] = d;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		T_EQ(pthread_create(&t[i], NULL, poll_both, NULL), 0);
	poll_both(NULL);
	for (int i = 0; i < 2; i++)
		T_EQ(pthread_join(t[i], NULL), 0);
	return 0;
}
