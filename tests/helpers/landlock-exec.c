/* Test helper: run a command in a Landlock domain that allows file access
 * only beneath the given directories (everything else: EACCES).
 *   landlock-exec DIR[:DIR...] CMD [ARG...] */
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: landlock-exec DIR[:DIR...] CMD [ARG...]\n");
		return 2;
	}
	__u64 fs = (1ull << 13) - 1; /* every ABI v1 filesystem right */
	struct landlock_ruleset_attr ra = {.handled_access_fs = fs};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rs < 0) {
		perror("landlock_create_ruleset");
		return 1;
	}
	char *dirs = strdup(argv[1]);
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		int fd = open(d, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			perror(d);
			return 1;
		}
		struct landlock_path_beneath_attr pb = {.allowed_access = fs, .parent_fd = fd};
		if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			perror("landlock_add_rule");
			return 1;
		}
		close(fd);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		perror("landlock_restrict_self");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("execvp");
	return 127;
}
