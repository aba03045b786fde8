/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * knote-memory: user-space memory per socket knote.
 *
 * N UDP sockets (1 descriptor each; N = 10,000, --quick 1,000) are created
 * first; then, in a kqueue that already exists, N EVFILT_READ knotes are
 * added (one kevent() call each), then N EVFILT_WRITE knotes on the same
 * sockets.  The malloc heap is read with mallinfo2() before and after each
 * step: in-use bytes = uordblks (arena chunks in use) + hblkhd (chunks
 * malloc took straight from mmap), so large tables count too.  Resident set
 * growth (/proc/self/statm) is printed beside it, for whatever the library
 * might map without malloc.  Finally every knote is deleted and the kqueue
 * closed, and what stays allocated is printed (tables kept for reuse are
 * fine; growth per socket would be a leak).
 *
 * The existing user-space port (libkqueue 2.7) needs 330 bytes per socket
 * knote (measured with this program's method); the target is 128.
 *
 * Output:
 *   knote-memory N=<n> read_bytes_per_knote=<b> write_bytes_per_knote=<b>
 *       rss_bytes_per_knote=<b> kept_bytes_per_socket=<b>
 *       read_bytes_per_knote_excl_kept=<b> kqueue_bytes=<first kqueue()> ...
 *       target_bytes=128
 * (read_: the first knote on each socket; write_: a second knote on a socket
 * that already has one.)
 *
 * Exit: 0 done, 1 a call failed (or setup failed), 2 bad usage.
 */
#include "bench.h"

#include <malloc.h>
#include <netinet/in.h>
#include <sys/event.h>
#include <sys/socket.h>

#define FD_MARGIN 64

static double heap_bytes(void)
{
	struct mallinfo2 m = mallinfo2();
	return (double)m.uordblks + (double)m.hblkhd;
}

static double rss_bytes(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return 0.0;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (double)res * (double)sysconf(_SC_PAGESIZE);
}

static void add_all(int kq, const int *fd, int n, short filter, unsigned short flags)
{
	for (int i = 0; i < n; i++) {
		struct kevent ch;
		EV_SET(&ch, fd[i], filter, flags, 0, 0, NULL);
		int r = kevent(kq, &ch, 1, NULL, 0, NULL);
		if (r != 0)
			bench_fail("kevent(filter %d flags %#x, fd %d) = %d: %s", filter, flags,
				   fd[i], r, r < 0 ? strerror(errno) : "records returned");
	}
}

static long opt_sockets;

static int parse_extra(const char *a)
{
	if (strncmp(a, "--sockets=", 10) != 0)
		return 0;
	opt_sockets = bench_parse_long("--sockets", a + 10);
	return 1;
}

int main(int argc, char **argv)
{
	struct bench_opts o;
	bench_parse_args(argc, argv, &o, parse_extra, "[--sockets=N]");
	long n = opt_sockets ? opt_sockets : o.quick ? 1000 : 10000;
	long limit = bench_raise_nofile();
	if (n + FD_MARGIN > limit) {
		printf("# %ld sockets do not fit under the fd limit %ld; using %ld\n", n, limit,
		       limit - FD_MARGIN);
		n = limit - FD_MARGIN;
	}
	bench_header("knote-memory", &o);
	printf("# N=%ld UDP sockets; heap = mallinfo2 uordblks + hblkhd\n", n);
	fflush(stdout);

	int *fd = bench_alloc((size_t)n, sizeof *fd);
	for (long i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd[i] < 0)
			bench_die("socket(UDP)");
	}

	double h0 = heap_bytes(), r0 = rss_bytes();
	int kq = kqueue();
	if (kq < 0)
		bench_die("kqueue");
	double h1 = heap_bytes(), r1 = rss_bytes();
	add_all(kq, fd, (int)n, EVFILT_READ, EV_ADD);
	double h2 = heap_bytes(), r2 = rss_bytes();
	add_all(kq, fd, (int)n, EVFILT_WRITE, EV_ADD);
	double h3 = heap_bytes();
	add_all(kq, fd, (int)n, EVFILT_WRITE, EV_DELETE);
	add_all(kq, fd, (int)n, EVFILT_READ, EV_DELETE);
	double h4 = heap_bytes();
	close(kq);
	double h5 = heap_bytes();

	double per_read = (h2 - h1) / (double)n;
	/* What stays allocated after the kqueue is gone is process-wide (libkq's
	 * table of descriptor numbers, the free list of kqueue objects); the
	 * share of it per socket is printed apart, for the diagnosis. */
	printf("knote-memory N=%ld read_bytes_per_knote=%.1f write_bytes_per_knote=%.1f "
	       "rss_bytes_per_knote=%.1f kept_bytes_per_socket=%.1f "
	       "read_bytes_per_knote_excl_kept=%.1f kqueue_bytes=%.0f kqueue_rss_bytes=%.0f "
	       "after_delete_bytes=%.0f after_close_bytes=%.0f target_bytes=128\n",
	       n, per_read, (h3 - h2) / (double)n, (r2 - r1) / (double)n, (h5 - h0) / (double)n,
	       per_read - (h5 - h0) / (double)n, h1 - h0, r1 - r0, h4 - h1, h5 - h0);
	fflush(stdout);

	for (long i = 0; i < n; i++)
		close(fd[i]);
	free(fd);
	return 0;
}
