/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * filewatch.c - report what happens to a file (kqueue paper, Figure 8).
 *
 * EVFILT_VNODE watches an open file.  fflags names the changes of interest;
 * each event's fflags says which of them happened since the last report,
 * OR-ed together:
 *
 *	NOTE_WRITE	the contents were written
 *	NOTE_RENAME	the file was renamed (or moved)
 *	NOTE_ATTRIB	its attributes changed (chmod, chown, utimes)
 *	NOTE_DELETE	a name of it was removed (unlink)
 *
 * A write that makes the file longer also sets NOTE_EXTEND: the filter
 * reports everything it knows about a change once any of its bits was asked
 * for.  So test bits with &, never compare fflags with ==.
 *
 * The knote follows the file, not its name: after a rename it still reports
 * writes to the same file under its new name.
 *
 * EV_CLEAR matters here.  Without it the knote stays active once something
 * happened, and every kevent() call would report the same changes again;
 * with it, each change is reported once.
 *
 * usage:
 *	filewatch FILE		print each change to FILE until it is deleted
 *	filewatch --self-test	in a temporary directory: write, rename, chmod
 *				and unlink a file one step at a time, checking
 *				that each is reported once with its bit; then
 *				all four on a second file before looking, which
 *				must come as one event with all four bits.
 *				Exit 0 pass, 1 fail, 77 skip (no writable
 *				temporary directory).
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WATCHED	(NOTE_RENAME | NOTE_WRITE | NOTE_DELETE | NOTE_ATTRIB)

/* Figure 8: watch the open file fd. */
static int
watch(int kq, int fd)
{
	struct kevent ev;

	EV_SET(&ev, fd, EVFILT_VNODE, EV_ADD | EV_ENABLE | EV_CLEAR, WATCHED,
	    0, NULL);
	return kevent(kq, &ev, 1, NULL, 0, NULL);
}

/* Print one event: "name: NOTE_WRITE NOTE_EXTEND". */
static void
print_event(const char *name, const struct kevent *ev)
{
	static const struct {
		unsigned int	bit;
		const char	*name;
	} notes[] = {
		{ NOTE_DELETE, "NOTE_DELETE" }, { NOTE_WRITE, "NOTE_WRITE" },
		{ NOTE_EXTEND, "NOTE_EXTEND" }, { NOTE_ATTRIB, "NOTE_ATTRIB" },
		{ NOTE_LINK, "NOTE_LINK" }, { NOTE_RENAME, "NOTE_RENAME" },
		{ NOTE_REVOKE, "NOTE_REVOKE" },
	};
	size_t i;

	printf("%s:", name);
	for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
		if (ev->fflags & notes[i].bit)
			printf(" %s", notes[i].name);
	printf("\n");
	fflush(stdout);
}

/*
 * Wait for the next event on kq (at most `timeout`; NULL: forever), print
 * it and return its fflags; 0 if the time passed, -1 on error.
 */
static long
next_event(int kq, const char *name, const struct timespec *timeout)
{
	struct kevent ev;
	int n;

	do
		n = kevent(kq, NULL, 0, &ev, 1, timeout);
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		perror("kevent");
		return -1;
	}
	if (n == 0)
		return 0;
	print_event(name, &ev);
	return (long)ev.fflags;
}

/* ---- self-test ---------------------------------------------------------- */

static char dir[256];

static int
create(const char *name, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", dir, name);
	return open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
}

/* After a change: expect exactly one event, with the bits in want. */
static int
expect(int kq, const char *what, unsigned int want)
{
	struct timespec zero = { 0, 0 }, five = { 5, 0 };
	long got;

	got = next_event(kq, what, &five);
	if (got <= 0) {
		fprintf(stderr, "FAIL: %s: no event within 5 s\n", what);
		return 0;
	}
	/* want must be there; none of the other steps' bits may be. */
	if (((unsigned int)got & want) != want ||
	    ((unsigned int)got & WATCHED & ~want) != 0) {
		fprintf(stderr, "FAIL: %s: fflags 0x%lx, expected 0x%x\n",
		    what, got, want);
		return 0;
	}
	/* EV_CLEAR: reported once, so nothing more now. */
	if (next_event(kq, "  (repeated!)", &zero) != 0) {
		fprintf(stderr, "FAIL: %s reported twice\n", what);
		return 0;
	}
	return 1;
}

static int
self_test(void)
{
	char a[512], a2[512], b[512], b2[512];
	const char *tmp = getenv("TMPDIR");
	int kq, fa, fb, ok = 1;

	snprintf(dir, sizeof(dir), "%s/filewatch.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "SKIP: cannot create a temporary directory: "
		    "%s\n", strerror(errno));
		return 77;
	}
	snprintf(a2, sizeof(a2), "%s/a.renamed", dir);
	snprintf(b2, sizeof(b2), "%s/b.renamed", dir);
	if ((kq = kqueue()) == -1 || (fa = create("a", a, sizeof(a))) == -1 ||
	    (fb = create("b", b, sizeof(b))) == -1) {
		perror("kqueue/open");
		return 1;
	}
	if (watch(kq, fa) == -1) {
		perror("kevent: EVFILT_VNODE");
		return 1;
	}

	/* One step at a time, each with its own event. */
	if (write(fa, "hello\n", 6) != 6)
		perror("write");
	ok &= expect(kq, "write", NOTE_WRITE);
	if (rename(a, a2) == -1)
		perror("rename");
	ok &= expect(kq, "rename", NOTE_RENAME);
	if (chmod(a2, 0644) == -1)		/* by its new name */
		perror("chmod");
	ok &= expect(kq, "chmod", NOTE_ATTRIB);
	if (unlink(a2) == -1)
		perror("unlink");
	ok &= expect(kq, "unlink", NOTE_DELETE);
	close(fa);

	/* The same four before kevent() looks: one event, all the bits. */
	if (watch(kq, fb) == -1) {
		perror("kevent: EVFILT_VNODE");
		return 1;
	}
	if (write(fb, "hello\n", 6) != 6 || rename(b, b2) == -1 ||
	    chmod(b2, 0644) == -1 || unlink(b2) == -1)
		perror("write/rename/chmod/unlink");
	ok &= expect(kq, "all four", WATCHED);
	close(fb);

	close(kq);
	unlink(a);		/* left over only if a step failed */
	unlink(a2);
	unlink(b);
	unlink(b2);
	rmdir(dir);
	if (!ok)
		return 1;
	printf("ok: write, rename, chmod and unlink each reported once with "
	    "their bit, and together as one event with all four\n");
	return 0;
}

int
main(int argc, char **argv)
{
	long fflags;
	int fd, kq;

	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);	/* never hang a test run */
		return self_test();
	}
	if (argc != 2) {
		fprintf(stderr, "usage: filewatch file\n"
		    "       filewatch --self-test\n");
		return 2;
	}
	/* O_RDONLY is enough: watching needs no write access. */
	if ((fd = open(argv[1], O_RDONLY)) == -1) {
		perror(argv[1]);
		return 1;
	}
	if ((kq = kqueue()) == -1 || watch(kq, fd) == -1) {
		perror("kqueue/kevent");
		return 1;
	}
	do
		fflags = next_event(kq, argv[1], NULL);
	while (fflags > 0 && !(fflags & NOTE_DELETE));
	/*
	 * NOTE_DELETE means a name went away; the file lives on while it has
	 * other links (or we hold it open), but we stop here like the paper.
	 */
	return fflags > 0 ? 0 : 1;
}
