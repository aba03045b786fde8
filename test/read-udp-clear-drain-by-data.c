/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_READ | EV_CLEAR on a UDP socket, read the way UDP proxies and
 * resolvers read it: after each record, receive datagrams until `data`
 * bytes' worth have been taken, then wait for the next record.  FreeBSD's
 * `data` is every queued payload byte, so that loop never leaves a
 * datagram behind; Linux tells only the next datagram's size, and libkq
 * must make up for it with further records.  Every datagram must arrive
 * with no wait running out while one is still queued:
 *   - three datagrams queued at once ("1", "2", "3");
 *   - a second datagram arriving after a record, while the first is still
 *     to be read (an A and an AAAA reply), and a third after that;
 *   - five queued at once, some sizes equal (so the next datagram's size
 *     never changes while they are read).
 * Each record is {rx, READ, EV_CLEAR, 0, data > 0, udata}; once all are
 * read, no record.
 */
#include "t.h"

#include <sys/ioctl.h>

static void *const UD = (void *)0xd9;

static void send_str(int tx, const struct sockaddr_in *sin, const char *s)
{
	T_EQ(sendto(tx, s, strlen(s), 0, (const struct sockaddr *)sin, sizeof *sin),
	     (ssize_t)strlen(s));
}

/* Runs the read-by-data loop; before reading the records numbered in
 * `later` (0-based), sends the datagram given there.  Returns the payload
 * received, in order. */
static void run(const char *const *first, const char *const *later, const char *want)
{
	struct sockaddr_in sin;
	int rx = t_inet_socket(SOCK_DGRAM, 0, &sin);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	T_ASSERT(tx >= 0);
	T_EQ(fcntl(rx, F_SETFL, O_NONBLOCK), 0);
	int kq = t_kqueue();
	t_change(kq, rx, EVFILT_READ, EV_ADD | EV_CLEAR, 0, 0, UD);

	for (int i = 0; first[i]; i++)
		send_str(tx, &sin, first[i]);
	t_sleep_ms(20);   /* all on the queue */

	char got[128] = "";
	size_t len = 0;
	for (int rec = 0;; rec++) {
		struct kevent ev[2];
		int n = t_wait(kq, ev, 2, 1000);
		if (n == 0) {
			int q = 0;
			T_EQ(ioctl(rx, FIONREAD, &q), 0);
			if (q > 0)
				T_FAIL("a datagram was left queued with no record (got \"%s\", want \"%s\")",
				       got, want);
			break;
		}
		T_EQ(n, 1);
		T_ASSERT(ev[0].data > 0);
		T_KEVENT(&ev[0], rx, EVFILT_READ, EV_CLEAR, 0, ev[0].data, UD);
		if (later[rec]) {
			send_str(tx, &sin, later[rec]);
			t_sleep_ms(20);
		}
		for (int64_t left = ev[0].data; left > 0;) {
			ssize_t r = recv(rx, got + len, sizeof got - 1 - len, 0);
			if (r < 0 && errno == EAGAIN)
				break;
			T_ASSERT(r > 0);
			len += (size_t)r;
			got[len] = 0;
			left -= r;
		}
		T_ASSERT(rec < 16);
	}
	if (strcmp(got, want) != 0)
		T_FAIL("received \"%s\", want \"%s\"", got, want);
	close(kq);
	close(rx);
	close(tx);
}

int main(void)
{
	static const char *const none[17] = { NULL };
	static const char *const three[] = { "1", "2", "3", NULL };
	run(three, none, "123");

	static const char *const a[] = { "A", NULL };
	static const char *const then[17] = { "AAAA", "x", NULL };
	run(a, then, "AAAAAx");

	static const char *const five[] = { "ab", "cd", "ef", "g", "hi", NULL };
	run(five, none, "abcdefghi");
	return 0;
}
