/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A private socket (accept4 or socketpair with SOCK_CLOEXEC) sent in
 * SCM_RIGHTS has a copy wherever it is received -- here the process
 * itself, over an AF_UNIX socketpair, the received copy kept open.  close()
 * of the original does not free the file, so the kernel keeps its epoll
 * entry, and libkq must make the EPOLL_CTL_DEL it skips for private
 * sockets.  Checked: no entry for the closed number in the kqueue's epoll
 * set, no record and no spinning when the peer writes, and a new socket at
 * the number watched afresh.
 */
#include "births.h"

static int u[2] = { -1, -1 };

static int copy(struct birth *b)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char byte = 'f';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg;
	struct cmsghdr *c;
	int got;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, u) != 0)
		T_FAIL("socketpair: %s", strerror(errno));
	memset(&msg, 0, sizeof msg);
	memset(&ctl, 0, sizeof ctl);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof ctl.buf;
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &b->fd, sizeof(int));
	T_EQ(sendmsg(u[0], &msg, 0), 1);

	memset(&ctl, 0, sizeof ctl);
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof ctl.buf;
	T_EQ(recvmsg(u[1], &msg, MSG_CMSG_CLOEXEC), 1);
	c = CMSG_FIRSTHDR(&msg);
	T_ASSERT(c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS);
	memcpy(&got, CMSG_DATA(c), sizeof got);
	T_ASSERT(got >= 0 && got != b->fd);
	T_ASSERT(close(u[0]) == 0);
	T_ASSERT(close(u[1]) == 0);
	return got;   /* kept open until the end */
}

int main(void)
{
	birth_copied_then_closed(BIRTH_ACCEPT4, BIRTH_PROGRAM, copy, "sent in SCM_RIGHTS");
	birth_copied_then_closed(BIRTH_SOCKETPAIR, BIRTH_PROGRAM, copy, "sent in SCM_RIGHTS");
	birth_copied_then_closed(BIRTH_SOCKETPAIR | BIRTH_PARKED, BIRTH_PROGRAM, copy,
				 "sent in SCM_RIGHTS");
	return 0;
}
