/* SPDX-License-Identifier: BSD-2-Clause */
/* The helper library of the lifetime-* tests (foreign.c): libc calls made
 * from a shared library that does not link libkq. */
#ifndef KQ_TEST_FOREIGN_H
#define KQ_TEST_FOREIGN_H

int foreign_close(int fd);
int foreign_raw_close(int fd);
int foreign_dup2(int oldfd, int newfd);
int foreign_dup3(int oldfd, int newfd, int flags);
int foreign_close_range(unsigned first, unsigned last, int flags);
void foreign_closefrom(int lowfd);
/* getsockopt(SO_ERROR): 0 or -1 (errno), the error in *err */
int foreign_so_error(int fd, int *err);
int foreign_connect(int fd, const void *addr, unsigned len);
/* recv/send/read/write: the call's result, errno set on -1 */
long foreign_recv(int fd, void *buf, unsigned long n);
long foreign_send(int fd, const void *buf, unsigned long n);
long foreign_read(int fd, void *buf, unsigned long n);
long foreign_write(int fd, const void *buf, unsigned long n);
void (*foreign_signal(int sig, void (*h)(int)))(int);
int foreign_sigaction(int sig, void (*h)(int), int flags);
/* sockets made and copied by the library (births, lifetime-close-*) */
int foreign_socketpair(int domain, int type, int protocol, int sv[2]);
int foreign_accept4(int fd, int flags);
int foreign_dup(int fd);
/* fcntl() with its third argument passed on as one word, as glibc reads it */
int foreign_fcntl(int fd, int cmd, ...);

#endif
