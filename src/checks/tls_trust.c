/* The interception trust the policy names (see tls_probe.h): tls.ca,
 * tls.ca_fingerprint and tls.store, read for tls.c's checks and for
 * transparent.c's handshakes. A bottom file: it calls neither. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checks/tls_probe.h"
#include "checks/types.h"
#include "core/check.h"
#include "core/outcome.h"
#include "core/policy.h"
#include "core/util.h"

/* where distributions keep the bundle their OpenSSL, curl, Python and Go read */
static const char *const default_stores[] = {
	"/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Alpine, Arch */
	"/etc/pki/tls/certs/ca-bundle.crt",                  /* Fedora, RHEL */
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL 7+ */
	"/etc/ssl/ca-bundle.pem",                            /* openSUSE */
	"/etc/ssl/cert.pem",                                 /* Alpine, macOS-like */
};

/* tls.ca_fingerprint's entries: what sp_tls_fpr_normalise takes */
static int fpr_why(const char *s, sp_outcome *o)
{
	char f[65];
	if (sp_tls_fpr_normalise(s, f) == 0)
		return 0;
	return sp_why(o, "'%.100s': expected a SHA-256 fingerprint (64 hex digits, colons allowed)", s);
}

static int fpr_parse(const char *s, sp_outcome *o)
{
	if (fpr_why(s, o) == 0)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_sha256s = {.name = "sha256s", .what = "SHA-256 fingerprints (64 hex digits, colons allowed)", .list = true, .parse = fpr_parse};

int sp_tls_trust_from_policy(const sp_ctx *ctx, sp_tls_trust *t, sp_outcome *o)
{
	memset(t, 0, sizeof *t);
	sp_strv_split(&t->fpr, NULL, ",");
	sp_policy_list(ctx->policy, "tls.store", &t->store);
	if (t->store.n == 0)
		for (size_t i = 0; i < SP_ARRAY_SIZE(default_stores); i++)
			if (access(default_stores[i], F_OK) == 0) {
				sp_strv_push(&t->store, default_stores[i]);
				break;
			}
	const char *file = sp_policy_get(ctx->policy, "tls.ca");
	sp_strv given;
	sp_policy_list(ctx->policy, "tls.ca_fingerprint", &given);
	for (size_t i = 0; i < given.n; i++) {
		char f[65];
		if (sp_tls_fpr_normalise(given.v[i], f) < 0) {
			fpr_why(given.v[i], o);
			sp_why_prefix(o, "tls.ca_fingerprint");
			sp_strv_free(&given);
			return -1;
		}
		sp_strv_push(&t->fpr, f);
	}
	sp_strv_free(&given);
	if (file && *file) {
		int e = 0;
		t->ca = sp_tls_load_certs(file, &e);
		if (!t->ca) {
			return sp_why_errno(o, e == EBADMSG ? 0 : e, "tls.ca %s: %s", file,
					    e == EBADMSG ? "holds no certificate (PEM or DER)" : strerror(e));
		}
		bool match = t->fpr.n == 0;
		for (size_t i = 0; i < sp_tls_count(t->ca); i++) {
			char f[65];
			sp_tls_fingerprint(t->ca, i, f);
			if (sp_strv_contains(&t->fpr, f))
				match = true;
		}
		if (!match) {
			return sp_why(o, "tls.ca %s holds no certificate with the fingerprint tls.ca_fingerprint names", file);
		}
		if (t->fpr.n == 0)
			for (size_t i = 0; i < sp_tls_count(t->ca); i++) {
				char f[65];
				sp_tls_fingerprint(t->ca, i, f);
				sp_strv_push(&t->fpr, f);
			}
	}
	if (t->fpr.n == 0)
		return 0;
	if (!t->ca) {
		/* named by fingerprint only: take the certificate from the store,
		 * where it must be anyway, to check signatures with its key */
		for (size_t s = 0; s < t->store.n; s++) {
			int e = 0;
			void *all = sp_tls_load_certs(t->store.v[s], &e);
			for (size_t i = 0; all && i < sp_tls_count(all) && !t->ca; i++) {
				char f[65];
				sp_tls_fingerprint(all, i, f);
				if (sp_strv_contains(&t->fpr, f)) {
					t->ca = all;
					all = NULL;
				}
			}
			sp_tls_free_certs(all);
			if (t->ca)
				break;
		}
	}
	return 1;
}
