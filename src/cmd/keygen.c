/* sandprobe keygen --out PREFIX: an Ed25519 key pair for signing evidence
 * (PREFIX.key: PEM PKCS#8 "PRIVATE KEY", mode 0600; PREFIX.pub: PEM "PUBLIC KEY").
 * Existing files are never overwritten. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "core/error.h"
#include "core/util.h"
#include "evidence/evidence.h"

int cmd_keygen(int argc, char **argv)
{
	static const struct option lo[] = {{"out", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
					    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *prefix = NULL;
	bool quiet = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:q", lo, NULL)) != -1) {
		switch (c) {
		case 'o': prefix = optarg; break;
		case 'q': quiet = true; break;
		case 'h':
			printf("usage: sandprobe keygen -o|--out PREFIX [-q|--quiet]\n\n"
			       "Writes an Ed25519 key pair: PREFIX.key (PEM PKCS#8, mode 0600) for\n"
			       "'sandprobe soak --sign-key' and PREFIX.pub (PEM) for 'sandprobe verify --pubkey'.\n"
			       "Refuses to overwrite existing files. Prints both paths unless --quiet.\n"
			       "\n"
			       "  -o, --out PREFIX   where to write PREFIX.key and PREFIX.pub (required)\n"
			       "  -q, --quiet        do not print the paths\n");
			return SP_EXIT_OK;
		default:
			fprintf(stderr, "sandprobe: keygen: unknown option or missing value '%s' (try --help)\n", argv[optind - 1]);
			return SP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sandprobe: keygen: unexpected argument '%s'\n", argv[optind]);
		return SP_EXIT_USAGE;
	}
	if (!prefix || !prefix[0]) {
		fprintf(stderr, "sandprobe: keygen: --out PREFIX is required\n");
		return SP_EXIT_USAGE;
	}
	_cleanup_free_ char *key = sp_xasprintf("%s.key", prefix);
	sp_error err = {0};
	if (sp_output_check("keygen", "--out", key, &err) < 0)
		return sp_error_report(&err);
	_cleanup_free_ char *pub = sp_xasprintf("%s.pub", prefix);
	if (access(key, F_OK) == 0 || access(pub, F_OK) == 0) {
		fprintf(stderr, "sandprobe: keygen: %s or %s already exists; not overwriting\n", key, pub);
		return SP_EXIT_USAGE;
	}
	void *k = sp_ev_keygen();
	if (!k) {
		fprintf(stderr, "sandprobe: keygen: cannot generate an Ed25519 key\n");
		return SP_EXIT_INTERNAL;
	}
	sp_outcome o = {0};
	int r = sp_ev_pem_write(key, 0600, k, true, &o);
	if (r == 0) {
		r = sp_ev_pem_write(pub, 0644, k, false, &o);
		if (r < 0)
			unlink(key);
	}
	sp_pubkey_free(k);
	if (r < 0) {
		int e = o.errnum;
		fprintf(stderr, "sandprobe: keygen: cannot write %s: %s\n", e == EEXIST ? key : prefix, o.why);
		return e == EEXIST || e == ENOENT || e == EACCES ? SP_EXIT_USAGE : SP_EXIT_INTERNAL;
	}
	if (!quiet)
		printf("%s\n%s\n", key, pub);
	return SP_EXIT_OK;
}
