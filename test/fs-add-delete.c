/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EVFILT_FS is accepted: EV_ADD of {0, EVFILT_FS} succeeds (FreeBSD's
 * filt_fsattach takes any ident and forces EV_CLEAR), its EV_RECEIPT
 * record is {0, EVFILT_FS, EV_ERROR, 0, 0, udata}, and
 * nothing is reported while no file system is mounted or unmounted.
 * EV_DELETE removes it; a second EV_DELETE fails with ENOENT.  The VQ_*
 * names have FreeBSD's values and are visible through <sys/event.h>.
 */
#include "t.h"

int main(void)
{
	int kq = t_kqueue();
	void *ud = (void *)0x5401;
	struct kevent ch, ev[4];

	T_EQ(VQ_NOTRESP, 0x0001);
	T_EQ(VQ_NEEDAUTH, 0x0002);
	T_EQ(VQ_LOWDISK, 0x0004);
	T_EQ(VQ_MOUNT, 0x0008);
	T_EQ(VQ_UNMOUNT, 0x0010);
	T_EQ(VQ_DEAD, 0x0020);
	T_EQ(VQ_ASSIST, 0x0040);
	T_EQ(VQ_NOTRESPLOCK, 0x0080);
	T_EQ(VQ_FLAG0100, 0x0100);
	T_EQ(VQ_FLAG8000, 0x8000);

	EV_SET(&ch, 0, EVFILT_FS, EV_ADD | EV_RECEIPT, VQ_MOUNT | VQ_UNMOUNT,
	       0, ud);
	T_EQ(kevent(kq, &ch, 1, ev, 4, NULL), 1);
	T_KEVENT(&ev[0], 0, EVFILT_FS, EV_ERROR, 0, 0,
		 ud);
	T_EQ(t_wait(kq, ev, 4, 100), 0);

	/* another ident is another knote */
	t_change(kq, 7, EVFILT_FS, EV_ADD, 0, 0, ud);
	T_EQ(t_wait(kq, ev, 4, 50), 0);

	t_change(kq, 0, EVFILT_FS, EV_DELETE, 0, 0, NULL);
	T_EQ(t_change_err(kq, 0, EVFILT_FS, EV_DELETE, 0, 0, NULL), ENOENT);
	t_change(kq, 7, EVFILT_FS, EV_DELETE, 0, 0, NULL);
	T_NO_EVENTS(kq);
	return 0;
}
