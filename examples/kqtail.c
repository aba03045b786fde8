/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * kqtail.c - follow a growing file like `tail -f`, without polling.
 * (Paper program 6 in examples/CMakeLists.txt's list.)
 *
 * The kqueue paper (section 9) points out that `tail -f` wakes up every
 * quarter second to stat() the file.  With kqueue it can sleep until there
 * is something to print: EVFILT_READ on a regular file fires whenever the
 * file's size differs from the descriptor's offset, and the event's data is
 * that difference, i.e. the number of bytes waiting to be read.  The loop is:
 *
 *	wait for the event -> read `data` bytes -> write them out -> wait again
 *
 * Once everything is read, size == offset and the (level-triggered) knote
 * goes quiet until the file grows again.
 *
 * Truncation: when a log is rotated by truncating it, the size drops below
 * our offset and data comes back NEGATIVE.  We seek back to the start and
 * carry on with the new contents.  (If the file were truncated and then
 * refilled past our old offset before we looked, the drop would go
 * unnoticed; real tail(1) has the same blind spot.  A file rotated by
 * renaming it needs EVFILT_VNODE's NOTE_RENAME/NOTE_DELETE to notice.)
 *
 * usage:
 *	kqtail [-a] FILE	follow FILE from its end (-a: from its start)
 *	kqtail --self-test	check every byte is printed once, in order:
 *				a child process appends to a temporary file,
 *				truncates it, and appends again, while this
 *				process follows it.  Exit 0 pass, 1 fail,
 *				77 skip (no writable temporary directory).
 *
 * Plain FreeBSD code: <sys/event.h>, EV_SET, POSIX calls only.
 */
#include <sys/types.h>
#include <sys/event.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Where followed bytes go: stdout normally, a checker in the self-test. */
typedef int (*sink_fn)(const char *buf, size_t len);

/*
 * Follow fd until the sink returns 1 (done) or -1 (error).  Returns 0 when
 * the sink said done, -1 on error, and 1 if `timeout` passed with nothing
 * to read (timeout NULL: wait forever).
 */
static int
follow(int fd, sink_fn sink, const struct timespec *timeout)
{
	struct kevent ch, ev;
	char buf[8192];
	ssize_t n;
	int64_t left;
	int kq, r;

	if ((kq = kqueue()) == -1)
		return -1;
	/* Level-triggered on purpose: it fires while size != offset. */
	EV_SET(&ch, fd, EVFILT_READ, EV_ADD, 0, 0, NULL);
	if (kevent(kq, &ch, 1, NULL, 0, NULL) == -1) {
		close(kq);
		return -1;
	}
	for (;;) {
		r = kevent(kq, NULL, 0, &ev, 1, timeout);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(kq);
			return r == 0 ? 1 : -1;
		}
		if (ev.data < 0) {
			/* The file shrank below our offset: truncated. */
			fprintf(stderr, "kqtail: file truncated\n");
			if (lseek(fd, 0, SEEK_SET) == -1)
				break;
			continue;
		}
		/* ev.data bytes are waiting past our offset: copy them. */
		for (left = ev.data; left > 0; left -= n) {
			n = read(fd, buf, left < (int64_t)sizeof(buf) ?
			    (size_t)left : sizeof(buf));
			if (n == -1 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n == -1)
				goto out;
			if (n == 0)
				break;	/* it shrank meanwhile; the next event says */
			r = sink(buf, (size_t)n);
			if (r != 0) {
				close(kq);
				return r > 0 ? 0 : -1;
			}
		}
	}
out:
	close(kq);
	return -1;
}

/* The normal sink: write everything to standard output. */
static int
to_stdout(const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(STDOUT_FILENO, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- self-test ---------------------------------------------------------- */

#define NLINES	300		/* lines the child appends before truncating */

static char *expect;		/* every byte the follower must print */
static size_t expect_len, got_len, phase1_len;
static int ack_fd = -1;		/* tells the child phase 1 was all printed */
static int mismatch;

/* The self-test sink: compare with what was written, byte for byte. */
static int
check(const char *buf, size_t len)
{
	if (got_len + len > expect_len ||
	    memcmp(expect + got_len, buf, len) != 0) {
		fprintf(stderr, "kqtail: output differs from the file's "
		    "history at byte %zu\n", got_len);
		mismatch = 1;
		return -1;
	}
	got_len += len;
	if (ack_fd != -1 && got_len == phase1_len) {
		/* Everything before the truncation arrived: let it happen. */
		if (write(ack_fd, "t", 1) != 1)
			return -1;
		close(ack_fd);
		ack_fd = -1;
	}
	return got_len == expect_len ? 1 : 0;
}

static void
append(char **text, size_t *len, const char *s)
{
	size_t n = strlen(s);

	*text = realloc(*text, *len + n + 1);
	if (*text == NULL) {
		perror("kqtail: realloc");
		exit(1);
	}
	memcpy(*text + *len, s, n + 1);
	*len += n;
}

static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, p, len)) <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The child: append phase 1 in uneven pieces, wait, truncate, append. */
static int
writer(const char *path, const char *phase1, size_t len1,
    const char *phase2, int ack)
{
	struct timespec pause = { 0, 1000000 };		/* 1 ms */
	size_t off, piece;
	char c;
	int fd, i;

	if ((fd = open(path, O_WRONLY | O_APPEND)) == -1)
		return 1;
	for (off = 0, i = 0; off < len1; off += piece, i++) {
		piece = 1 + (size_t)(i * 37) % 200;	/* 1 to 200 bytes */
		if (piece > len1 - off)
			piece = len1 - off;
		if (write_all(fd, phase1 + off, piece) == -1)
			return 1;
		if (i % 8 == 0)
			nanosleep(&pause, NULL);	/* sometimes let it look */
	}
	/* Wait until the follower printed it all, then rotate the log. */
	if (read(ack, &c, 1) != 1)
		return 1;
	if (ftruncate(fd, 0) == -1)
		return 1;
	nanosleep(&pause, NULL);
	if (write_all(fd, phase2, strlen(phase2)) == -1)
		return 1;
	close(fd);
	return 0;
}

static int
self_test(void)
{
	struct timespec timeout = { 10, 0 };
	const char *initial = "a line that was there before\n";
	const char *phase2 = "after truncation: one\nafter truncation: two\n";
	char path[256], line[64], *history = NULL;
	const char *tmp;
	size_t hlen = 0, skip = strlen(initial);
	int fd, ack[2], status, r, i;
	pid_t pid;

	/*
	 * The file's whole history, which is what must come out: the initial
	 * line, NLINES appended lines (phase 1), then after the truncation
	 * the two lines of phase 2.
	 */
	append(&history, &hlen, initial);
	for (i = 1; i <= NLINES; i++) {
		snprintf(line, sizeof(line), "appended line %d of %d\n", i,
		    NLINES);
		append(&history, &hlen, line);
	}
	phase1_len = hlen;
	append(&history, &hlen, phase2);
	expect = history;
	expect_len = hlen;

	tmp = getenv("TMPDIR");
	snprintf(path, sizeof(path), "%s/kqtail.XXXXXX", tmp ? tmp : "/tmp");
	if ((fd = mkstemp(path)) == -1) {
		fprintf(stderr, "SKIP: cannot create a temporary file: %s\n",
		    strerror(errno));
		return 77;
	}
	if (write_all(fd, initial, skip) == -1) {
		perror("kqtail: write");
		unlink(path);
		return 1;
	}
	close(fd);

	if (pipe(ack) == -1 || (fd = open(path, O_RDONLY)) == -1) {
		perror("kqtail: pipe/open");
		unlink(path);
		return 1;
	}
	/* Fork before creating the kqueue: a kqueue is not inherited. */
	if ((pid = fork()) == -1) {
		perror("kqtail: fork");
		unlink(path);
		return 1;
	}
	if (pid == 0) {
		close(ack[1]);
		_exit(writer(path, history + skip, phase1_len - skip, phase2,
		    ack[0]));
	}
	close(ack[0]);
	ack_fd = ack[1];

	r = follow(fd, check, &timeout);	/* from offset 0: prints it all */

	if (r != 0)
		kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	unlink(path);
	if (r == 1)
		fprintf(stderr, "FAIL: nothing new for %d s; got %zu of %zu "
		    "bytes\n", (int)timeout.tv_sec, got_len, expect_len);
	else if (r == -1 && !mismatch)
		perror("FAIL: kqtail");
	if (r != 0)
		return 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "FAIL: the writer process failed\n");
		return 1;
	}
	printf("ok: %zu bytes (a line, %d appended lines, a truncation, 2 "
	    "more lines) printed once each, in order\n", got_len, NLINES);
	return 0;
}

int
main(int argc, char **argv)
{
	int fd, from_start = 0;

	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		alarm(60);	/* never hang a test run */
		return self_test();
	}
	if (argc == 3 && strcmp(argv[1], "-a") == 0) {
		from_start = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: kqtail [-a] file\n"
		    "       kqtail --self-test\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) == -1) {
		perror(argv[1]);
		return 1;
	}
	if (!from_start && lseek(fd, 0, SEEK_END) == -1) {
		perror("lseek");
		return 1;
	}
	if (follow(fd, to_stdout, NULL) == -1) {
		perror("kqtail");
		return 1;
	}
	return 0;
}
