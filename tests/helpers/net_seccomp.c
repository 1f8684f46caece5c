/* Test helper: write a seccomp BPF program (as bwrap --seccomp reads it) to
 * stdout that refuses socket() for AF_INET and AF_INET6 only:
 *   net_seccomp kill    the caller is killed (SIGSYS)
 *   net_seccomp eperm   socket() fails with EPERM
 * Everything else is allowed, so the rest of the doctor keeps working. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "kill") && strcmp(argv[1], "eperm"))) {
		fprintf(stderr, "usage: net_seccomp kill|eperm\n");
		return 2;
	}
	uint32_t act = !strcmp(argv[1], "kill") ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 1;
	int families[] = {AF_INET, AF_INET6};
	for (size_t i = 0; i < 2; i++)
		if (seccomp_rule_add(ctx, act, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[i])) < 0) {
			fprintf(stderr, "net_seccomp: cannot add the socket rule\n");
			return 1;
		}
	if (seccomp_export_bpf(ctx, STDOUT_FILENO) < 0)
		return 1;
	seccomp_release(ctx);
	return 0;
}
