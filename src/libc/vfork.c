/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libkq's vfork(): see fork.c for why a vfork() child must be told from
 * its parent, and filter/signal.c (kq_vfork_child) for what the child does
 * first.  Exported as src/export.h describes.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#include <sys/syscall.h>

/* See close.c: keeps this object in programs linked with libkq.a. */
const char kq_vfork_anchor = 1;

#if KQ_VFORK_TRACKED
/*
 * vfork(), so that a child running in our memory can be told from us
 * without a getpid() on every close (kq_foreign_process() in sys.h): the
 * count of vfork children that may be running is raised before the call
 * and lowered by the parent once the child has exec'd or exited.
 *
 * It is glibc's vfork with those two steps around it, in assembly for the
 * reason glibc's is: the child runs on this stack, so the return address
 * is kept in a register across the call (the child's own return would
 * otherwise have overwritten it by the time the parent returns).  The
 * child first puts back the program's own signal dispositions
 * (kq_vfork_child, filter/signal.c), in its own copy of them; what it
 * pushes lies below the parent's frame, which the parent no longer needs.
 */
__attribute__((used, visibility("hidden"))) int kq_vfork_failed(int err)
{
	errno = err;
	return -1;
}

_Static_assert(SYS_vfork == 58, "the assembly below calls system call 58");

/* The child copies the descriptor table (fdtab.c, children). */
__attribute__((used, visibility("hidden"))) void kq_vfork_begin(void)
{
	if (!kq_foreign_process())
		kq_fdtab_child_begin();
}

__attribute__((used, visibility("hidden"))) void kq_vfork_end(void)
{
	if (!kq_foreign_process())
		kq_fdtab_child_end();
}

__attribute__((naked)) pid_t KQ_INTERPOSE(vfork)(void)
{
	__asm__ volatile(
		/* aligned for the call: the return address is pushed */
		"subq $8, %rsp\n\t"
		"call kq_vfork_begin\n\t"
		"addq $8, %rsp\n\t"
		"lock incl kq_vforks(%rip)\n\t"
		"popq %rdi\n\t"
		"movl $58, %eax\n\t"
		"syscall\n\t"
		"pushq %rdi\n\t"
		"testq %rax, %rax\n\t"
		"jnz 3f\n\t"
		/* the child: on the parent's stack, below its frame */
		"subq $8, %rsp\n\t"
		"call kq_vfork_child\n\t"
		"addq $8, %rsp\n\t"
		"xorl %eax, %eax\n\t"
		"ret\n"
		"3:\n\t"
		"lock decl kq_vforks(%rip)\n\t"
		"pushq %rax\n\t"
		"call kq_vfork_end\n\t"
		"popq %rax\n\t"
		"cmpq $-4095, %rax\n\t"
		"jae 2f\n\t"
		"ret\n"
		"2:\n\t"
		"negl %eax\n\t"
		"movl %eax, %edi\n\t"
		"jmp kq_vfork_failed\n\t");
}
#endif
