/* SPDX-License-Identifier: BSD-2-Clause */
/* The library linked with -lkq of the lifetime-linked-library test. */
#ifndef KQ_TEST_SHIM_H
#define KQ_TEST_SHIM_H

int shim_kqueue(void);
/* one change with EV_RECEIPT: 0 or the errno of its EV_ERROR record */
int shim_change(int kq, int ident, int filter, int flags);
/* waits at most ms for one record: kevent()'s result */
int shim_wait(int kq, int ms, long long *data, unsigned *fflags, int *ident);
int shim_close(int fd);
int shim_socketpair(int sv[2]);     /* AF_UNIX stream, inheritable */
int shim_ignore(int sig);           /* sigaction(sig, SIG_IGN) */
int shim_so_error(int fd);          /* getsockopt(SO_ERROR), or -1 */

#endif
