/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A library that defines popen() without a symbol version and passes the
 * call on to the next definition, as a sanitizer's interceptor or a
 * preloaded library does (interposed-popen-private.c links it before
 * libkq).  interposer_popen is the definition's own address.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

FILE *popen(const char *cmd, const char *mode)
{
	FILE *(*next)(const char *, const char *) =
		(FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "popen");
	return next ? next(cmd, mode) : NULL;
}

void *interposer_popen(void)
{
	return (void *)popen;
}
