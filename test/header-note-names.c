/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The installed <sys/event.h> defines every NOTE_* name
 * FreeBSD's <sys/event.h> (14.x) gives programs, with FreeBSD's value, and
 * does not #undef any of them when other system headers are included after
 * it (programs test "#ifdef NOTE_REVOKE" and the like).  The names of
 * FreeBSD's newest filters (EVFILT_JAIL: NOTE_JAIL_*; NOTE_PDSIGCHLD,
 * NOTE_REAP) are not required.  A missing name is reported at run time, so
 * the rest of the suite still builds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/event.h>
#include "t.h"
#include <sys/event.h>   /* twice: the include guard must hold */
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <poll.h>

static int bad;

static void check(const char *name, unsigned long long got,
		  unsigned long long want)
{
	if (got != want) {
		fprintf(stderr, "%s is 0x%llx, FreeBSD has 0x%llx\n", name,
			got, want);
		bad = 1;
	}
}

static __attribute__((unused)) void missing(const char *name)
{
	fprintf(stderr, "%s is not defined\n", name);
	bad = 1;
}

int main(void)
{
#ifdef NOTE_FFNOP
	check("NOTE_FFNOP", (unsigned long long)(NOTE_FFNOP), 0x00000000u);
#else
	missing("NOTE_FFNOP");
#endif
#ifdef NOTE_FFAND
	check("NOTE_FFAND", (unsigned long long)(NOTE_FFAND), 0x40000000u);
#else
	missing("NOTE_FFAND");
#endif
#ifdef NOTE_FFOR
	check("NOTE_FFOR", (unsigned long long)(NOTE_FFOR), 0x80000000u);
#else
	missing("NOTE_FFOR");
#endif
#ifdef NOTE_FFCOPY
	check("NOTE_FFCOPY", (unsigned long long)(NOTE_FFCOPY), 0xc0000000u);
#else
	missing("NOTE_FFCOPY");
#endif
#ifdef NOTE_FFCTRLMASK
	check("NOTE_FFCTRLMASK", (unsigned long long)(NOTE_FFCTRLMASK), 0xc0000000u);
#else
	missing("NOTE_FFCTRLMASK");
#endif
#ifdef NOTE_FFLAGSMASK
	check("NOTE_FFLAGSMASK", (unsigned long long)(NOTE_FFLAGSMASK), 0x00ffffffu);
#else
	missing("NOTE_FFLAGSMASK");
#endif
#ifdef NOTE_TRIGGER
	check("NOTE_TRIGGER", (unsigned long long)(NOTE_TRIGGER), 0x01000000u);
#else
	missing("NOTE_TRIGGER");
#endif
#ifdef NOTE_LOWAT
	check("NOTE_LOWAT", (unsigned long long)(NOTE_LOWAT), 0x0001u);
#else
	missing("NOTE_LOWAT");
#endif
#ifdef NOTE_FILE_POLL
	check("NOTE_FILE_POLL", (unsigned long long)(NOTE_FILE_POLL), 0x0002u);
#else
	missing("NOTE_FILE_POLL");
#endif
#ifdef NOTE_DELETE
	check("NOTE_DELETE", (unsigned long long)(NOTE_DELETE), 0x0001u);
#else
	missing("NOTE_DELETE");
#endif
#ifdef NOTE_WRITE
	check("NOTE_WRITE", (unsigned long long)(NOTE_WRITE), 0x0002u);
#else
	missing("NOTE_WRITE");
#endif
#ifdef NOTE_EXTEND
	check("NOTE_EXTEND", (unsigned long long)(NOTE_EXTEND), 0x0004u);
#else
	missing("NOTE_EXTEND");
#endif
#ifdef NOTE_ATTRIB
	check("NOTE_ATTRIB", (unsigned long long)(NOTE_ATTRIB), 0x0008u);
#else
	missing("NOTE_ATTRIB");
#endif
#ifdef NOTE_LINK
	check("NOTE_LINK", (unsigned long long)(NOTE_LINK), 0x0010u);
#else
	missing("NOTE_LINK");
#endif
#ifdef NOTE_RENAME
	check("NOTE_RENAME", (unsigned long long)(NOTE_RENAME), 0x0020u);
#else
	missing("NOTE_RENAME");
#endif
#ifdef NOTE_REVOKE
	check("NOTE_REVOKE", (unsigned long long)(NOTE_REVOKE), 0x0040u);
#else
	missing("NOTE_REVOKE");
#endif
#ifdef NOTE_OPEN
	check("NOTE_OPEN", (unsigned long long)(NOTE_OPEN), 0x0080u);
#else
	missing("NOTE_OPEN");
#endif
#ifdef NOTE_CLOSE
	check("NOTE_CLOSE", (unsigned long long)(NOTE_CLOSE), 0x0100u);
#else
	missing("NOTE_CLOSE");
#endif
#ifdef NOTE_CLOSE_WRITE
	check("NOTE_CLOSE_WRITE", (unsigned long long)(NOTE_CLOSE_WRITE), 0x0200u);
#else
	missing("NOTE_CLOSE_WRITE");
#endif
#ifdef NOTE_READ
	check("NOTE_READ", (unsigned long long)(NOTE_READ), 0x0400u);
#else
	missing("NOTE_READ");
#endif
#ifdef NOTE_EXIT
	check("NOTE_EXIT", (unsigned long long)(NOTE_EXIT), 0x80000000u);
#else
	missing("NOTE_EXIT");
#endif
#ifdef NOTE_FORK
	check("NOTE_FORK", (unsigned long long)(NOTE_FORK), 0x40000000u);
#else
	missing("NOTE_FORK");
#endif
#ifdef NOTE_EXEC
	check("NOTE_EXEC", (unsigned long long)(NOTE_EXEC), 0x20000000u);
#else
	missing("NOTE_EXEC");
#endif
#ifdef NOTE_PCTRLMASK
	check("NOTE_PCTRLMASK", (unsigned long long)(NOTE_PCTRLMASK), 0xf0000000u);
#else
	missing("NOTE_PCTRLMASK");
#endif
#ifdef NOTE_PDATAMASK
	check("NOTE_PDATAMASK", (unsigned long long)(NOTE_PDATAMASK), 0x000fffffu);
#else
	missing("NOTE_PDATAMASK");
#endif
#ifdef NOTE_TRACK
	check("NOTE_TRACK", (unsigned long long)(NOTE_TRACK), 0x00000001u);
#else
	missing("NOTE_TRACK");
#endif
#ifdef NOTE_TRACKERR
	check("NOTE_TRACKERR", (unsigned long long)(NOTE_TRACKERR), 0x00000002u);
#else
	missing("NOTE_TRACKERR");
#endif
#ifdef NOTE_CHILD
	check("NOTE_CHILD", (unsigned long long)(NOTE_CHILD), 0x00000004u);
#else
	missing("NOTE_CHILD");
#endif
#ifdef NOTE_SECONDS
	check("NOTE_SECONDS", (unsigned long long)(NOTE_SECONDS), 0x00000001u);
#else
	missing("NOTE_SECONDS");
#endif
#ifdef NOTE_MSECONDS
	check("NOTE_MSECONDS", (unsigned long long)(NOTE_MSECONDS), 0x00000002u);
#else
	missing("NOTE_MSECONDS");
#endif
#ifdef NOTE_USECONDS
	check("NOTE_USECONDS", (unsigned long long)(NOTE_USECONDS), 0x00000004u);
#else
	missing("NOTE_USECONDS");
#endif
#ifdef NOTE_NSECONDS
	check("NOTE_NSECONDS", (unsigned long long)(NOTE_NSECONDS), 0x00000008u);
#else
	missing("NOTE_NSECONDS");
#endif
#ifdef NOTE_ABSTIME
	check("NOTE_ABSTIME", (unsigned long long)(NOTE_ABSTIME), 0x00000010u);
#else
	missing("NOTE_ABSTIME");
#endif
	if (bad)
		T_FAIL("<sys/event.h> lacks FreeBSD NOTE_* names or values");
	return 0;
}
