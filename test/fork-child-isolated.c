/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Nothing a fork child does reaches the
 * parent's kqueue except the real effects on shared files.  Parent knotes:
 * READ on a pipe, USER ident 7, SIGNAL SIGUSR1 (program handler), VNODE
 * NOTE_WRITE on a file, PROC NOTE_EXIT on the child.  The child: kevent() on
 * the parent's kqueue number fails with EBADF; it creates its own kqueue
 * (which may get the same number) with USER ident 7, a 1 ms timer, READ on
 * the same pipe and VNODE on the same file, triggers ident 7, raises
 * SIGUSR1 on itself (its handler runs, its own knote counts it), writes 3
 * bytes into the pipe and appends to the file, sees its own records, exits.
 * The parent then gets exactly: READ data 3 (the bytes are real), VNODE
 * NOTE_WRITE (the write is real, and the child did not steal the parent's
 * inotify events) and the child's NOTE_EXIT; no USER, no SIGNAL record, and
 * its own handler never ran.
 */
#include "t.h"

#include <sys/wait.h>

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	(void)sig;
	hits++;
}

#define CFAIL(...) do {                                                    \
	fprintf(stderr, "child: ");                                        \
	fprintf(stderr, __VA_ARGS__);                                      \
	fprintf(stderr, "\n");                                             \
	_exit(1);                                                          \
} while (0)

static void child(int parent_kq, int p0, int p1, int file)
{
	struct kevent ch[8], ev[8];
	struct timespec z = { 0, 0 };

	alarm(4);
	if (kevent(parent_kq, NULL, 0, ev, 8, &z) != -1 || errno != EBADF)
		CFAIL("kevent on the parent's kqueue number did not fail "
		      "EBADF");
	int k = kqueue();
	if (k < 0)
		CFAIL("kqueue: %s", strerror(errno));
	EV_SET(&ch[0], 7, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	EV_SET(&ch[1], 1, EVFILT_TIMER, EV_ADD | EV_ONESHOT, 0, 1, NULL);
	EV_SET(&ch[2], p0, EVFILT_READ, EV_ADD, 0, 0, NULL);
	EV_SET(&ch[3], file, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0,
	       NULL);
	EV_SET(&ch[4], SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	if (kevent(k, ch, 5, NULL, 0, NULL) != 0)
		CFAIL("own knotes: %s", strerror(errno));
	EV_SET(&ch[0], 7, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	if (kevent(k, ch, 1, NULL, 0, NULL) != 0)
		CFAIL("trigger: %s", strerror(errno));
	if (raise(SIGUSR1) != 0)
		CFAIL("raise");
	if (hits != 1)
		CFAIL("own SIGUSR1 handler ran %d times", (int)hits);
	if (write(p1, "ccc", 3) != 3 || write(file, "child\n", 6) != 6)
		CFAIL("write: %s", strerror(errno));
	int want = 0x1f, seen = 0;
	int64_t end = t_now_ns() + 2000000000LL;
	while (seen != want && t_now_ns() < end) {
		struct timespec to = { 0, 100000000L };
		int n = kevent(k, NULL, 0, ev, 8, &to);
		if (n < 0 && errno != EINTR)
			CFAIL("kevent: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			seen |= ev[i].filter == EVFILT_USER ? 1 :
				ev[i].filter == EVFILT_TIMER ? 2 :
				ev[i].filter == EVFILT_READ ? 4 :
				ev[i].filter == EVFILT_VNODE ? 8 :
				ev[i].filter == EVFILT_SIGNAL ? 16 : 0;
	}
	if (seen != want)
		CFAIL("own kqueue saw 0x%x of 0x%x", seen, want);
	_exit(0);
}

int main(void)
{
	int kq = t_kqueue(), p[2];
	const char *path;
	int file = t_tmp_file(&path);
	void *ur = (void *)0x1101, *uu = (void *)0x1102, *uv = (void *)0x1103,
	     *up = (void *)0x1104, *us = (void *)0x1105;
	struct kevent ev[8];
	char buf[8];

	t_fail_after(6, "fork-child-isolated: still running after 6 s");
	t_on_signal(SIGUSR1, on_usr1, SA_RESTART);
	t_pipe(p);
	t_change(kq, p[0], EVFILT_READ, EV_ADD, 0, 0, ur);
	t_change(kq, 7, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, uu);
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, us);
	t_change(kq, file, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_WRITE, 0, uv);

	/* The child waits for the go byte, so its NOTE_EXIT knote exists
	 * before it can exit. */
	int go[2];
	t_pipe(go);
	pid_t pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		if (read(go[0], buf, 1) != 1)
			_exit(3);
		child(kq, p[0], p[1], file);
	}
	t_change(kq, pid, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, up);
	t_write(go[1], "g", 1);

	int seen = 0, n;
	int64_t end = t_now_ns() + 3000000000LL;
	while (seen != 0xb && t_now_ns() < end) {
		n = t_wait(kq, ev, 8, 100);
		for (int i = 0; i < n; i++) {
			switch (ev[i].filter) {
			case EVFILT_PROC:
				T_KEVENT(&ev[i], pid, EVFILT_PROC,
					 EV_EOF | EV_ONESHOT | EV_CLEAR,
					 NOTE_EXIT, 0, up);
				seen |= 8;
				break;
			case EVFILT_READ:
				T_KEVENT(&ev[i], p[0], EVFILT_READ, 0, 0, 3, ur);
				seen |= 1;
				break;
			case EVFILT_VNODE:
				if (seen & 2)
					T_FAIL("NOTE_WRITE reported twice");
				/* the append grew the file: FreeBSD
				 * reports the whole hint,
				 * NOTE_WRITE|NOTE_EXTEND */
				T_KEVENT(&ev[i], file, EVFILT_VNODE, EV_CLEAR,
					 NOTE_WRITE | NOTE_EXTEND, 0, uv);
				seen |= 2;
				break;
			default:
				t_print_kevent("  unexpected", &ev[i]);
				T_FAIL("a child's action reached the parent");
			}
		}
	}
	int st;
	T_EQ(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		T_FAIL("child failed (status 0x%x)", st);
	if (seen != 0xb)
		T_FAIL("parent saw 0x%x of READ|VNODE|PROC (0xb)", seen);
	n = t_get(kq, ev, 8);
	for (int i = 0; i < n; i++) {
		if (ev[i].filter == EVFILT_READ) {
			T_KEVENT(&ev[i], p[0], EVFILT_READ, 0, 0, 3, ur);
			continue;
		}
		t_print_kevent("  unexpected", &ev[i]);
		T_FAIL("a child's action reached the parent");
	}
	T_EQ(hits, 0);
	T_EQ(read(p[0], buf, sizeof buf), 3);
	T_NO_EVENTS(kq);

	/* The parent's knotes still work. */
	t_change(kq, 7, EVFILT_USER, 0, NOTE_TRIGGER, 0, uu);
	T_EQ(kill(getpid(), SIGUSR1), 0);
	T_EQ(hits, 1);
	n = t_get(kq, ev, 8);
	T_EQ(n, 2);
	alarm(0);
	return 0;
}
