/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal at SIG_DFL keeps its default action
 * while a knote counts it (FreeBSD: kqueue only observes).  Each scenario
 * runs in a child process C:
 *  - knote on SIGTERM, SIG_DFL; the parent kill(C, SIGTERM): C terminates,
 *    WTERMSIG == SIGTERM.
 *  - same, C sends SIGTERM to itself: it does not return from kill().
 *  - C had a SIGUSR1 handler, adds the knote, then sets SIG_DFL: kill(self)
 *    terminates it with WTERMSIG == SIGUSR1.
 *  - knote on SIGTSTP, SIG_DFL (C in its own process group so the group is
 *    not orphaned): the parent's SIGTSTP stops C with WSTOPSIG == SIGTSTP;
 *    after SIGCONT, C finds {SIGTSTP, SIGNAL, EV_CLEAR, 0, 1} (counted and
 *    stopped).
 *  - knote on SIGWINCH, SIG_DFL (default: ignore): two sends, C lives and
 *    finds data 2.
 */
#include "t_signal.h"

static pid_t child;

static void on_deadline(int sig)
{
	static const char msg[] = "FAIL: signal-default-action hung\n";
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* nothing more to do */
	}
	_exit(1);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static int ready[2], go[2];

static void say_ready(void)
{
	t_write(ready[1], "r", 1);
}

static void wait_go(void)
{
	char c;
	ssize_t r;
	while ((r = read(go[0], &c, 1)) < 0 && errno == EINTR)
		;
	if (r != 1)
		T_FAIL("read(go): %zd (the parent gave up)", r);
}

static void c_term_from_parent(void)
{
	int kq = t_kqueue();
	t_change(kq, SIGTERM, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	say_ready();
	char c;   /* the parent sends SIGTERM, then closes go: EOF */
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	T_FAIL("survived SIGTERM at SIG_DFL");
}

static void c_term_self(void)
{
	int kq = t_kqueue();
	t_change(kq, SIGTERM, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	kill(getpid(), SIGTERM);
	T_FAIL("survived SIGTERM at SIG_DFL (kill returned)");
}

static void c_usr1_set_default(void)
{
	t_on_signal(SIGUSR1, on_usr1, 0);
	int kq = t_kqueue();
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	if (signal(SIGUSR1, SIG_DFL) == SIG_ERR)
		T_FAIL("signal(SIG_DFL): %s", strerror(errno));
	kill(getpid(), SIGUSR1);
	T_FAIL("survived SIGUSR1 at SIG_DFL (kill returned)");
}

static void c_tstp(void)
{
	int kq = t_kqueue();
	int ud;
	T_EQ(setpgid(0, 0), 0);
	t_change(kq, SIGTSTP, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	say_ready();
	wait_go();
	T_WAIT1(kq, 2000, SIGTSTP, EVFILT_SIGNAL, EV_CLEAR, 0, 1, &ud);
	T_NO_EVENTS(kq);
}

static void c_winch(void)
{
	int kq = t_kqueue();
	int ud;
	t_change(kq, SIGWINCH, EVFILT_SIGNAL, EV_ADD, 0, 0, &ud);
	T_EQ(kill(getpid(), SIGWINCH), 0);
	T_EQ(kill(getpid(), SIGWINCH), 0);
	T_WAIT1(kq, 2000, SIGWINCH, EVFILT_SIGNAL, EV_CLEAR, 0, 2, &ud);
	T_NO_EVENTS(kq);
}

static pid_t start(void (*fn)(void))
{
	child = ts_fork_ready_go(ready, go);
	if (child == 0) {
		alarm(0);
		fn();
		exit(0);
	}
	return child;
}

static int finish(void)
{
	int st;
	T_EQ(waitpid(child, &st, 0), child);
	close(ready[0]);
	if (go[1] >= 0)
		close(go[1]);
	child = 0;
	return st;
}

int main(void)
{
	char c;
	int st;

	t_on_signal(SIGALRM, on_deadline, 0);
	alarm(3);

	pid_t pid = start(c_term_from_parent);
	T_EQ(read(ready[0], &c, 1), 1);
	T_EQ(kill(pid, SIGTERM), 0);
	close(go[1]);   /* a survivor reads EOF and says so */
	go[1] = -1;
	ts_expect_killed("SIGTERM from the parent", finish(), SIGTERM);

	start(c_term_self);
	ts_expect_killed("SIGTERM to self", finish(), SIGTERM);

	start(c_usr1_set_default);
	ts_expect_killed("SIGUSR1 set to SIG_DFL with the knote", finish(),
		      SIGUSR1);

	pid = start(c_tstp);
	T_EQ(read(ready[0], &c, 1), 1);
	T_EQ(kill(pid, SIGTSTP), 0);
	T_EQ(waitpid(pid, &st, WUNTRACED), pid);
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTSTP)
		T_FAIL("SIGTSTP: child not stopped by SIGTSTP (status 0x%x%s)",
		       st, WIFSTOPPED(st) ? ", stopped by another signal" :
		       "");
	T_EQ(kill(pid, SIGCONT), 0);
	t_write(go[1], "g", 1);
	ts_expect_ok("SIGTSTP", finish());

	start(c_winch);
	ts_expect_ok("SIGWINCH", finish());
	alarm(0);
	return 0;
}
