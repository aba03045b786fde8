/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The two unwinder entry points libkq's code refers to, found when first
 * called (the shared library only).
 *
 * kevent() is a cancellation point and the frame that waits has a cleanup
 * (scan.c), so the compiler makes that code refer to the C personality
 * routine and to _Unwind_Resume, both in libgcc_s.  Referred to directly,
 * they make libgcc_s a library that every program linked with libkq loads
 * when it starts, although they run only while a thread is being unwound:
 * on a virtual machine, loading it (its constructor's CPU feature probes
 * each leave the guest) cost each exec of a small program about 100 us,
 * more than loading libkq itself.
 *
 * Only pthread_cancel() and pthread_exit() unwind a thread through libkq's
 * frames (nothing libkq calls throws), and the C library loads libgcc_s
 * before it starts either unwind: the canceller does it before it signals,
 * pthread_exit() before it unwinds.  So when these run libgcc_s is loaded,
 * and dlopen() with RTLD_NOLOAD only names it.  The only frame with a
 * cleanup is kevent()'s wait, so the first lookup runs in a thread
 * cancelled in that wait: the C library unwinds it from its cancellation
 * signal handler, which acts only when the thread was inside the
 * cancellable system call, where it holds no lock of the dynamic loader
 * or of malloc (asynchronous cancellation may not reach kevent(), which
 * is not async-cancel-safe).
 *
 * The static library keeps the direct references: a static program has the
 * unwinder linked in, where dlopen() cannot find it.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
/* hidden: these must bind to the definitions below, never be exported */
#pragma GCC visibility push(hidden)
#include <unwind.h>

typedef _Unwind_Reason_Code (*personality_fn)(int, _Unwind_Action, _Unwind_Exception_Class,
					      struct _Unwind_Exception *,
					      struct _Unwind_Context *);
typedef void (*resume_fn)(struct _Unwind_Exception *);

static _Atomic(personality_fn) real_personality;
static _Atomic(resume_fn) real_resume;

/* The symbol in the loaded libgcc_s, or in whatever the program's global
 * scope offers under that name and version (libgcc_s loaded by a C++
 * program, or by a sanitizer's runtime). */
static void *unwinder(void *h, const char *name, const char *version)
{
	void *f = h ? dlvsym(h, name, version) : NULL;
	return f ? f : dlvsym(RTLD_DEFAULT, name, version);
}

/* Both at the first call of either: an unwind through libkq calls the
 * personality routine, then _Unwind_Resume from the cleanup.  Threads
 * racing here store the same values. */
static bool resolve(void)
{
	if (atomic_load_explicit(&real_resume, memory_order_acquire))
		return true;
	void *h = dlopen("libgcc_s.so.1", RTLD_LAZY | RTLD_NOLOAD);
	personality_fn p = (personality_fn)unwinder(h, "__gcc_personality_v0", "GCC_3.3.1");
	resume_fn r = (resume_fn)unwinder(h, "_Unwind_Resume", "GCC_3.0");
	if (h)
		dlclose(h);   /* drops only the reference NOLOAD took */
	if (!p || !r)
		return false;
	atomic_store_explicit(&real_personality, p, memory_order_relaxed);
	atomic_store_explicit(&real_resume, r, memory_order_release);
	return true;
}

_Unwind_Reason_Code __gcc_personality_v0(int version, _Unwind_Action actions,
					 _Unwind_Exception_Class cls,
					 struct _Unwind_Exception *ue,
					 struct _Unwind_Context *ctx);

_Unwind_Reason_Code __gcc_personality_v0(int version, _Unwind_Action actions,
					 _Unwind_Exception_Class cls,
					 struct _Unwind_Exception *ue,
					 struct _Unwind_Context *ctx)
{
	if (!resolve())
		return _URC_FATAL_PHASE1_ERROR;
	return atomic_load_explicit(&real_personality, memory_order_relaxed)(version, actions,
									     cls, ue, ctx);
}

void _Unwind_Resume(struct _Unwind_Exception *ue)
{
	/* Unreachable without it: only an unwind libgcc_s runs enters a
	 * landing pad that calls this. */
	if (!resolve())
		__builtin_trap();
	atomic_load_explicit(&real_resume, memory_order_relaxed)(ue);
	__builtin_unreachable();
}
#pragma GCC visibility pop
