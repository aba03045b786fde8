/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * system(), popen() and pclose(): glibc starts their children inside
 * itself, with a posix_spawn() libkq cannot catch, so it would not know
 * that the child copies the program's descriptors (fdtab.c, children) nor
 * keep a watched signal the program ignores ignored in it
 * (kq_signal_spawn_enter).  These are glibc's calls (2.29 and later) made
 * again on kq_spawn(), with their contract:
 *   system()  /bin/sh -c; system(NULL) says whether a shell runs; while it
 *             waits, SIGINT and SIGQUIT are ignored and SIGCHLD blocked in
 *             the caller (the first of concurrent calls saves the
 *             dispositions, the last puts them back); the child has them
 *             at the default and the caller's mask; a shell that cannot be
 *             started is status 127 (errno says why); a cancellation point,
 *             where a cancelled caller kills its child and reaps it;
 *   popen()   "r" or "w", with "e" for a close-on-exec stream, anything
 *             else EINVAL; the child closes the streams of earlier popen()
 *             calls still open (POSIX); a child that cannot be made is NULL
 *             with ENOMEM, as glibc says;
 *   pclose()  fclose() of the stream, then the child's status, waited for
 *             through EINTR; -1 (ECHILD) when the child was reaped already.
 *             As in glibc, pclose() and fclose() are one call: either
 *             closes either kind of stream, and waits for a popen() child.
 * Exported as src/export.h describes.
 */
#include "kq.h"
#include "sys.h"
#include "export.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define SHELL_PATH "/bin/sh"

/* ---- system() ---- */

/* Concurrent system() calls share the ignoring of SIGINT and SIGQUIT. */
static pthread_mutex_t sys_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned sys_users;
static struct sigaction sys_intr, sys_quit;

/* The last user puts back what the first saved. */
static int sys_leave(void)
{
	int r = 0;
	pthread_mutex_lock(&sys_lock);
	if (--sys_users == 0)
		r = KQ_CALL(sigaction)(SIGINT, &sys_intr, NULL) |
		    KQ_CALL(sigaction)(SIGQUIT, &sys_quit, NULL);
	pthread_mutex_unlock(&sys_lock);
	return r;
}

/* A caller cancelled while it waits: its child goes with it. */
static void sys_cancelled(void *arg)
{
	pid_t pid = *(pid_t *)arg;
	int e = errno;
	kill(pid, SIGKILL);
	while (KQ_SYSCALL(SYS_wait4, pid, NULL, 0, NULL) == -EINTR)
		;
	sys_leave();
	errno = e;
}

static int run_shell(const char *line)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigemptyset(&ign.sa_mask);
	pthread_mutex_lock(&sys_lock);
	if (sys_users++ == 0) {
		KQ_CALL(sigaction)(SIGINT, &ign, &sys_intr);
		KQ_CALL(sigaction)(SIGQUIT, &ign, &sys_quit);
	}
	/* the child's defaults, from what the first user saved */
	sigset_t dfl;
	sigemptyset(&dfl);
	if (sys_intr.sa_handler != SIG_IGN)
		sigaddset(&dfl, SIGINT);
	if (sys_quit.sa_handler != SIG_IGN)
		sigaddset(&dfl, SIGQUIT);
	pthread_mutex_unlock(&sys_lock);

	sigset_t chld, omask;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);

	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setsigmask(&attr, &omask);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	char *argv[] = { "sh", "-c", (char *)line, NULL };
	pid_t pid;
	int status = -1;
	int err = kq_spawn(false, &pid, SHELL_PATH, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (err == 0) {
		pthread_cleanup_push(sys_cancelled, &pid);
		pid_t w;
		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (w != pid)
			status = -1;
		pthread_cleanup_pop(0);
	} else {
		/* POSIX: as if the shell had ended with _exit(127) */
		status = 127 << 8;
	}
	int e = errno;
	if ((sys_leave() | sigprocmask(SIG_SETMASK, &omask, NULL)) != 0)
		status = -1;
	else
		errno = err ? err : e;
	return status;
}

int KQ_INTERPOSE(system)(const char *line)
{
	if (!line)
		return run_shell("exit 0") == 0;
	return run_shell(line);
}

/* ---- popen() and pclose() ---- */

/* The streams popen() made and not yet closed, each with its child. */
struct piped {
	FILE *f;
	pid_t pid;
	struct piped *next;
};
static pthread_mutex_t piped_lock = PTHREAD_MUTEX_INITIALIZER;
static struct piped *piped;
/* how many: fclose() of any other stream reads only this */
static atomic_uint npiped;

/* KQ_INTERPOSE's attributes follow the type: FILE * in one word */
typedef FILE *stream;

stream KQ_INTERPOSE(popen)(const char *command, const char *mode)
{
	bool rd = false, wr = false, cloexec = false;
	for (const char *m = mode; *m; m++) {
		if (*m == 'r')
			rd = true;
		else if (*m == 'w')
			wr = true;
		else if (*m == 'e')
			cloexec = true;
		else
			rd = wr;   /* invalid: the check below fails */
	}
	if (rd == wr) {
		errno = EINVAL;
		return NULL;
	}
	struct piped *p = malloc(sizeof *p);
	int fds[2];
	if (!p)
		return NULL;
	/* close-on-exec at first, so a concurrent spawn leaks neither end */
	if (pipe2(fds, O_CLOEXEC) != 0) {
		free(p);
		return NULL;
	}
	int mine = rd ? fds[0] : fds[1], its = rd ? fds[1] : fds[0];
	int target = rd ? STDOUT_FILENO : STDIN_FILENO;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	int err = ENOMEM;
	FILE *f = NULL;
	/* a dup2 onto itself would leave it close-on-exec */
	if (its == target) {
		int t = sys_fcntl(its, F_DUPFD_CLOEXEC, 0);
		if (t < 0)
			goto out;
		sys_close(its);
		its = t;
	}
	if (posix_spawn_file_actions_adddup2(&fa, its, target) != 0)
		goto out;
	char *argv[] = { "sh", "-c", (char *)command, NULL };
	pthread_mutex_lock(&piped_lock);
	for (struct piped *q = piped; q; q = q->next) {
		int fd = fileno(q->f);
		if (fd != target && posix_spawn_file_actions_addclose(&fa, fd) != 0) {
			pthread_mutex_unlock(&piped_lock);
			goto out;
		}
	}
	if (kq_spawn(false, &p->pid, SHELL_PATH, &fa, NULL, argv, environ) == 0) {
		sys_close(its);
		its = -1;
		if (!cloexec)
			sys_fcntl(mine, F_SETFD, 0);
		f = fdopen(mine, rd ? "r" : "w");
		if (f) {
			p->f = f;
			p->next = piped;
			piped = p;
			atomic_fetch_add(&npiped, 1);
		} else {
			err = errno;
			sys_close(mine);
			while (KQ_SYSCALL(SYS_wait4, p->pid, NULL, 0, NULL) == -EINTR)
				;
		}
	}
	pthread_mutex_unlock(&piped_lock);
out:
	posix_spawn_file_actions_destroy(&fa);
	if (f)
		return f;
	if (its >= 0) {
		sys_close(its);
		sys_close(mine);
	}
	free(p);
	errno = err;
	return NULL;
}

pid_t kq_popen_forget(FILE *f)
{
	if (!atomic_load_explicit(&npiped, memory_order_acquire))
		return -1;
	pid_t pid = -1;
	struct piped *gone = NULL;
	pthread_mutex_lock(&piped_lock);
	for (struct piped **q = &piped; *q; q = &(*q)->next) {
		if ((*q)->f == f) {
			gone = *q;
			*q = gone->next;
			pid = gone->pid;
			atomic_fetch_sub(&npiped, 1);
			break;
		}
	}
	pthread_mutex_unlock(&piped_lock);
	free(gone);
	return pid;
}

/* After fclose() gave `closed`: the child's status. */
int kq_popen_wait(pid_t child, int closed)
{
	int status;
	pid_t w;
	if (closed < 0)
		return -1;
	/* not a cancellation point here, as in glibc */
	int state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	while ((w = waitpid(child, &status, 0)) < 0 && errno == EINTR)
		;
	pthread_setcancelstate(state, NULL);
	return w == child ? status : -1;
}

/* glibc's pclose() is its fclose(), which waits for a popen() child. */
int KQ_INTERPOSE(pclose)(FILE *f)
{
	return KQ_CALL(fclose)(f);
}
