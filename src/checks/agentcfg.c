/* Agent configuration: the paths a policy names as an AI agent's own
 * configuration (system prompt, tool and MCP server settings, memory, plugin
 * directories) must refuse writes, so a hijacked agent cannot make its
 * change outlive the session, and must hold no credential the agent could
 * lift. The shipped profiles name no path (where an agent keeps its
 * configuration is deployment-specific): until fs.agent_config is set, both
 * checks skip. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/environment.h"
#include "checks/probe.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define AC_MAX_DEPTH 4
#define AC_MAX_ENTRIES 512u         /* files and directories visited per check */
#define AC_MAX_FILE_BYTES (1u << 20) /* larger files are not scanned for secrets */
#define AC_MAX_SCAN_BYTES (32u << 20) /* all files together: a few seconds of matching */

typedef struct ac_walk {
	size_t entries;
	bool truncated;
	/* called for each regular file and directory (is_dir); st from lstat */
	void (*fn)(struct ac_walk *w, const char *path, const struct stat *st, bool is_dir);
	sp_result *r;
	size_t bad, files, dirs, unreadable, skipped, leaked;
	unsigned long long scanned; /* bytes matched so far */
	char first[PATH_MAX + 32];
} ac_walk;

/* Depth-first over path without following symlinks below the named path
 * itself (a link inside a config tree may point anywhere: it is not walked).
 * Bounded by AC_MAX_DEPTH and AC_MAX_ENTRIES. */
static void walk(ac_walk *w, const char *path, int depth)
{
	if (w->entries >= AC_MAX_ENTRIES) {
		w->truncated = true;
		return;
	}
	struct stat st;
	if ((depth == 0 ? stat(path, &st) : lstat(path, &st)) < 0) {
		if (depth == 0) /* a named path that is absent: nothing to modify or read */
			sp_observed_add(w->r, "%s: %s", path, sp_errname(errno));
		return;
	}
	if (S_ISREG(st.st_mode)) {
		w->entries++;
		w->fn(w, path, &st, false);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	w->entries++;
	w->fn(w, path, &st, true);
	if (depth >= AC_MAX_DEPTH)
		return;
	DIR *d = opendir(path);
	if (!d) {
		w->unreadable++;
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >= (int)sizeof sub)
			continue;
		walk(w, sub, depth + 1);
		if (w->truncated)
			break;
	}
	closedir(d);
}

static void mark_bad(ac_walk *w, const char *path)
{
	if (!w->bad++)
		snprintf(w->first, sizeof w->first, "%s", path);
}

/* For each path of fs.agent_config: an absent path is reported and passes
 * (nothing to modify); otherwise walk it with w. Returns the number of
 * paths, 0 after a skip was recorded. */
static size_t walk_policy_paths(const sp_ctx *ctx, sp_result *r, ac_walk *w, const char *expect)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.agent_config", &paths);
	if (paths.n == 0) {
		sp_expected(r, "%s (no agent configuration path named)", expect);
		sp_skip(r, "policy names no agent configuration paths (fs.agent_config)");
		sp_strv_free(&paths);
		return 0;
	}
	sp_expected(r, "%s: %s", expect, sp_policy_get(ctx->policy, "fs.agent_config"));
	w->r = r;
	for (size_t i = 0; i < paths.n; i++)
		walk(w, paths.v[i], 0);
	size_t n = paths.n;
	sp_strv_free(&paths);
	return n;
}

/* ---- read-only ---------------------------------------------------------- */

static void probe_write(ac_walk *w, const char *path, const struct stat *st, bool is_dir)
{
	(void)st;
	if (!is_dir) {
		w->files++;
		/* open for write, no O_TRUNC, no byte written: the file is unchanged */
		int e = 0;
		if (sp_write_probe(path, false, &e) == 1) {
			sp_observed_add(w->r, "%s: write open ACCEPTED", path);
			mark_bad(w, path);
		}
		return;
	}
	w->dirs++;
	/* creating a file in the directory: a new file, removed at once */
	char name[PATH_MAX];
	int e;
	int made = sp_create_probe(path, name, sizeof name, &e);
	if (made == 0)
		return;
	w->leaked += made < 0;
	if (made < 0)
		sp_observed_add(w->r, "%s: creating a file ACCEPTED, probe file %s could not be removed", path, name);
	else
		sp_observed_add(w->r, "%s: creating a file ACCEPTED (probe removed)", path);
	mark_bad(w, path);
}

static void run_readonly(const sp_ctx *ctx, sp_result *r)
{
	ac_walk w = {.fn = probe_write};
	size_t n = walk_policy_paths(ctx, r, &w, "every file refuses a write open, every directory a new file");
	if (n == 0)
		return;
	char scope[160];
	snprintf(scope, sizeof scope, "%zu files and %zu director%s probed%s", w.files, w.dirs, w.dirs == 1 ? "y" : "ies",
		 w.truncated ? ", walk stopped at its bound of 512 entries" : "");
	if (w.leaked)
		sp_errorr(r, "a probe file could not be removed (%s)", scope);
	else if (w.bad)
		sp_failr(r, "%zu agent configuration entr%s accept writes (first: %s; %s)", w.bad, w.bad == 1 ? "y" : "ies",
			 w.first, scope);
	else if (w.truncated)
		sp_warn(r, "what was probed refuses writes, but not all of it was probed (%s)", scope);
	else if (w.files + w.dirs == 0)
		/* nothing was tried: an absent path proves nothing about its parent */
		sp_skip(r, "cannot tell: none of the %zu named paths exists here (%s)", n, scope);
	else
		sp_pass(r, "all %zu paths refuse writes (%s)", n, scope);
}

/* ---- secrets ------------------------------------------------------------ */

static void scan_file(ac_walk *w, const char *path, const struct stat *st, bool is_dir)
{
	if (is_dir)
		return;
	if (st->st_size > (off_t)AC_MAX_FILE_BYTES) {
		w->skipped++;
		return;
	}
	if (w->scanned + (unsigned long long)st->st_size > AC_MAX_SCAN_BYTES) {
		w->truncated = true;
		return;
	}
	w->scanned += (unsigned long long)st->st_size;
	int err = 0;
	size_t len = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc(path, AC_MAX_FILE_BYTES, &len, &err);
	if (!buf) {
		w->unreadable++;
		return;
	}
	if (memchr(buf, '\0', len)) { /* binary: not a configuration text */
		w->skipped++;
		return;
	}
	w->files++;
	size_t lineno = 0, hits = 0;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		const char *shape = sp_text_credential_shape(line);
		if (!shape)
			continue;
		/* redacted: where and what shape, never the value */
		if (hits++ < 8)
			sp_observed_add(w->r, "%s:%zu: %s (value redacted)", path, lineno, shape);
		char at[PATH_MAX + 32];
		snprintf(at, sizeof at, "%s:%zu", path, lineno);
		mark_bad(w, at);
	}
}

static void run_secrets(const sp_ctx *ctx, sp_result *r)
{
	ac_walk w = {.fn = scan_file};
	size_t n = walk_policy_paths(ctx, r, &w, "no API key, token, private key or password in the files");
	if (n == 0)
		return;
	char scope[200];
	snprintf(scope, sizeof scope, "%zu files scanned, %zu unreadable, %zu binary or over 1 MiB%s", w.files,
		 w.unreadable, w.skipped, w.truncated ? ", scan stopped at its bound (512 entries, 32 MiB)" : "");
	if (w.bad)
		sp_failr(r, "%zu credential-shaped value%s in agent configuration (first: %s; %s)", w.bad,
			 w.bad == 1 ? "" : "s", w.first, scope);
	else if (w.truncated)
		sp_warn(r, "none found in what was scanned, but not everything was (%s)", scope);
	else
		sp_pass(r, "none found (%s)", scope);
}

const sp_check sp_check_fs_agent_config_readonly = {
	.id = SP_CKID(fs_agent_config_readonly),
	.category = "filesystem",
	.title = "agent configuration paths refuse writes",
	.rationale = "an agent that can rewrite its own prompt, tools or memory makes a hijack outlive the session",
	.techniques = "AML.T0081,AML.T0110,AML.T0080",
	.policy_keys = "fs.agent_config:paths",
	.method = "action",
	.run = run_readonly,
};

const sp_check sp_check_fs_agent_config_secrets = {
	.id = SP_CKID(fs_agent_config_secrets),
	.category = "filesystem",
	.title = "no credentials in agent configuration files",
	.rationale = "API keys in an agent's tool or MCP configuration are one read away from a hijacked agent",
	.techniques = "AML.T0083,AML.T0055,T1552.001",
	.policy_keys = "fs.agent_config:paths",
	.method = "read",
	.run = run_secrets,
};
