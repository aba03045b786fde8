/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a descriptor is, as far as EVFILT_READ/WRITE care, and how to measure
 * its `data`.  The kind is learned on the first evaluation of a READ
 * knote (an EV_ADD of one costs one epoll_ctl and nothing else) and at the
 * registration of a WRITE knote (FreeBSD refuses one on a pipe without
 * reader); for a socket that first look is one getsockopt.
 */
#ifndef KQ_FDKIND_H
#define KQ_FDKIND_H

#include <stdbool.h>
#include <stdint.h>

enum {
	KQ_FD_UNKNOWN = 0,
	KQ_FD_PIPE,          /* anonymous pipe */
	KQ_FD_FIFO,          /* named pipe: EOF clears when a writer returns */
	KQ_FD_STREAM,        /* connection-oriented socket, not listening */
	KQ_FD_TCP,           /* ... TCP: its poll honours SO_RCVLOWAT */
	KQ_FD_DGRAM,         /* datagram socket */
	KQ_FD_LISTEN_INET,   /* listening TCP socket */
	KQ_FD_LISTEN_UNIX,   /* listening AF_UNIX socket */
	KQ_FD_LISTEN_OTHER,
	KQ_FD_TTY,
	KQ_FD_EVENTFD,
	KQ_FD_KQUEUE,        /* one of our kqueues */
	KQ_FD_OTHER,         /* anything else epoll can watch */
	KQ_FD_FILE,          /* regular file or directory: epoll refuses it */
	KQ_FD_ALWAYS,        /* epoll refuses it and it is no file: poll() says ready */
};

int kq_fd_classify(int fd);                          /* kind or -errno */
int kq_fd_classify_first(int fd);    /* cheaper; a listener may come out as STREAM */
int kq_socket_kind(int domain, int type, int protocol);   /* what socket() makes, or 0 */
int kq_fd_inq(int fd, int64_t *out);                 /* FIONREAD */
int kq_sock_sndbuf(int fd, int64_t *out);            /* SO_SNDBUF */
int kq_sock_space(int fd, int64_t *out);             /* SO_SNDBUF - SIOCOUTQ */
int kq_pipe_space(int fd, int64_t *out);             /* capacity - buffered */
int kq_listen_backlog(int fd, int kind, int64_t *out, int *diag);  /* diag: see fdkind.c */
int kq_file_remaining(int fd, int64_t *out);         /* size - offset */
int kq_tty_space(int fd, int64_t *out);

/* efdinfo.c: an eventfd's counter, read through a kept fdinfo file */
struct kqueue;
int  kq_eventfd_count(struct kqueue *kq, int fd, uint64_t *out);
void kq_efdinfo_drop(struct kqueue *kq, int fd);        /* its knotes are gone */
void kq_efdinfo_fini(struct kqueue *kq, bool free_it);

#endif
