/* sandprobe-doctor --live-lane NONCE [doctor options]: the doctor as the
 * entrypoint of a live lane whose sandbox has no shell (the doctor image:
 * FROM scratch, the static doctor alone). It does what the shell of the
 * rootfs lanes does (`sh -c SCRIPT NONCE DOCTOR ARGS`, lane.c):
 *
 *   print "@@NONCE-begin@@" (the sandbox started), run the doctor with the
 *   remaining options as a child (a fresh exec of this binary, so the checks
 *   run as they do under the shell: not as the sandbox's init, with their
 *   own argv), print "@@NONCE:RC@@" (its exit status), then hold the sandbox
 *   open until standard input gives a line or ends, and exit with RC.
 *
 * The host finds this process by its argv (PROG --live-lane NONCE), as it
 * finds the shell (proc.c). Orphans the doctor leaves are reaped while it
 * waits, as an init must. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/util.h"

static bool nonce_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

int cmd_live_lane(int argc, char **argv)
{
	if (argc < 3 || !nonce_ok(argv[2])) {
		fprintf(stderr, "sandprobe-doctor: --live-lane needs a nonce (letters, digits, '-'; at most 64)\n");
		return SP_EXIT_USAGE;
	}
	const char *nonce = argv[2];
	/* the doctor's own argv: this program's name, then what follows the nonce */
	char **dargv = sp_xcalloc((size_t)argc - 1, sizeof *dargv);
	dargv[0] = argv[0];
	for (int i = 3; i < argc; i++)
		dargv[i - 2] = argv[i];
	printf("@@%s-begin@@\n", nonce);
	if (fflush(stdout) != 0) {
		free(dargv);
		return SP_EXIT_INTERNAL;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sandprobe-doctor: --live-lane: fork: %s\n", strerror(errno));
		free(dargv);
		return SP_EXIT_INTERNAL;
	}
	if (pid == 0) {
		/* argv[0] as the engine ran it (/sandprobe-doctor: the doctor's comm as under the shell), else this binary */
		if (strchr(argv[0], '/'))
			execv(argv[0], dargv);
		execv("/proc/self/exe", dargv);
		fprintf(stderr, "sandprobe-doctor: --live-lane: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(dargv);
	int st = 0, rc = 0;
	for (;;) {
		pid_t w = waitpid(-1, &st, 0);
		if (w == pid) {
			rc = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
			break;
		}
		if (w < 0 && errno != EINTR) {
			rc = 255;
			break;
		}
	}
	printf("\n@@%s:%d@@\n", nonce, rc);
	fflush(stdout);
	/* held open while the host checks it: a line, or the end of standard input, releases it */
	for (;;) {
		char c;
		ssize_t n = read(0, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || c == '\n')
			break;
	}
	return rc;
}
