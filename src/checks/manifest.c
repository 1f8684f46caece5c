/* The injection manifest (--manifest FILE). Schema, version 1:
 *
 *   {
 *     "version": 1,
 *     "env":   [ {"name": "API_BASE_URL", "sha256": "9f86d0..."}, ... ],
 *     "files": [ {"path": "/run/secrets/token", "mode": "0400",
 *                 "uid": 1000, "gid": 1000, "type": "file"},
 *                {"path": "/usr/bin/agent", "type": "symlink",
 *                 "target": "/opt/agent/bin/agent"}, ... ]
 *   }
 *
 * version  required, the integer 1
 * env      optional array; each entry an object with "name" (a POSIX
 *          variable name) and optionally "sha256" (64 lowercase hex digits,
 *          the SHA-256 of the value the host injected). The variable must be
 *          set and non-empty and, with sha256, hash to exactly that. Values
 *          are never listed: the manifest describes, it does not carry, and
 *          the doctor prints neither a value nor its hash.
 * files    optional array; each entry an object with
 *            path  absolute path, no "." or ".." components
 *            mode  octal permission bits as a string, "0400" / "640" / "1777"
 *                  (not for a symlink, whose mode means nothing)
 *            uid   owner user id (integer >= 0; optional for a symlink)
 *            gid   owner group id (integer >= 0; optional for a symlink)
 *            type  "file" (default, must be non-empty), "dir", "socket" or
 *                  "symlink"
 *            target  for a symlink, and only there: what it must point at,
 *                  exactly as readlink(2) returns it
 * At least one of env/files must list something. Unknown keys anywhere,
 * duplicates, wrong types and out-of-range values are usage errors (exit 2)
 * naming the file and the field ("files[2].mode"), found before any check
 * runs. Symlinks are never followed when checking. */
#include "checks/manifest.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static bool only_keys(json_t *obj, const char *const *allowed, const char **bad)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v)
	{
		bool ok = false;
		for (const char *const *a = allowed; *a; a++)
			if (!strcmp(*a, k))
				ok = true;
		if (!ok) {
			*bad = k;
			return false;
		}
	}
	return true;
}

static bool env_name_ok(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static bool path_ok(const char *p)
{
	if (p[0] != '/' || strlen(p) >= 4096)
		return false;
	for (const char *c = p; *c;) {
		while (*c == '/')
			c++;
		size_t len = strcspn(c, "/");
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += len;
	}
	return true;
}

static bool sha256_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return false;
	return n == 64;
}

int sp_manifest_parse_mode(const char *s, unsigned *out)
{
	size_t n = strlen(s);
	if (n < 3 || n > 5)
		return -1;
	unsigned v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '7')
			return -1;
		v = v * 8 + (unsigned)(s[i] - '0');
	}
	if (v > 07777)
		return -1;
	*out = v;
	return 0;
}

static int id_field(json_t *e, const char *key, const char *path, size_t i, sp_error *err)
{
	json_t *v = json_object_get(e, key);
	if (!v)
		return sp_usage(err, "manifest %s: files[%zu].%s: missing (a numeric id)", path, i, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 0xfffffffeLL)
		return sp_usage(err, "manifest %s: files[%zu].%s: expected an integer id between 0 and 4294967294", path,
				i, key);
	return 0;
}

static int validate(json_t *m, const char *path, sp_error *err)
{
	static const char *const top[] = {"version", "env", "files", "description", NULL};
	static const char *const envk[] = {"name", "sha256", NULL};
	static const char *const filek[] = {"path", "mode", "uid", "gid", "type", "target", NULL};
	const char *bad = NULL;
	if (!only_keys(m, top, &bad))
		return sp_usage(err, "manifest %s: unknown key '%s' (expected version, env, files, description)", path, bad);
	json_t *ver = json_object_get(m, "version");
	if (!ver)
		return sp_usage(err, "manifest %s: version: missing (expected 1)", path);
	if (!json_is_integer(ver) || json_integer_value(ver) != 1)
		return sp_usage(err, "manifest %s: version: expected the integer 1", path);
	json_t *desc = json_object_get(m, "description");
	if (desc && !json_is_string(desc))
		return sp_usage(err, "manifest %s: description: expected a string", path);
	json_t *env = json_object_get(m, "env"), *files = json_object_get(m, "files");
	if (env && !json_is_array(env))
		return sp_usage(err, "manifest %s: env: expected an array of {\"name\": ...}", path);
	if (files && !json_is_array(files))
		return sp_usage(err, "manifest %s: files: expected an array of {\"path\", \"mode\", \"uid\", \"gid\"}", path);
	if (json_array_size(env) + json_array_size(files) == 0)
		return sp_usage(err, "manifest %s: env and files are both empty: nothing to check", path);
	size_t i;
	json_t *e;
	json_array_foreach(env, i, e)
	{
		if (!json_is_object(e))
			return sp_usage(err, "manifest %s: env[%zu]: expected an object {\"name\": ...}", path, i);
		if (!only_keys(e, envk, &bad))
			return sp_usage(err, "manifest %s: env[%zu]: unknown key '%s' (expected name, sha256)", path, i, bad);
		json_t *n = json_object_get(e, "name");
		if (!n || !json_is_string(n))
			return sp_usage(err, "manifest %s: env[%zu].name: missing or not a string", path, i);
		if (!env_name_ok(json_string_value(n)))
			return sp_usage(err, "manifest %s: env[%zu].name: '%s' is not a variable name", path, i,
					json_string_value(n));
		json_t *h = json_object_get(e, "sha256");
		if (h && (!json_is_string(h) || !sha256_ok(json_string_value(h))))
			return sp_usage(err, "manifest %s: env[%zu].sha256: expected 64 lowercase hex digits", path, i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(json_string_value(json_object_get(json_array_get(env, j), "name")), json_string_value(n)))
				return sp_usage(err, "manifest %s: env[%zu].name: '%s' repeats env[%zu]", path, i,
						json_string_value(n), j);
	}
	json_array_foreach(files, i, e)
	{
		if (!json_is_object(e))
			return sp_usage(err, "manifest %s: files[%zu]: expected an object", path, i);
		if (!only_keys(e, filek, &bad))
			return sp_usage(err,
					"manifest %s: files[%zu]: unknown key '%s' (expected path, mode, uid, gid, type, target)",
					path, i, bad);
		json_t *p = json_object_get(e, "path");
		if (!p || !json_is_string(p))
			return sp_usage(err, "manifest %s: files[%zu].path: missing or not a string", path, i);
		if (!path_ok(json_string_value(p)))
			return sp_usage(err, "manifest %s: files[%zu].path: '%s' must be absolute, without . or ..", path, i,
					json_string_value(p));
		for (size_t j = 0; j < i; j++)
			if (!strcmp(json_string_value(json_object_get(json_array_get(files, j), "path")), json_string_value(p)))
				return sp_usage(err, "manifest %s: files[%zu].path: '%s' repeats files[%zu]", path, i,
						json_string_value(p), j);
		json_t *t = json_object_get(e, "type");
		if (t && (!json_is_string(t) || (strcmp(json_string_value(t), "file") && strcmp(json_string_value(t), "dir") &&
						  strcmp(json_string_value(t), "socket") && strcmp(json_string_value(t), "symlink"))))
			return sp_usage(err, "manifest %s: files[%zu].type: expected \"file\", \"dir\", \"socket\" or \"symlink\"",
					path, i);
		bool link = t && !strcmp(json_string_value(t), "symlink");
		json_t *target = json_object_get(e, "target");
		if (link && (!target || !json_is_string(target) || !*json_string_value(target) ||
			     strlen(json_string_value(target)) >= 4096))
			return sp_usage(err, "manifest %s: files[%zu].target: a symlink needs its target (a non-empty string)",
					path, i);
		if (!link && target)
			return sp_usage(err, "manifest %s: files[%zu].target: only a \"symlink\" entry has a target", path, i);
		json_t *mode = json_object_get(e, "mode");
		unsigned mv;
		if (link && mode)
			return sp_usage(err, "manifest %s: files[%zu].mode: a symlink has no mode of its own (leave it out)", path, i);
		if (!link && !mode)
			return sp_usage(err, "manifest %s: files[%zu].mode: missing (an octal string like \"0640\")", path, i);
		if (mode && (!json_is_string(mode) || sp_manifest_parse_mode(json_string_value(mode), &mv) < 0))
			return sp_usage(err, "manifest %s: files[%zu].mode: expected an octal string like \"0640\"", path, i);
		if ((!link || json_object_get(e, "uid")) && id_field(e, "uid", path, i, err) < 0)
			return -1;
		if ((!link || json_object_get(e, "gid")) && id_field(e, "gid", path, i, err) < 0)
			return -1;
	}
	return 0;
}

int sp_manifest_load(const char *path, void **out, sp_error *err)
{
	json_error_t je;
	json_t *m = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!m)
		return sp_usage(err, "manifest %s:%d:%d: %s", path, je.line, je.column, je.text);
	if (!json_is_object(m)) {
		json_decref(m);
		return sp_usage(err, "manifest %s: top level must be a JSON object", path);
	}
	if (validate(m, path, err) < 0) {
		json_decref(m);
		return -1;
	}
	*out = m;
	return 0;
}

void sp_manifest_free(void *m)
{
	if (m)
		json_decref((json_t *)m);
}
