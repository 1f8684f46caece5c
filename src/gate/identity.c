/* --lane and --artifact of `sandprobe soak` (see identity.h). */
#include "gate/identity.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "evidence/evidence.h"

static bool id_ok(const char *s, size_t max, bool lower)
{
	size_t n = strlen(s);
	if (n == 0 || n > max || !isalnum((unsigned char)s[0]))
		return false;
	for (const char *c = s; *c; c++)
		if ((!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-') || (lower && isupper((unsigned char)*c)))
			return false;
	return true;
}

static void add(sp_gate_identity *id, char *k, char *v)
{
	id->key = sp_xrealloc(id->key, (id->n + 1) * sizeof *id->key);
	id->value = sp_xrealloc(id->value, (id->n + 1) * sizeof *id->value);
	id->key[id->n] = k;
	id->value[id->n] = v;
	id->n++;
}

int sp_identity_build(sp_gate_identity *id, const char *lane, char *const *artifacts, size_t nartifacts, sp_error *err)
{
	memset(id, 0, sizeof *id);
	if (lane) {
		if (!id_ok(lane, 64, false)) {
			sp_usage(err, "--lane '%.80s': 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit",
				 lane);
			goto fail;
		}
		add(id, sp_xstrdup("lane"), sp_xstrdup(lane));
	}
	for (size_t i = 0; i < nartifacts; i++) {
		const char *a = artifacts[i], *eq = strchr(a, '=');
		_cleanup_free_ char *name = eq ? sp_xstrndup(a, (size_t)(eq - a)) : NULL;
		if (!eq || !id_ok(name, 48, true) || !eq[1]) {
			sp_usage(err, "--artifact '%.80s': NAME=FILE or NAME=sha256:<64 hex> (NAME lowercase, 1 to 48 of [a-z0-9._-])", a);
			goto fail;
		}
		_cleanup_free_ char *key = sp_xasprintf("artifact.%s", name);
		for (size_t k = 0; k < id->n; k++)
			if (!strcmp(id->key[k], key)) {
				sp_usage(err, "--artifact %s: given twice", name);
				goto fail;
			}
		const char *v = eq + 1;
		char digest[72];
		if (!strncmp(v, "sha256:", 7)) {
			bool ok = strlen(v) == 71;
			for (int k = 0; ok && k < 64; k++)
				ok = isxdigit((unsigned char)v[7 + k]);
			if (!ok) {
				sp_usage(err, "--artifact %s: '%.80s' is not sha256:<64 hex digits>", name, v);
				goto fail;
			}
			memcpy(digest, "sha256:", 7);
			for (int k = 0; k < 64; k++)
				digest[7 + k] = (char)tolower((unsigned char)v[7 + k]);
			digest[71] = '\0';
		} else {
			struct stat st;
			if (stat(v, &st) < 0) {
				sp_usage(err, "--artifact %s=%s: %s", name, v, strerror(errno));
				goto fail;
			}
			if (!S_ISREG(st.st_mode)) {
				sp_usage(err, "--artifact %s=%s: not a regular file", name, v);
				goto fail;
			}
			/* the file a link names (/usr/bin/x -> ...): hashed without following again */
			_cleanup_free_ char *real = realpath(v, NULL);
			char hex[65];
			sp_outcome o = {0};
			int r = real ? sp_ev_sha256_file_hex(real, hex, &o) : sp_why_errno(&o, errno, "%s", strerror(errno));
			if (r < 0) {
				sp_usage(err, "--artifact %s=%s: %s", name, v, strerror(o.errnum));
				goto fail;
			}
			snprintf(digest, sizeof digest, "sha256:%s", hex);
		}
		add(id, steal_pointer(&key), sp_xstrdup(digest));
	}
	return 0;
fail:
	sp_identity_free(id);
	return -1;
}

void sp_identity_free(sp_gate_identity *id)
{
	for (size_t i = 0; i < id->n; i++) {
		free(id->key[i]);
		free(id->value[i]);
	}
	free(id->key);
	free(id->value);
	memset(id, 0, sizeof *id);
}
