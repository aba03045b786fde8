/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A socket made by accept4(SOCK_CLOEXEC) from a 127.0.0.1 listener
 * is private (its file's only descriptor): close() frees the file, the
 * kernel removes its epoll entries, and libkq skips the EPOLL_CTL_DEL.
 * Checked (birth_private_close_check): close() leaves no entry for the
 * number in the kqueue's epoll set, nothing is reported for it, and the
 * next socket given the number is watched afresh and reports exactly (the
 * skipped DEL must not leave the slot thinking it has one, nor the kqueue
 * skipping the DEL of a later, copied socket's close); also with the knote
 * deleted before the close (its entry parked).
 */
#include "births.h"

int main(void)
{
	birth_private_close_check(BIRTH_ACCEPT4, false);
	birth_private_close_check(BIRTH_ACCEPT4, true);
	return 0;
}
