/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * FreeBSD's kevent() returns -1/EFAULT when the event list is
 * not writable, because the kernel copies records out with copyout().
 *
 * Deviation from FreeBSD: libkq runs in the caller's address space and writes
 * records directly, like any C library function given a buffer; checking
 * every call's buffer (e.g. with a process_vm_writev round trip) would cost a
 * system call per kevent().  A NULL list is detected (EFAULT, see
 * kevent-null-list); any other unwritable pointer faults.  This test
 * documents exactly that, in a child process: an event list in a read-only
 * page with a ready knote kills the child with SIGSEGV, and the same call
 * with nothing to report returns 0 without touching the list.
 */
#include "t.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

/* Let the child die of the signal instead of a sanitizer's report. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "handle_segv=0"; }
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "handle_segv=0"; }

static int child(bool ready)
{
	int kq = kqueue(), p[2];
	if (kq < 0 || pipe(p) != 0)
		_exit(3);
	struct kevent ch;
	EV_SET(&ch, p[0], EVFILT_READ, EV_ADD, 0, 0, NULL);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) != 0)
		_exit(4);
	if (ready && write(p[1], "x", 1) != 1)
		_exit(5);
	struct kevent *ro = mmap(NULL, 4096, PROT_READ,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		_exit(6);
	struct timespec z = { 0, 0 };
	int n = kevent(kq, NULL, 0, ro, 4, &z);
	_exit(n == 0 ? 0 : 7);
}

static int run(bool ready)
{
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0)
		child(ready);
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	return st;
}

int main(void)
{
	int st = run(true);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
		T_FAIL("ready knote, read-only event list: expected the "
		       "documented SIGSEGV, got status 0x%x", st);
	st = run(false);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("nothing ready, read-only event list: expected 0 "
		       "records and exit 0, got status 0x%x", st);
	return 0;
}
