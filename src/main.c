/* sandprobe: command table. verb -> cmd_<verb>(). The static in-sandbox
 * binary (sandprobe-doctor, built with SP_DOCTOR_ONLY) carries only the
 * doctor verb and runs it when called by that name or with no verb. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/util.h"
#include "core/version.h"

/* an allocation failed anywhere (core/util.h): one line and exit 3 */
__attribute__((noreturn)) static void out_of_memory(void)
{
	static const char msg[] = "sandprobe: out of memory\n";
	ssize_t r = write(2, msg, sizeof msg - 1);
	(void)r;
	_exit(SP_EXIT_INTERNAL);
}

#ifndef SP_DOCTOR_ONLY
struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct verb verbs[] = {
	{"doctor", cmd_doctor, "run the isolation checks inside this sandbox against a policy"},
	{"live", cmd_live, "launch a sandbox with a real runtime, run the doctor inside, check from the host"},
	{"lint", cmd_lint, "validate sandbox configuration files without running anything"},
	{"soak", cmd_soak, "run a workload for a profile's duration and write an evidence bundle"},
	{"verify", cmd_verify, "judge an evidence bundle against its gates"},
	{"report", cmd_report, "render an evidence bundle as a self-contained HTML page"},
	{"gate", cmd_gate, "decide a release candidate's promotion from a plan and verified bundles"},
	{"fleet", cmd_fleet, "render one Kubernetes Job per RuntimeClass x node from a fleet plan, collect their reports"},
	{"import", cmd_import, "turn an A3S Box evidence bundle into a sandprobe one"},
	{"atlas", cmd_atlas, "print the threat-model crosswalk (MITRE ATLAS / ATT&CK)"},
	{"keygen", cmd_keygen, "create an Ed25519 key pair for signing evidence"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sandprobe <verb> [options]\n\n"
		   "sandprobe proves that a sandbox isolates what its owner believes it does.\n\nverbs:\n");
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\n'sandprobe <verb> --help' explains each verb; 'man sandprobe' has more.\n"
		   "exit codes: 0 passed, 1 a check/gate/finding failed, 2 usage error, 3 internal error\n");
}
#endif

int main(int argc, char **argv)
{
	sp_set_oom_handler(out_of_memory);
#ifdef SP_DOCTOR_ONLY
	/* a lone static binary: "sandprobe-doctor [doctor] [options]" */
	if (argc >= 2 && strcmp(argv[1], "doctor") == 0)
		return cmd_doctor(argc - 1, argv + 1);
	/* sandprobe live's lanes from the doctor image: the doctor holds the sandbox open itself */
	if (argc >= 2 && strcmp(argv[1], "--live-lane") == 0)
		return cmd_live_lane(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("sandprobe-doctor %s\n", SP_VERSION);
		return 0;
	}
	return cmd_doctor(argc, argv);
#else
	if (argc < 2) {
		usage(stderr);
		return SP_EXIT_USAGE;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (!strcmp(verb, "--version") || !strcmp(verb, "version")) {
		printf("sandprobe %s\n", SP_VERSION);
		return SP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
		if (!strcmp(verb, verbs[i].name))
			return verbs[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "sandprobe: unknown verb '%s' (try 'sandprobe --help')\n", verb);
	return SP_EXIT_USAGE;
#endif
}
