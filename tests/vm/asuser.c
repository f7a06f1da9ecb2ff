// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mroce-asuser UID CMD [ARGS]: run CMD as user and group UID, with no
 * supplementary groups and no capabilities (the guest has no util-linux
 * setpriv, and busybox's cannot change ids). For the guest tests that
 * check what an unprivileged local user can see or do.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	unsigned long id;

	if (argc < 3) {
		fprintf(stderr, "usage: %s UID CMD [ARGS]\n", argv[0]);
		return 2;
	}
	id = strtoul(argv[1], &end, 10);
	if (*end || !id || id > 0xfffffffeUL) {
		fprintf(stderr, "%s: bad uid %s\n", argv[0], argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(id, id, id) ||
	    setresuid(id, id, id)) {
		perror("mroce-asuser: dropping privileges");
		return 1;
	}
	/* a uid change from 0 clears every capability set */
	if (!setresuid(0, 0, 0)) {
		fprintf(stderr, "mroce-asuser: root came back\n");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
