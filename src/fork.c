/* SPDX-License-Identifier: BSD-2-Clause */
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
 * vfork() runs no atfork handlers, and its child shares the parent's memory
 * until it execs or exits: anything libkq would do there to its own tables
 * (drop knotes for a close, mark a kqueue dead, swap a signal disposition)
 * would be done to the parent's.  kq_foreign_process() tells the descriptor
 * and signal calls they run in such a child (the process id is not the one
 * the tables belong to); they then only make the real call.  On x86-64
 * libkq's own vfork() counts the children that may be running
 * (kq_vforks), so the process id is only asked while there are some; a
 * child made some other way (a raw vfork system call, clone() with
 * CLONE_VM) is then not recognised.  Descriptors
 * libkq creates are close-on-exec, so an exec drops them.
 */
#include "kq.h"
#include "sys.h"

/* The process libkq's tables belong to: set at load, renewed in a fork
 * child.  A vfork() child (or a clone() without atfork handlers) sees
 * another process id while it runs in this memory (kq_foreign_process()
 * in sys.h). */
_Atomic int kq_owner_pid;

#if KQ_VFORK_TRACKED
/* named by vfork.c's assembly, which link-time optimization cannot see */
__attribute__((used)) _Atomic int kq_vforks;
#endif

/* Signals stay blocked from the prepare handler to the parent's or child's
 * handler: a signal handler calling close() or sigaction() in between
 * would wait for the locks this thread holds.  The mask to restore is kept
 * under those locks (one fork at a time gets past prepare). */
static sigset_t fork_mask;

static void prepare(void)
{
	sigset_t old;
	kq_signals_block(&old);
	/* before any lock: a close being waited for may take a kqueue's */
	kq_fdtab_child_begin();
	kq_move_lock();   /* a move's numbers are whole in the child */
	kq_fork_prepare_kqueues();
	kq_signal_fork_prepare();
	fork_mask = old;
}

static void parent(void)
{
	sigset_t old = fork_mask;
	kq_signal_fork_parent();
	kq_fork_parent_kqueues();
	kq_move_unlock();
	kq_fdtab_child_end();
	kq_signals_restore(&old);
}

static void child(void)
{
	sigset_t old = fork_mask;
	atomic_store(&kq_owner_pid, (int)KQ_SYSCALL(SYS_getpid));
	/* the locks it recorded are made anew */
	for (unsigned i = 0; i < KQ_HELD_MAX; i++)
		kq_held.m[i] = NULL;
	kq_held.n = 0;
	kq_held.last_kq[0] = kq_held.last_kq[1] = NULL;
	kq_fdtab_child_made();
	kq_signal_fork_child();
	kq_fork_child_kqueues();
	kq_vnode_fork_child();
	kq_move_unlock();
	kq_signals_restore(&old);
}

__attribute__((constructor)) static void kq_fork_register(void)
{
	atomic_store(&kq_owner_pid, (int)KQ_SYSCALL(SYS_getpid));
	pthread_atfork(prepare, parent, child);
}
