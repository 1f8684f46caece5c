/* A lying doctor for tests/live/lies.t: a static binary that `sandprobe live
 * --doctor` copies into the sandbox in place of the real one. It answers
 * --list with a small catalogue and otherwise prints a forged report chosen
 * by SP_FAKE_MODE (bwrap passes the environment through):
 *   lie      well-formed, every check passes, observations that contradict
 *            what the host sees (namespace links, empty capability sets)
 *   summary  like lie, but the summary counts do not match the results
 *   garbage  not JSON at all
 *   huge     a well-formed report with a 5 MiB detail field
 *   unknown  a result id that is not in the catalogue
 *   nnp-off  like lie, but NoNewPrivs read as gVisor's doctor reads it (no
 *            status line, prctl) and off
 *   nnp-unreadable  like lie, but NoNewPrivs readable neither way
 *   boundary like lie, claiming a user-space kernel its policy accepts
 * The mode can also come as `--set sp_fake.mode=MODE` (sandprobe live --set),
 * for runtimes that do not pass the environment through (gVisor). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ids[][3] = {
	{"ns.pid", "namespaces", "ns.required"},	  {"ns.net", "namespaces", "ns.required"},
	{"ns.mnt", "namespaces", "ns.required"},	  {"caps.effective", "privileges", "caps.effective"},
	{"caps.bounding", "privileges", "caps.bounding"}, {"priv.no_new_privs", "privileges", "priv.no_new_privs"},
	{"seccomp.mode", "seccomp", "seccomp.required"},  {"fs.rootfs_readonly", "filesystem", "fs.rootfs_readonly"},
};
#define N (sizeof ids / sizeof ids[0])

static const char *mode = "lie";

static const char *observed(const char *id)
{
	if (!strcmp(id, "ns.pid"))
		return "pid:[1]";
	if (!strcmp(id, "ns.net"))
		return "net:[2]";
	if (!strcmp(id, "ns.mnt"))
		return "mnt:[3]";
	if (!strcmp(id, "caps.effective"))
		return "CapEff 0000000000000000 (none)";
	if (!strcmp(id, "caps.bounding"))
		return "CapBnd 0000000000000000 (none)";
	if (!strcmp(id, "priv.no_new_privs"))
		return !strcmp(mode, "nnp-off")	       ? "NoNewPrivs absent from /proc/self/status (ENOENT); 0 from prctl"
		       : !strcmp(mode, "nnp-unreadable") ? "NoNewPrivs: ENOENT in status, PR_GET_NO_NEW_PRIVS: EINVAL"
							 : "NoNewPrivs 1 in status, 1 from prctl";
	if (!strcmp(id, "seccomp.mode"))
		return "Seccomp 2, Seccomp_filters 1, PR_GET_SECCOMP 2";
	return "create at / failed with EROFS; mountinfo / ro (ext4)";
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--list")) {
			printf("{\"schema\":\"sandprobe.checks.v1\",\"checks\":[");
			for (size_t k = 0; k < N; k++)
				printf("%s{\"id\":\"%s\",\"category\":\"%s\",\"policy\":{\"%s\":\"\"}}", k ? "," : "", ids[k][0],
				       ids[k][1], ids[k][2]);
			printf("]}\n");
			return 0;
		}
	if (getenv("SP_FAKE_MODE"))
		mode = getenv("SP_FAKE_MODE");
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--set") && !strncmp(argv[i + 1], "sp_fake.mode=", 13))
			mode = argv[i + 1] + 13;
	if (!strcmp(mode, "garbage")) {
		printf("everything is fine, trust me\n");
		return 0;
	}
	printf("{\"schema\":\"sandprobe.doctor.v1\",\"environment\":{\"kernel\":\"6.0.0-fake\"%s},\"results\":[",
	       !strcmp(mode, "boundary") ? ",\"kernel_boundary\":{\"kind\":\"user-space\",\"accepted\":true}" : "");
	for (size_t k = 0; k < N; k++) {
		printf("%s{\"id\":\"%s\",\"status\":\"pass\",\"expected\":\"\",\"observed\":\"%s\",\"detail\":\"", k ? "," : "",
		       !strcmp(mode, "unknown") && k == 0 ? "ns.invented" : ids[k][0], observed(ids[k][0]));
		if (!strcmp(mode, "huge") && k == 0)
			for (int j = 0; j < 5 * 1024; j++)
				printf("%01024d", 0);
		printf("fine\"}");
	}
	printf("],\"summary\":{\"pass\":%zu,\"fail\":0,\"skip\":0,\"warn\":0,\"error\":0},\"result\":\"pass\"}\n",
	       !strcmp(mode, "summary") ? N + 3 : N);
	return 0;
}
