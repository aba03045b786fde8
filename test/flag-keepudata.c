/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checked with READ knotes (user-keepudata does it with USER knotes): changes
 * carrying EV_KEEPUDATA (EV_DISABLE|EV_KEEPUDATA, EV_ENABLE|EV_KEEPUDATA, bare
 * EV_KEEPUDATA) leave the stored udata alone, so the record carries the udata
 * given at EV_ADD, also for a level knote modified while it is queued.  A
 * modification without EV_KEEPUDATA replaces it (FreeBSD kqueue_register),
 * which shows the flag is what kept it.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	int p[2];
	void *A = (void *)(uintptr_t)0xA0A0;
	void *B = (void *)(uintptr_t)0xB0B0;
	void *C = (void *)(uintptr_t)0xC0C0;
	void *D = (void *)(uintptr_t)0xD0D0;

	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, A);
	t_change(kq, p[0], EVFILT_READ, EV_DISABLE | EV_KEEPUDATA, 0, 0, B);
	t_write(p[1], "x", 1);
	T_NO_EVENTS(kq);
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE | EV_KEEPUDATA, 0, 0, C);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, A);

	/* Queued again (level); a bare EV_KEEPUDATA modification keeps A. */
	t_change(kq, p[0], EVFILT_READ, EV_KEEPUDATA, 0, 0, D);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, A);

	/* Contrast: without EV_KEEPUDATA the change's udata replaces it. */
	t_change(kq, p[0], EVFILT_READ, EV_ENABLE, 0, 0, B);
	T_GET1(kq, p[0], EVFILT_READ, 0, 0, 1, B);
	return 0;
}
