/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A signal the program ignores stays ignored in the child of popen(), as
 * on FreeBSD, while an EVFILT_SIGNAL knote watches it (the C library's own
 * popen() sets every handled signal to the default in the child, and the
 * watched signal has libkq's handler).  The shell sends itself SIGUSR1 and
 * must live to say so; pclose() gives its exit status.
 */
#include "t.h"

#include <sys/wait.h>

static void run(const char *what)
{
	char line[64] = "";
	FILE *f = popen("kill -USR1 $$; echo alive; exit 5", "r");
	T_ASSERT(f != NULL);
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	int st = pclose(f);
	if (strcmp(line, "alive\n") != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
		T_FAIL("%s: the shell said \"%s\" and ended with status %#x, expected "
		       "\"alive\" and exit 5 (SIGUSR1 must stay ignored)", what, line, st);
}

int main(void)
{
	int kq = t_kqueue();

	T_ASSERT(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
	run("SIGUSR1 ignored");
	t_change(kq, SIGUSR1, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
	run("SIGUSR1 ignored and watched");
	T_NO_EVENTS(kq);
	return 0;
}
