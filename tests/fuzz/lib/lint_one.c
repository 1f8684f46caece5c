/* The entry point the libFuzzer harnesses (tests/fuzz/fuzz_lint_<kind>.c)
 * call: parse bytes as one kind, with fixed companion files so that the
 * relation rules run too, then render every output format. Files outside
 * the input are never read (no squid include or acl files). */
#include "lint_one.h"

#include <stdio.h>

static const char companion_allowlist[] =
	"{\"domains\": {\"api.example.com\": \"rw\", \"pypi.org\": \"ro\"},"
	" \"inference_providers\": [\"api.example.com\"], \"forbidden_hosts\": [\"telemetry.example.net\"]}";
static const char companion_squid[] = "http_port 127.0.0.1:3128\n"
				      "acl rw dstdomain api.example.com\n"
				      "acl ro dstdomain .pypi.org\n"
				      "acl get method GET HEAD\n"
				      "http_access allow rw\n"
				      "http_access allow ro get\n"
				      "http_access deny all\n";
static const char companion_oci[] = "{\"ociVersion\": \"1.0.2\", \"process\": {\"env\": "
				    "[\"HTTPS_PROXY=http://localhost:3128\"]}, \"root\": {\"path\": \"rootfs\"}}";

int sp_lint_fuzz_one(sp_lint_kind kind, const unsigned char *data, size_t size)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "we");
	sp_lint l;
	sp_lint_opts o = {.require_runtime_class = "runsc", .no_external_files = true};
	sp_lint_init(&l, &o);
	sp_error err;
	sp_error_clear(&err);
	int rc = sp_lint_add_buffer(&l, "fuzz.input", (const char *)data, size, kind, &err);
	bool bad = rc < 0 && err.exit_code != SP_EXIT_INTERNAL;
	if (bad)
		rc = 0; /* a malformed input is a finding: the run and the writers go on */
	if (rc == 0 && kind == SP_LK_SQUID)
		rc = sp_lint_add_buffer(&l, "allow.json", companion_allowlist, sizeof companion_allowlist - 1,
					SP_LK_ALLOWLIST, &err) |
		     sp_lint_add_buffer(&l, "config.json", companion_oci, sizeof companion_oci - 1, SP_LK_OCI, &err);
	else if (rc == 0 && kind != SP_LK_KUBE)
		rc = sp_lint_add_buffer(&l, "squid.conf", companion_squid, sizeof companion_squid - 1, SP_LK_SQUID, &err);
	if (rc == 0) {
		sp_lint_run(&l);
		if (null) {
			sp_lint_write(null, SP_LF_TEXT, &l, SP_SEV_WARNING);
			sp_lint_write(null, SP_LF_JSON, &l, SP_SEV_WARNING);
			sp_lint_write(null, SP_LF_SARIF, &l, SP_SEV_WARNING);
		}
	}
	sp_lint_free(&l);
	return 0;
}
