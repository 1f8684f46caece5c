/* The doctor's certificate helpers (mbedTLS) against OpenSSL's own answers:
 * the subject name hash of every certificate in the system's hashed
 * directory against the HASH.N name OpenSSL's rehash gave it, and SHA-256
 * fingerprints and bundle lookups against `openssl x509 -fingerprint`. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/tls_probe.h"
#include "core/util.h"
#include "unit/tap.h"

#define CERTS "/etc/ssl/certs"
#define BUNDLE CERTS "/ca-certificates.crt"

static bool hashed_name(const char *n, unsigned long *h)
{
	char *end = NULL;
	if (strlen(n) < 10 || n[8] != '.')
		return false;
	for (int i = 0; i < 8; i++)
		if (!strchr("0123456789abcdef", n[i]))
			return false;
	*h = strtoul(n, &end, 16);
	return end == n + 8;
}

int main(void)
{
	DIR *d = opendir(CERTS);
	if (!d || access(BUNDLE, R_OK) != 0) {
		printf("1..0 # SKIP no %s\n", access(BUNDLE, R_OK) ? BUNDLE : CERTS);
		return 0;
	}
	size_t checked = 0, wrong = 0;
	char first[4096] = "";
	struct dirent *e;
	while ((e = readdir(d))) {
		unsigned long want;
		if (!hashed_name(e->d_name, &want))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", CERTS, e->d_name);
		int err = 0;
		void *c = sp_tls_load_certs(path, &err);
		if (!c)
			continue;
		unsigned long got = sp_tls_subject_hash(c, 0);
		checked++;
		if (got != want) {
			wrong++;
			printf("# %s: hash %08lx\n", path, got);
		}
		if (!first[0])
			snprintf(first, sizeof first, "%s", path);
		sp_tls_free_certs(c);
	}
	closedir(d);
	ok(checked >= 10, "read %zu certificates of the hashed directory", checked);
	is_int(wrong, 0, "every subject hash is the one OpenSSL named the file by");

	/* the fingerprint against openssl's */
	char cmd[4200], line[256] = "";
	snprintf(cmd, sizeof cmd, "openssl x509 -noout -fingerprint -sha256 -in '%s' 2>/dev/null", first);
	FILE *p = popen(cmd, "r");
	bool have = p && fgets(line, sizeof line, p);
	if (p)
		pclose(p);
	char *eq = strchr(line, '=');
	if (!have || !eq) {
		printf("ok %d # SKIP no openssl command\n", ++tap_n);
	} else {
		eq[strcspn(eq, "\n")] = '\0';
		char want[65], got[65];
		ok(sp_tls_fpr_normalise(eq + 1, want) == 0, "openssl's fingerprint (colons) normalises");
		int err = 0;
		void *c = sp_tls_load_certs(first, &err);
		sp_tls_fingerprint(c, 0, got);
		is_str(got, want, "the SHA-256 fingerprint is openssl's");
		sp_strv f;
		sp_outcome o = {0};
		sp_strv_split(&f, want, ",");
		size_t n = 0;
		is_int(sp_tls_bundle_has(BUNDLE, &f, &n, &o), 1, "the system bundle holds it once");
		ok(n >= checked / 2, "and its %zu certificates are all counted", n);
		ok(sp_tls_dir_has(CERTS, c, &o) == 1, "the hashed directory holds it under its hash");
		sp_strv_free(&f);
		sp_strv_split(&f, "00000000000000000000000000000000000000000000000000000000000000ff", ",");
		is_int(sp_tls_bundle_has(BUNDLE, &f, &n, &o), 0, "an unknown fingerprint is not found");
		sp_strv_free(&f);
		sp_tls_free_certs(c);
	}
	char tmp[] = "/tmp/sp-tls-certs.XXXXXX";
	static const char broken[] = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
	int fd = mkstemp(tmp), err = 0;
	ok(fd >= 0 && write(fd, broken, strlen(broken)) == (ssize_t)strlen(broken),
	   "a file with a broken PEM block");
	ok(sp_tls_load_certs(tmp, &err) == NULL && err == EBADMSG, "holds no certificate: EBADMSG");
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	return done_testing();
}
