/* Tools that work (tools.*): an agent's sandbox is only useful with the
 * programs its agent needs. tools.present finds each one (tools.required,
 * and every program tools.probes runs) on the sandbox's PATH as an
 * executable file that the sandbox user cannot change: neither the file,
 * nor any file a symlink on the way points at, nor the directory holding
 * it is writable (a read-only mount counts as not writable). tools.probes
 * runs each probe, "PROGRAM ARG... => REGEX" (entries separated by ';',
 * words split at blanks, '...' and "..." quote, a quoted ';' is the word's),
 * all at once, each bounded by tools.timeout_ms, and passes when each exits
 * 0 and its output (stdout and stderr) matches the extended regex: proof of
 * function, not of presence (a package manager's dry run, a runtime's
 * --version). tools.shell: the user's login shell (its /etc/passwd entry,
 * read directly: the static doctor has no NSS) is the one the policy names,
 * and it exists and is executable. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define MAX_PROBES 32
#define PROBE_OUT 16384

/* ---- one probe spec ------------------------------------------------------------ */

typedef struct tool_probe {
	char text[300];       /* the entry as written */
	sp_strv argv;
	char pattern[200];
	regex_t re;
	bool re_ok;
	/* run state */
	pid_t pid;
	int fd;
	char out[PROBE_OUT];
	size_t got;
	int status;
	bool started, timed_out, exited;
	int start_err;
	uint64_t start_ns, elapsed_us;
} tool_probe;

static char *trim_sep(char *s)
{
	while (*s == ' ' || *s == '\t' || *s == ',')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == ','))
		s[--n] = '\0';
	return s;
}

/* Split a command into words at blanks; '...' and "..." quote (no escapes).
 * Returns 0, or -1 for an unterminated quote. */
static int split_args(const char *s, sp_strv *out)
{
	sp_strv_split(out, NULL, ",");
	char word[512];
	size_t n = 0;
	bool in = false;
	for (const char *c = s;; c++) {
		if (*c == '\'' || *c == '"') {
			const char *end = strchr(c + 1, *c);
			if (!end)
				return -1;
			for (const char *q = c + 1; q < end && n + 1 < sizeof word; q++)
				word[n++] = *q;
			in = true;
			c = end;
			continue;
		}
		if (*c == '\0' || *c == ' ' || *c == '\t') {
			if (in) {
				word[n] = '\0';
				sp_strv_push(out, word);
			}
			n = 0;
			in = false;
			if (!*c)
				return 0;
			continue;
		}
		if (n + 1 < sizeof word)
			word[n++] = *c;
		in = true;
	}
}

/* The next ';'-separated entry of tools.probes (strtok_r-like: s on the
 * first call, NULL after). In the command part (before "=>") a ';' inside
 * '...' or "..." belongs to the word; in the pattern part quotes are plain
 * characters (an apostrophe in a regex), so the first ';' there ends the
 * entry. An unterminated quote runs to the end (split_args reports it). */
static char *next_entry(char *s, char **save)
{
	char *e = s ? s : *save;
	if (!e || !*e)
		return NULL;
	bool command = true;
	char *c = e;
	for (; *c; c++) {
		if (command && (*c == '\'' || *c == '"')) {
			char *end = strchr(c + 1, *c);
			if (!end) {
				c += strlen(c);
				break;
			}
			c = end;
		} else if (command && c[0] == '=' && c[1] == '>') {
			command = false;
			c++;
		} else if (*c == ';') {
			*c = '\0';
			*save = c + 1;
			return e;
		}
	}
	*save = c;
	return e;
}

/* Parse tools.probes into p[]; returns the count, or -1 with o's reason. */
static int parse_probes(const char *spec, tool_probe *p, size_t max, sp_outcome *o)
{
	if (!spec || !*spec)
		return 0;
	_cleanup_free_ char *copy = sp_xstrdup(spec);
	size_t n = 0;
	char *save = NULL;
	for (char *e = next_entry(copy, &save); e; e = next_entry(NULL, &save)) {
		e = trim_sep(e);
		if (!*e)
			continue;
		if (n == max)
			return sp_why(o, "more than %zu probes", max);
		tool_probe *t = &p[n];
		memset(t, 0, sizeof *t);
		t->fd = -1;
		t->pid = -1;
		snprintf(t->text, sizeof t->text, "%s", e);
		char *arrow = strstr(e, "=>");
		if (!arrow)
			return sp_why(o, "'%s': expected 'PROGRAM ARG... => REGEX'", t->text);
		*arrow = '\0';
		char *pat = trim_sep(arrow + 2);
		int q = split_args(e, &t->argv);
		n++; /* owned from here on, freed by the caller */
		if (q < 0)
			return sp_why(o, "'%s': unterminated quote", t->text);
		if (t->argv.n == 0 || !*pat)
			return sp_why(o, "'%s': %s", t->text, t->argv.n ? "empty pattern" : "no program");
		snprintf(t->pattern, sizeof t->pattern, "%s", pat);
		if (sp_regex_compile(&t->re, t->pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB, o) < 0) {
			sp_why_prefix(o, "'%s'", t->text);
			return -1;
		}
		t->re_ok = true;
	}
	return (int)n;
}

static void free_probes(tool_probe *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sp_strv_free(&p[i].argv);
		if (p[i].re_ok)
			regfree(&p[i].re);
	}
}

/* tools.probes as a policy type: the same parse the checks run */
static int probes_parse(const char *spec, sp_outcome *o)
{
	tool_probe *p = sp_xcalloc(MAX_PROBES, sizeof *p);
	int n = parse_probes(spec, p, MAX_PROBES, o);
	free_probes(p, n < 0 ? MAX_PROBES : (size_t)n);
	free(p);
	return n < 0 ? -1 : 0;
}

const sp_policy_type sp_ptype_probes = {.name = "probes",
					.what = "'PROGRAM ARG... => REGEX' entries separated by ';' (extended regex)",
					.parse = probes_parse};

/* ---- finding a program the way execvp does -------------------------------------- */

static const char *sandbox_path(void)
{
	const char *p = getenv("PATH");
	return p && *p ? p : "/usr/local/bin:/usr/bin:/bin";
}

/* why path (found) cannot be run: errnum e; EACCES says "not executable" */
static int not_runnable(sp_outcome *o, int e)
{
	return sp_why_errno(o, e, "%s", e == EACCES ? "not executable" : strerror(e));
}

/* 0 and the path found, or -1 with o (errnum ENOENT or ENOTDIR: nowhere on
 * PATH; else out is the path that cannot be run, and o says why) */
static int find_program(const char *name, char *out, size_t size, sp_outcome *o)
{
	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		struct stat st;
		if (stat(name, &st) < 0)
			return not_runnable(o, errno);
		return S_ISREG(st.st_mode) ? 0 : not_runnable(o, EISDIR);
	}
	sp_strv dirs;
	sp_strv_split(&dirs, sandbox_path(), ":");
	int best = ENOENT; /* 0 found, EACCES found but not executable, ENOENT not found */
	for (size_t i = 0; i < dirs.n; i++) {
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s/%s", dirs.v[i], name);
		struct stat st;
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (access(p, X_OK) == 0) {
			snprintf(out, size, "%s", p);
			best = 0;
			break;
		}
		if (best == ENOENT) {
			snprintf(out, size, "%s", p);
			best = EACCES;
		}
	}
	sp_strv_free(&dirs);
	if (best == ENOENT)
		return sp_why_errno(o, ENOENT, "not on PATH %s", sandbox_path());
	return best ? not_runnable(o, best) : 0;
}

static bool writable(const char *path)
{
	return access(path, W_OK) == 0;
}

/* Who could replace the program at path? Empty when nobody (the sandbox
 * user), else what is writable: the file, a symlink's target, a directory. */
static void replaceable(const char *path, char *out, size_t size)
{
	out[0] = '\0';
	char cur[PATH_MAX];
	snprintf(cur, sizeof cur, "%s", path);
	for (int hop = 0; hop < 16; hop++) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", cur);
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		if (writable(cur)) {
			snprintf(out, size, "%s is writable", cur);
			return;
		}
		if (slash && writable(dir)) {
			snprintf(out, size, "its directory %s is writable", dir);
			return;
		}
		char link[PATH_MAX];
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n <= 0)
			return;
		link[n] = '\0';
		if (link[0] == '/')
			snprintf(cur, sizeof cur, "%s", link);
		else {
			char next[PATH_MAX];
			snprintf(next, sizeof next, "%s/%s", dir, link);
			snprintf(cur, sizeof cur, "%s", next);
		}
	}
}

/* ---- tools.present ---------------------------------------------------------------- */

/* how many probes tools.probes declares (negative: malformed), parsed and
 * dropped: the preconditions below decide in the doctor, with no child */
static int declared_probes(const sp_ctx *ctx)
{
	tool_probe *p = sp_xcalloc(MAX_PROBES, sizeof *p);
	sp_outcome o = {0};
	int np = parse_probes(sp_policy_get(ctx->policy, "tools.probes"), p, MAX_PROBES, &o);
	free_probes(p, np < 0 ? MAX_PROBES : (size_t)np);
	free(p);
	return np;
}

/* a check that skips does no work: with nothing declared the runner skips
 * it without a probe child (a malformed declaration runs, and is an error) */
static bool names_some_tool(const sp_ctx *ctx, sp_outcome *o)
{
	sp_strv names;
	sp_policy_list(ctx->policy, "tools.required", &names);
	size_t n = names.n;
	sp_strv_free(&names);
	if (n || declared_probes(ctx) != 0)
		return true;
	sp_why(o, "the policy names no tool (tools.required, tools.probes)");
	return false;
}

static bool names_some_probe(const sp_ctx *ctx, sp_outcome *o)
{
	if (declared_probes(ctx) != 0)
		return true;
	sp_why(o, "the policy names no tool probe (tools.probes)");
	return false;
}

static bool names_a_shell(const sp_ctx *ctx, sp_outcome *o)
{
	const char *want = sp_policy_get(ctx->policy, "tools.shell");
	if (want && *want)
		return true;
	sp_why(o, "the policy names no shell (tools.shell)");
	return false;
}

static void run_present(const sp_ctx *ctx, sp_result *r)
{
	sp_strv names;
	sp_policy_list(ctx->policy, "tools.required", &names);
	tool_probe *p = sp_xcalloc(MAX_PROBES, sizeof *p);
	sp_outcome o = {0};
	int np = parse_probes(sp_policy_get(ctx->policy, "tools.probes"), p, MAX_PROBES, &o);
	for (int i = 0; i < np; i++)
		if (!sp_strv_contains(&names, p[i].argv.v[0]))
			sp_strv_push(&names, p[i].argv.v[0]);
	free_probes(p, np < 0 ? MAX_PROBES : (size_t)np);
	free(p);
	sp_expected(r, "each of %zu program%s (tools.required, tools.probes) on PATH, executable, not replaceable by "
		       "the sandbox user", names.n, names.n == 1 ? "" : "s");
	if (np < 0) {
		sp_errorr(r, "tools.probes: %.399s", o.why); /* the reason's bound before sp_outcome */
		sp_strv_free(&names);
		return;
	}
	if (names.n == 0) {
		sp_skip(r, "the policy names no tool (tools.required, tools.probes)");
		sp_strv_free(&names);
		return;
	}
	size_t missing = 0, notexec = 0, repl = 0;
	char bad[300] = "";
	for (size_t i = 0; i < names.n; i++) {
		char path[PATH_MAX], how[PATH_MAX + 40];
		sp_outcome fo = {0};
		int rc = find_program(names.v[i], path, sizeof path, &fo);
		const char *problem = NULL;
		if (rc < 0 && (fo.errnum == ENOENT || fo.errnum == ENOTDIR)) {
			missing++;
			problem = "MISSING";
			sp_observed_add(r, "%s: not on PATH %s", names.v[i], sandbox_path());
		} else if (rc < 0) {
			notexec++;
			problem = "not executable";
			sp_observed_add(r, "%s: %s %s", names.v[i], path, fo.why);
		} else {
			replaceable(path, how, sizeof how);
			if (how[0]) {
				repl++;
				problem = "replaceable";
				sp_observed_add(r, "%s: %s, but %s", names.v[i], path, how);
			} else {
				sp_observed_add(r, "%s: %s", names.v[i], path);
			}
		}
		if (problem) {
			size_t l = strlen(bad);
			snprintf(bad + l, sizeof bad - l, "%s%s (%s)", l ? ", " : "", names.v[i], problem);
		}
	}
	if (missing || notexec || repl)
		sp_failr(r, "%s", bad);
	else
		sp_pass(r, "all %zu tools present, executable and not writable by the sandbox user", names.n);
	sp_strv_free(&names);
}

/* ---- tools.probes ----------------------------------------------------------------- */

static void start_probe(tool_probe *t)
{
	int pfd[2];
	t->start_ns = sp_now_ns();
	fflush(NULL);
	pid_t pid = sp_fork_piped(pfd);
	if (pid < 0) {
		t->start_err = (int)-pid;
		return;
	}
	if (pid == 0) {
		/* stays in the check's process group: the runner kills that group
		 * when the check ends or runs out of time, whatever the probe started */
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(t->argv.v[0], t->argv.v);
		_exit(127);
	}
	t->pid = pid;
	t->fd = pfd[0];
	t->started = true;
}

/* collect an exited probe (true), or kill it (what it started dies with the
 * check's process group) */
static bool collect(tool_probe *t, bool kill_it)
{
	if (t->pid <= 0)
		return true;
	if (kill_it)
		kill(t->pid, SIGKILL);
	pid_t w;
	while ((w = waitpid(t->pid, &t->status, kill_it ? 0 : WNOHANG)) < 0 && errno == EINTR)
		;
	if (w == 0)
		return false;
	t->exited = !kill_it;
	t->pid = -1;
	t->elapsed_us = (sp_now_ns() - t->start_ns) / 1000;
	return true;
}

static void run_all(tool_probe *p, size_t n, unsigned timeout_ms)
{
	for (size_t i = 0; i < n; i++)
		start_probe(&p[i]);
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	struct pollfd pf[MAX_PROBES];
	size_t who[MAX_PROBES];
	for (;;) {
		size_t k = 0, running = 0;
		for (size_t i = 0; i < n; i++) {
			if (p[i].fd < 0 && p[i].pid > 0 && !collect(&p[i], false))
				running++; /* output closed, process not yet gone */
			if (p[i].fd >= 0) {
				pf[k] = (struct pollfd){.fd = p[i].fd, .events = POLLIN};
				who[k++] = i;
			}
		}
		if (k == 0 && running == 0)
			break;
		uint64_t now = sp_now_ns();
		if (now >= deadline)
			break;
		int ms = (int)((deadline - now + 999999) / 1000000ull);
		int rc = poll(pf, k, running && ms > 5 ? 5 : ms);
		if (rc < 0 && errno != EINTR)
			break;
		for (size_t j = 0; rc > 0 && j < k; j++) {
			if (!pf[j].revents)
				continue;
			tool_probe *t = &p[who[j]];
			char sink[4096];
			bool room = t->got + 1 < sizeof t->out;
			ssize_t got = room ? read(t->fd, t->out + t->got, sizeof t->out - 1 - t->got) : read(t->fd, sink, sizeof sink);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				if (room)
					t->got += (size_t)got;
				continue;
			}
			close(t->fd);
			t->fd = -1;
			collect(t, false);
		}
	}
	for (size_t i = 0; i < n; i++) {
		p[i].out[p[i].got] = '\0';
		if (p[i].fd >= 0)
			close(p[i].fd);
		p[i].fd = -1;
		if (p[i].pid > 0) {
			p[i].timed_out = true;
			collect(&p[i], true);
		}
	}
}

/* the first line of output, shortened, for observed */
static void first_line(const char *s, char *out, size_t size)
{
	size_t l = strcspn(s, "\n");
	snprintf(out, size, "%.*s", (int)(l > 80 ? 80 : l), s);
}

static void run_probes(const sp_ctx *ctx, sp_result *r)
{
	unsigned to = (unsigned)sp_policy_int(ctx->policy, "tools.timeout_ms", 5000);
	if (to == 0)
		to = 5000;
	if (to > 15000)
		to = 15000; /* the check itself is bounded at 20 s */
	sp_expected(r, "every tools.probes entry exits 0 within %u ms and its output matches its pattern", to);
	tool_probe *p = sp_xcalloc(MAX_PROBES, sizeof *p);
	sp_outcome o = {0};
	int np = parse_probes(sp_policy_get(ctx->policy, "tools.probes"), p, MAX_PROBES, &o);
	if (np < 0) {
		sp_errorr(r, "tools.probes: %.399s", o.why); /* the reason's bound before sp_outcome */
		free_probes(p, MAX_PROBES);
		free(p);
		return;
	}
	if (np == 0) {
		sp_skip(r, "the policy names no tool probe (tools.probes)");
		free(p);
		return;
	}
	run_all(p, (size_t)np, to);
	size_t bad = 0, errors = 0;
	for (int i = 0; i < np; i++) {
		tool_probe *t = &p[i];
		char line[100];
		first_line(t->out, line, sizeof line);
		const char *name = t->argv.v[0];
		if (t->start_err) {
			errors++;
			sp_observed_add(r, "%s: could not start: %s", name, strerror(t->start_err));
			continue;
		}
		bool exited0 = t->exited && !t->timed_out && WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0;
		bool match = regexec(&t->re, t->out, 0, NULL, 0) == 0;
		if (t->timed_out)
			sp_observed_add(r, "%s: no end within %u ms (killed); output so far '%s'", t->text, to, line);
		else if (WIFEXITED(t->status) && WEXITSTATUS(t->status) == 127 && !t->got)
			sp_observed_add(r, "%s: cannot be run (not on PATH or not executable)", t->text);
		else
			sp_observed_add(r, "%s: %s %d in %.0f ms, output '%s' %s", t->text,
					WIFEXITED(t->status) ? "exit" : "signal",
					WIFEXITED(t->status) ? WEXITSTATUS(t->status) : WTERMSIG(t->status),
					(double)t->elapsed_us / 1000, line, match ? "matches" : "does NOT match");
		bad += !(exited0 && match);
	}
	if (bad)
		sp_failr(r, "%zu of %d tool probe%s failed", bad, np, np == 1 ? "" : "s");
	else if (errors)
		sp_errorr(r, "%zu tool probe%s could not be started", errors, errors == 1 ? "" : "s");
	else
		sp_pass(r, "all %d tool probe%s passed", np, np == 1 ? "" : "s");
	free_probes(p, (size_t)np);
	free(p);
}

/* ---- tools.shell ------------------------------------------------------------------- */

/* the login shell of uid from /etc/passwd; 0, or -1 with o (errnum ENOENT:
 * no entry, or no /etc/passwd) */
static int login_shell(unsigned uid, char *out, size_t size, char *user, size_t usize, sp_outcome *o)
{
	int e = 0;
	_cleanup_free_ char *pw = sp_read_file_alloc("/etc/passwd", 4u << 20, NULL, &e);
	if (!pw)
		return sp_why_errno(o, e, "/etc/passwd unreadable: %s", strerror(e));
	char *save = NULL;
	for (char *line = strtok_r(pw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* name:passwd:uid:gid:gecos:home:shell */
		char *f[7] = {0};
		size_t nf = 0;
		char *p = line;
		while (nf < 7) {
			f[nf++] = p;
			char *c = strchr(p, ':');
			if (!c)
				break;
			*c = '\0';
			p = c + 1;
		}
		unsigned long long u;
		if (nf < 7 || sp_parse_u64(f[2], &u) < 0 || u != uid)
			continue;
		snprintf(out, size, "%s", f[6]);
		snprintf(user, usize, "%s", f[0]);
		return 0;
	}
	return sp_why_errno(o, ENOENT, "uid %u has no /etc/passwd entry", uid);
}

static void run_shell(const sp_ctx *ctx, sp_result *r)
{
	const char *want = sp_policy_get(ctx->policy, "tools.shell");
	if (!want || !*want) {
		sp_expected(r, "any login shell (tools.shell unset)");
		sp_skip(r, "the policy names no shell (tools.shell)");
		return;
	}
	sp_expected(r, "the login shell of this user is %s, and it runs", want);
	char shell[512], user[128];
	unsigned uid = (unsigned)getuid();
	sp_outcome o = {0};
	if (login_shell(uid, shell, sizeof shell, user, sizeof user, &o) < 0) {
		if (o.errnum == ENOENT) {
			/* no entry, or no /etc/passwd at all: this user has no login shell */
			sp_observed(r, "uid %u has no /etc/passwd entry", uid);
			sp_failr(r, "no login shell: uid %u is not in /etc/passwd", uid);
		} else {
			sp_errorr(r, "%s", o.why);
		}
		return;
	}
	const char *env = getenv("SHELL");
	sp_observed(r, "uid %u (%s) login shell %s; SHELL=%s", uid, user, shell[0] ? shell : "(empty: /bin/sh)",
		    env ? env : "(unset)");
	const char *have = shell[0] ? shell : "/bin/sh";
	const char *wb = strrchr(want, '/') ? strrchr(want, '/') + 1 : want;
	const char *hb = strrchr(have, '/') ? strrchr(have, '/') + 1 : have;
	bool same = strchr(want, '/') ? !strcmp(want, have) : !strcmp(wb, hb);
	struct stat st;
	bool runs = stat(have, &st) == 0 && S_ISREG(st.st_mode) && access(have, X_OK) == 0;
	if (!runs)
		sp_observed_add(r, "%s: %s", have, stat(have, &st) < 0 ? strerror(errno) : "not an executable file");
	if (!same)
		sp_failr(r, "the login shell is %s, not %s", have, want);
	else if (!runs)
		sp_failr(r, "the login shell %s cannot run", have);
	else
		sp_pass(r, "login shell %s", have);
}

/* ---- descriptors ---------------------------------------------------------------------- */

const sp_check sp_check_tools_present = {
	.id = SP_CKID(tools_present),
	.category = "tools",
	.title = "the tools the agent needs are on PATH and cannot be replaced by it",
	.rationale = "a missing tool breaks the agent; one it can overwrite is a place to plant code",
	.techniques = "T1554",
	.policy_keys = "tools.required:list,tools.probes:probes",
	.method = "read",
	.run = run_present,
	.supported = names_some_tool,
};

const sp_check sp_check_tools_probes = {
	.id = SP_CKID(tools_probes),
	.category = "tools",
	.title = "each tool's probe runs, exits 0 and prints what it should",
	.rationale = "presence is not function: a broken runtime or package manager fails only when it runs",
	.techniques = "",
	.policy_keys = "tools.probes:probes,tools.timeout_ms:int",
	.method = "action",
	.run = run_probes,
	.supported = names_some_probe,
	/* the probes run at once, each bounded by tools.timeout_ms (default 5 s) */
	.timeout_ms = 20000,
};

const sp_check sp_check_tools_shell = {
	.id = SP_CKID(tools_shell),
	.category = "tools",
	.title = "the login shell is the one the policy names",
	.rationale = "agents run their commands through the login shell; a different one changes what they do",
	.techniques = "",
	.policy_keys = "tools.shell:str",
	.method = "read",
	.run = run_shell,
	.supported = names_a_shell,
};
