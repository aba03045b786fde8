/*
 * fork(): FreeBSD does not give a child its parent's kqueues; kevent() on
 * the number fails with EBADF and nothing the child does reaches the
 * parent's queues.  On Linux the child inherits every descriptor, epoll sets
 * included (an inherited epoll set is the very same set as the parent's), so
 * libkq must take them away itself: a pthread_atfork() child handler closes
 * every descriptor libkq created and restores the program's signal
 * dispositions.
 *
 * The prepare handler takes every lock first, so that the child, which has
 * only the forking thread, finds the structures consistent and can then
 * reinitialize the locks.  (fork() from a signal handler that interrupted
 * a kevent() call in the same thread would wait on its own lock; that is the
 * one case this cannot serve.)
 *
 * vfork() and posix_spawn() run no atfork handlers; they are safe because
 * every descriptor libkq creates is close-on-exec.
 */
#include "kq.h"

static void prepare(void)
{
	kq_fork_prepare_kqueues();
	kq_signal_fork_prepare();
}

static void parent(void)
{
	kq_signal_fork_parent();
	kq_fork_parent_kqueues();
}

static void child(void)
{
	kq_signal_fork_child();
	kq_fork_child_kqueues();
}

__attribute__((constructor)) static void kq_fork_register(void)
{
	pthread_atfork(prepare, parent, child);
}
