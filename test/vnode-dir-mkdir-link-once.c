/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A subdirectory created in a watched directory raises the directory's link
 * count once, and FreeBSD reports that once: NOTE_WRITE|NOTE_LINK with the
 * mkdir (vop_mkdir_post).  A later attribute change of the directory is
 * NOTE_ATTRIB alone; the link count change must not be reported again.
 */
#include "t_vnode.h"

int main(void)
{
	int kq = t_kqueue(), kql = t_kqueue();
	const char *top = vt_mkdir();
	char sub[128];
	void *ud = (void *)0x2b;

	snprintf(sub, sizeof sub, "%s/s", top);
	int dfd = open(top, O_RDONLY | O_DIRECTORY);
	T_ASSERT(dfd >= 0);
	t_change(kq, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR,
		 NOTE_LINK | NOTE_ATTRIB | NOTE_WRITE, 0, ud);
	/* asks for nothing an attribute change posts */
	t_change(kql, dfd, EVFILT_VNODE, EV_ADD | EV_CLEAR, NOTE_LINK, 0, ud);

	T_ASSERT(mkdir(sub, 0700) == 0);
	WANT1_ONLY(kq, dfd, NOTE_WRITE | NOTE_LINK, ud);
	WANT1_ONLY(kql, dfd, NOTE_WRITE | NOTE_LINK, ud);

	T_ASSERT(chmod(top, 0750) == 0);
	WANT1_ONLY(kq, dfd, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kql);

	T_ASSERT(fchmod(dfd, 0700) == 0);
	WANT1_ONLY(kq, dfd, NOTE_ATTRIB, ud);
	T_NO_EVENTS(kql);
	return 0;
}
