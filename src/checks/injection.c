/* Injection: what the host says it injected (--manifest FILE, validated by
 * src/checks/manifest.c before any check runs) is present, non-empty and has
 * exactly the declared mode, owner and type; a symlink points exactly at its
 * declared target; a variable with a declared SHA-256 holds exactly the value
 * the host injected. Values are never printed, nor are their hashes. */
#include <errno.h>
#include <jansson.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks/manifest.h"
#include "checks/probe.h"
#include "core/sha256.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the manifest's non-empty list under key, or NULL after skipping r */
static json_t *manifest_list(const sp_ctx *ctx, sp_result *r, const char *key)
{
	if (!ctx->manifest) {
		sp_skip(r, "no --manifest given");
		return NULL;
	}
	json_t *list = json_object_get((json_t *)ctx->manifest, key);
	if (json_array_size(list) == 0) {
		sp_skip(r, "the manifest lists no %s", key);
		return NULL;
	}
	return list;
}

static void run_env(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "every env entry of the manifest set and non-empty, and equal to the injected value where the "
		       "manifest gives its sha256");
	json_t *env = manifest_list(ctx, r, "env");
	if (!env)
		return;
	size_t i, bad = 0;
	json_t *e;
	json_array_foreach(env, i, e)
	{
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *want = json_string_value(json_object_get(e, "sha256"));
		const char *v = getenv(name);
		/* the length and a verdict only: a manifest entry may well be a secret */
		const char *hash = "";
		bool differs = false;
		if (v && *v && want) {
			char hex[65];
			sp_sha256_hex(v, strlen(v), hex);
			differs = strcmp(hex, want) != 0;
			hash = differs ? ", value DIFFERS from the injected one (sha256)" : ", value as injected (sha256)";
		}
		if (!v)
			sp_observed_add(r, "%s unset", name);
		else
			sp_observed_add(r, "%s %s (%zu chars)%s", name, *v ? "set" : "EMPTY", strlen(v), hash);
		bad += !v || !*v || differs;
	}
	if (bad)
		sp_failr(r, "%zu of %zu injected variable%s missing or empty", bad, json_array_size(env),
			 json_array_size(env) == 1 ? "" : "s");
	else
		sp_pass(r, "all %zu injected variable%s present", json_array_size(env), json_array_size(env) == 1 ? "" : "s");
}

static void run_files(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "every file of the manifest present (not a symlink unless declared one), non-empty, with exactly its "
		       "mode, uid, gid and type; every symlink pointing exactly at its target");
	json_t *files = manifest_list(ctx, r, "files");
	if (!files)
		return;
	size_t i, bad = 0;
	json_t *e;
	json_array_foreach(files, i, e)
	{
		const char *path = json_string_value(json_object_get(e, "path"));
		unsigned mode = 0;
		const char *ms = json_string_value(json_object_get(e, "mode"));
		if (ms)
			sp_manifest_parse_mode(ms, &mode);
		json_t *ju = json_object_get(e, "uid"), *jg = json_object_get(e, "gid");
		long long uid = json_integer_value(ju), gid = json_integer_value(jg);
		const char *target = json_string_value(json_object_get(e, "target"));
		const char *type = json_string_value(json_object_get(e, "type"));
		if (!type)
			type = "file";
		struct stat st;
		if (lstat(path, &st) < 0) {
			sp_observed_add(r, "%s: %s", path, strerrorname_np(errno));
			bad++;
			continue;
		}
		const char *is = S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "dir" : S_ISSOCK(st.st_mode) ? "socket"
			       : S_ISLNK(st.st_mode) ? "symlink" : "other";
		char problems[200] = "";
		size_t pl;
#define PROBLEM(...)                                                                                               \
	(pl = strlen(problems), snprintf(problems + pl, sizeof problems - pl, "%s", pl ? ", " : ""),               \
	 pl = strlen(problems), snprintf(problems + pl, sizeof problems - pl, __VA_ARGS__))
		if (strcmp(is, type))
			PROBLEM("is a %s, not a %s", is, type);
		if (ms && (st.st_mode & 07777) != mode)
			PROBLEM("mode %04o, not %04o", st.st_mode & 07777, mode);
		if (ju && (long long)st.st_uid != uid)
			PROBLEM("uid %u, not %lld", (unsigned)st.st_uid, uid);
		if (jg && (long long)st.st_gid != gid)
			PROBLEM("gid %u, not %lld", (unsigned)st.st_gid, gid);
		char points[4096] = "";
		if (target && S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(path, points, sizeof points - 1);
			points[n > 0 ? n : 0] = '\0';
			if (n < 0)
				PROBLEM("readlink: %s", strerrorname_np(errno));
			else if (strcmp(points, target))
				PROBLEM("points at %.60s, not %.60s", points, target);
		}
		if (!strcmp(type, "file") && S_ISREG(st.st_mode) && st.st_size == 0)
			PROBLEM("empty");
#undef PROBLEM
		if (problems[0]) {
			bad++;
			sp_observed_add(r, "%s: %s", path, problems);
		} else {
			if (S_ISLNK(st.st_mode))
				sp_observed_add(r, "%s: ok (symlink to %s, %u:%u)", path, points, (unsigned)st.st_uid,
						(unsigned)st.st_gid);
			else
				sp_observed_add(r, "%s: ok (%s %04o %u:%u, %lld bytes)", path, is, st.st_mode & 07777,
						(unsigned)st.st_uid, (unsigned)st.st_gid, (long long)st.st_size);
		}
	}
	size_t n = json_array_size(files);
	if (bad)
		sp_failr(r, "%zu of %zu injected file%s wrong or missing", bad, n, n == 1 ? "" : "s");
	else
		sp_pass(r, "all %zu injected file%s exactly as declared", n, n == 1 ? "" : "s");
}

const sp_check sp_check_inject_env = {
	.id = SP_CKID(inject_env),
	.category = "injection",
	.title = "injected environment variables present",
	.rationale = "a workload that starts without its injected configuration falls back to unsafe defaults",
	.techniques = "",
	.policy_keys = "",
	.method = "read",
	.run = run_env,
};

const sp_check sp_check_inject_files = {
	.id = SP_CKID(inject_files),
	.category = "injection",
	.title = "injected files present with exactly the declared mode and owner",
	.rationale = "an injected secret with a loose mode or the wrong owner is readable by more than it should be",
	.techniques = "AML.T0055,T1552.001",
	.policy_keys = "",
	.method = "read",
	.run = run_files,
};
