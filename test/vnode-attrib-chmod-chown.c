/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fchmod(), chmod() and fchown() are each reported as exactly
 * NOTE_ATTRIB (FreeBSD posts NOTE_ATTRIB for every successful VOP_SETATTR,
 * vfs_subr.c vop_setattr_post).  fchown() is done as an unprivileged user
 * can: to the file's own uid and gid.  No id changes, but it is still a
 * successful attribute change (the ctime moves; Linux sends IN_ATTRIB) and
 * FreeBSD reports it.  Root could chown to another owner; the test
 * deliberately does not, so its result does not depend on privilege.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue();
	char path[128];
	struct stat st;
	void *ud = (void *)0x106;
	int fd = vt_file(path, sizeof path);

	T_ASSERT(fstat(fd, &st) == 0);
	t_change(kq, fd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_ATTRIB | NOTE_WRITE, 0, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(fchmod(fd, 0640) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(chmod(path, 0600) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);

	T_ASSERT(fchown(fd, st.st_uid, st.st_gid) == 0);
	WANT1(kq, fd, EV_CLEAR, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kq);
	return 0;
}
