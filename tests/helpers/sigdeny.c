/* sigdeny SIGNO CMD [ARG...]: runs CMD under a seccomp filter that refuses
 * kill(2) of signal SIGNO (EPERM) and allows everything else: a sandbox whose
 * processes cannot send that one signal (a deliberately weakened sandbox for
 * the doctor's signal checks). */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sigdeny SIGNO CMD [ARG...]\n");
		return 2;
	}
	int sig = atoi(argv[1]);
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)sig)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), 1, SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)sig)) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0) {
		fprintf(stderr, "sigdeny: cannot install the filter\n");
		return 1;
	}
	seccomp_release(ctx);
	execvp(argv[2], argv + 2);
	perror("sigdeny: exec");
	return 127;
}
