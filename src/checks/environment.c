/* Environment: required variables, credentials leaking through the
 * environment (own and PID 1's), hostname, architecture and kernel per
 * policy, pseudo filesystems mounted, a sane clock, readable time zone and
 * locale. Credential values are never printed: only the variable, the shape
 * that matched and the value's length. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <net/if.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/environment.h"
#include "checks/probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the environment's reads through syscalls share one child */
static const sp_batch env_basics = {
	.id = "env.basics",
	.what = "hostname, platform, clock, mounts and locale",
};

extern char **environ;

static void run_required(const sp_ctx *ctx, sp_result *r)
{
	sp_strv need, path;
	sp_policy_list(ctx->policy, "env.required", &need);
	sp_policy_list(ctx->policy, "env.path", &path);
	sp_expected(r, "%zu variable%s set and non-empty%s", need.n, need.n == 1 ? "" : "s",
		    path.n ? ", PATH holds every env.path entry" : "");
	if (need.n == 0 && path.n == 0) {
		sp_strv_free(&need);
		sp_strv_free(&path);
		sp_skip(r, "env.required and env.path are empty");
		return;
	}
	size_t missing = 0;
	char miss[300] = "";
	for (size_t i = 0; i < need.n; i++) {
		const char *v = getenv(need.v[i]);
		bool okv = v && *v;
		sp_observed_add(r, "%s %s", need.v[i], !v ? "unset" : !*v ? "empty" : "set");
		if (!okv) {
			missing++;
			size_t l = strlen(miss);
			snprintf(miss + l, sizeof miss - l, "%s%s", l ? "," : "", need.v[i]);
		}
	}
	const char *p = getenv("PATH");
	sp_strv entries;
	sp_strv_split(&entries, p ? p : "", ":");
	for (size_t i = 0; i < path.n; i++) {
		bool in = sp_strv_contains(&entries, path.v[i]);
		sp_observed_add(r, "PATH %s %s", in ? "has" : "lacks", path.v[i]);
		if (!in) {
			missing++;
			size_t l = strlen(miss);
			snprintf(miss + l, sizeof miss - l, "%sPATH:%s", l ? "," : "", path.v[i]);
		}
	}
	sp_strv_free(&entries);
	sp_strv_free(&need);
	sp_strv_free(&path);
	if (missing)
		sp_failr(r, "missing: %s", miss);
	else
		sp_pass(r, "all required variables set");
}

/* ---- credentials ------------------------------------------------------------ */

static const struct cred_shape {
	const char *name;
	const char *re;
} shapes[] = {
	{"AWS access key id", "(^|[^A-Z0-9])(AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}([^A-Z0-9]|$)"},
	{"GitHub token", "(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,}"},
	{"GitLab token", "glpat-[A-Za-z0-9_-]{20,}"},
	{"Slack token", "xox[a-z]-[A-Za-z0-9-]{10,}"},
	{"Anthropic API key", "sk-ant-[A-Za-z0-9_-]{20,}"},
	{"OpenAI-style secret key", "(^|[^A-Za-z0-9])sk-(proj-)?[A-Za-z0-9_-]{20,}"},
	{"Google API key", "AIza[0-9A-Za-z_-]{35}"},
	{"Stripe secret key", "(sk|rk)_live_[0-9A-Za-z]{20,}"},
	{"Hugging Face token", "hf_[A-Za-z0-9]{30,}"},
	{"npm token", "npm_[A-Za-z0-9]{36}"},
	{"JSON web token", "eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}"},
	{"private key", "-----BEGIN [A-Z0-9 ]*PRIVATE KEY"},
	{"Vault token", "(^|[^A-Za-z0-9])hv[sbr]\\.[A-Za-z0-9_-]{24,}"},
	{"Azure storage key", "AccountKey=[A-Za-z0-9+/]{40,}"},
	{"URL with a password", "[a-zA-Z][a-zA-Z0-9+.-]*://[^/:@ ]+:[^/@ ]+@"},
};
/* in a configuration line: a secret-named key, its separator, and the start
 * of its value */
static const char secret_key_re[] = "(secret|token|password|passwd|api[_-]?key|access[_-]?key|private[_-]?key|"
				    "credentials?)[\"']?[[:space:]]*[:=][[:space:]]*[\"']?";

typedef struct cred_scan {
	regex_t re[SP_ARRAY_SIZE(shapes)];
	regex_t key_re;
} cred_scan;

/* the compiled patterns, once per process (NULL if they do not compile) */
static const cred_scan *creds(void)
{
	static cred_scan s;
	static int state; /* 0 not yet, 1 ready, -1 failed */
	if (state)
		return state > 0 ? &s : NULL;
	state = -1;
	for (size_t i = 0; i < SP_ARRAY_SIZE(shapes); i++)
		if (regcomp(&s.re[i], shapes[i].re, REG_EXTENDED | REG_NOSUB) != 0)
			return NULL;
	if (regcomp(&s.key_re, secret_key_re, REG_EXTENDED | REG_ICASE) != 0)
		return NULL;
	state = 1;
	return &s;
}

/* the first known token shape found anywhere in text, or NULL */
static const char *known_shape(const cred_scan *c, const char *text)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(shapes); i++)
		if (regexec(&c->re[i], text, 0, NULL, 0) == 0)
			return shapes[i].name;
	return NULL;
}

/* Does a variable's name say its value is a secret? The name is cut into
 * words at '_', '-' and '.'; a word holding SECRET, TOKEN, PASSWORD, PASSWD,
 * PASSPHRASE, CREDENTIAL, APIKEY, ACCESSKEY or PRIVATEKEY, a word that is
 * AUTH, PASS, PWD (not the shell's PWD itself), CREDS or PAT, or KEY after API,
 * ACCESS, PRIVATE, SECRET, SIGNING, ENCRYPTION or MASTER. A last word that
 * names something about the secret (TOKEN_FILE, SSH_AUTH_SOCK, AUTH_URL,
 * CLIENT_ID) says the value is not the secret itself. */
static bool secret_name(const char *name)
{
	static const char *const inside[] = {"SECRET", "TOKEN", "PASSWORD", "PASSWD", "PASSPHRASE",
					     "CREDENTIAL", "APIKEY", "ACCESSKEY", "PRIVATEKEY"};
	static const char *const whole[] = {"AUTH", "PASS", "PWD", "CREDS", "PAT"};
	static const char *const key_after[] = {"API", "ACCESS", "PRIVATE", "SECRET",
						"SIGNING", "ENCRYPTION", "MASTER"};
	static const char *const meta[] = {"FILE", "PATH", "DIR", "SOCK", "SOCKET", "URL", "URI",
					   "HOST", "PORT", "USER", "USERNAME", "NAME", "TYPE", "METHOD",
					   "MODE", "ENABLED", "DISABLED", "TIMEOUT", "TTL", "EXPIRY", "EXPIRES",
					   "LENGTH", "ID", "HEADER", "KIND", "VERSION", "REGION", "ENDPOINT",
					   "PROVIDER", "SERVER", "DOMAIN", "SCOPE", "SCOPES", "ALGORITHM", "COMMAND",
					   "HELPER", "CMD"};
	if (!strcmp(name, "PWD") || !strcmp(name, "OLDPWD"))
		return false;
	char up[256];
	size_t n = 0;
	for (; name[n] && n + 1 < sizeof up; n++)
		up[n] = (char)toupper((unsigned char)name[n]);
	up[n] = '\0';
	char *words[32];
	size_t nw = 0;
	char *save = NULL;
	for (char *w = strtok_r(up, "_-.", &save); w && nw < SP_ARRAY_SIZE(words); w = strtok_r(NULL, "_-.", &save))
		words[nw++] = w;
	if (!nw)
		return false;
	for (size_t i = 0; i < SP_ARRAY_SIZE(meta); i++)
		if (nw > 1 && !strcmp(words[nw - 1], meta[i]))
			return false;
	for (size_t k = 0; k < nw; k++) {
		for (size_t i = 0; i < SP_ARRAY_SIZE(inside); i++)
			if (strstr(words[k], inside[i]))
				return true;
		for (size_t i = 0; i < SP_ARRAY_SIZE(whole); i++)
			if (!strcmp(words[k], whole[i]))
				return true;
		if (k > 0 && !strcmp(words[k], "KEY"))
			for (size_t i = 0; i < SP_ARRAY_SIZE(key_after); i++)
				if (!strcmp(words[k - 1], key_after[i]))
					return true;
	}
	return false;
}

/* A value that cannot be a secret whatever its name says: empty, a switch
 * or placeholder word, a path (a secret's file, not the secret), an
 * unexpanded ${...}. */
static bool inert_value(const char *v)
{
	static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "none", "null", "nil",
					    "0", "1", "-", "*", "enabled", "disabled", "unset"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(words); i++)
		if (!strcasecmp(v, words[i]))
			return true;
	return !*v || v[0] == '/' || (v[0] == '$' && v[1] == '{');
}

/* A long random-looking token: 32 or more characters of the base64/base64url
 * alphabet with upper case, lower case and digits mixed, and a Shannon
 * entropy of at least 4.3 bits per character (English words and paths stay
 * well below; 32 random base62 characters are near 4.8). Hex-only digests
 * (commit ids) are not taken for secrets by shape alone. */
static bool high_entropy(const char *v)
{
	size_t len = strlen(v);
	if (len < 32 || len > 4096 || v[0] == '/')
		return false;
	unsigned count[256] = {0};
	bool up = false, low = false, dig = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];
		if (!isalnum(c) && !strchr("+/=_-.", c))
			return false;
		up |= isupper(c) != 0;
		low |= islower(c) != 0;
		dig |= isdigit(c) != 0;
		count[c]++;
	}
	if (!(up && low && dig))
		return false;
	double h = 0;
	for (size_t c = 0; c < 256; c++)
		if (count[c]) {
			double p = (double)count[c] / (double)len;
			h -= p * log2(p);
		}
	return h >= 4.3;
}

/* shape name when "NAME=value" looks like a credential, else NULL: by the
 * value's shape (a known token prefix, a JWT, a PEM key, a URL with a
 * password, a long high-entropy string) whatever the name, or by a
 * secret-sounding name whatever the value (unless the value is inert) */
const char *sp_env_credential_shape(const char *entry)
{
	const cred_scan *c = creds();
	const char *eq = strchr(entry, '=');
	if (!c || !eq)
		return NULL;
	const char *value = eq + 1;
	const char *shape = known_shape(c, value);
	if (shape)
		return shape;
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)(eq - entry), entry);
	if (secret_name(name) && !inert_value(value))
		return "secret-named variable";
	if (high_entropy(value))
		return "high-entropy string";
	return NULL;
}

const char *sp_text_credential_shape(const char *line)
{
	const cred_scan *c = creds();
	if (!c)
		return NULL;
	const char *shape = known_shape(c, line);
	if (shape)
		return shape;
	regmatch_t m;
	const char *p = line;
	while (regexec(&c->key_re, p, 1, &m, 0) == 0) {
		const char *v = p + m.rm_eo;
		size_t n = strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+=-");
		bool digit = false;
		for (size_t k = 0; k < n; k++)
			digit |= v[k] >= '0' && v[k] <= '9';
		if (n >= 12 && digit)
			return "secret-named key";
		p += m.rm_eo > 0 ? m.rm_eo : 1;
		if (!*p)
			break;
	}
	return NULL;
}

static size_t scan_env(sp_result *r, const char *where, char *const *entries, size_t n, const sp_strv *allowed,
		       size_t *hits)
{
	size_t scanned = 0;
	for (size_t i = 0; i < n; i++) {
		const char *e = entries[i];
		scanned++;
		const char *shape = sp_env_credential_shape(e);
		if (!shape)
			continue;
		char name[128];
		const char *eq = strchr(e, '=');
		snprintf(name, sizeof name, "%.*s", (int)(eq - e), e);
		if (sp_strv_contains(allowed, name)) {
			sp_observed_add(r, "%s %s: %s, allowed by env.credentials_allowed", where, name, shape);
			continue;
		}
		(*hits)++;
		/* redacted: the shape and the length, never the value */
		sp_observed_add(r, "%s %s: %s (value redacted, %zu chars)", where, name, shape, strlen(eq + 1));
	}
	return scanned;
}

static void run_credentials(const sp_ctx *ctx, sp_result *r)
{
	sp_strv allowed;
	sp_policy_list(ctx->policy, "env.credentials_allowed", &allowed);
	sp_expected(r, "no API key, token, private key or password in this process's environment or PID 1's");
	size_t hits = 0, n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	scan_env(r, "env", environ, n, &allowed, &hits);
	int err = 0;
	size_t len = 0;
	_cleanup_free_ char *p1 = sp_read_file_alloc("/proc/1/environ", 4u << 20, &len, &err);
	char note[160] = "";
	if (p1) {
		/* NUL-separated entries */
		size_t cnt = 0, cap = 64;
		char **v = sp_xcalloc(cap, sizeof *v);
		for (size_t off = 0; off < len;) {
			if (cnt == cap)
				v = sp_xrealloc(v, (cap *= 2) * sizeof *v);
			v[cnt++] = p1 + off;
			off += strlen(p1 + off) + 1;
		}
		scan_env(r, "pid1", v, cnt, &allowed, &hits);
		free(v);
		snprintf(note, sizeof note, "%zu own and %zu PID 1 variables scanned", n, cnt);
	} else if (err == EACCES || err == EPERM) {
		snprintf(note, sizeof note, "%zu own variables scanned; /proc/1/environ not readable (%s), so not exposed",
			 n, strerrorname_np(err));
	} else if (err == ENOENT && access("/proc/self", F_OK) < 0) {
		snprintf(note, sizeof note, "%zu own variables scanned; no /proc mounted, so PID 1's are not exposed", n);
	} else {
		sp_strv_free(&allowed);
		sp_errorr(r, "cannot read /proc/1/environ: %s", strerror(err));
		return;
	}
	sp_strv_free(&allowed);
	if (hits)
		sp_failr(r, "%zu credential-shaped value%s exposed (%s)", hits, hits == 1 ? "" : "s", note);
	else
		sp_pass(r, "none found (%s)", note);
}

/* ---- identity: hostname, arch, kernel ------------------------------------------ */

static void run_hostname(const sp_ctx *ctx, sp_result *r)
{
	const char *want = sp_policy_get(ctx->policy, "env.hostname");
	sp_strv forbidden;
	sp_policy_list(ctx->policy, "env.hostname_forbidden", &forbidden);
	char h[256] = "", k[256] = "";
	if (gethostname(h, sizeof h) < 0) {
		sp_strv_free(&forbidden);
		sp_errorr(r, "gethostname: %s", strerror(errno));
		return;
	}
	ssize_t kr = sp_read_file("/proc/sys/kernel/hostname", k, sizeof k);
	if (kr > 0)
		sp_trim(k);
	sp_expected(r, "hostname %s%s%s", want && *want ? "matching " : "non-empty", want && *want ? want : "",
		    forbidden.n ? ", not one of env.hostname_forbidden" : "");
	sp_observed(r, "gethostname: %s; /proc/sys/kernel/hostname: %s", h, kr > 0 ? k : "unreadable");
	bool bad_forbidden = false;
	for (size_t i = 0; i < forbidden.n; i++)
		if (sp_glob_match(forbidden.v[i], h))
			bad_forbidden = true;
	sp_strv_free(&forbidden);
	if (!h[0])
		sp_failr(r, "empty hostname");
	else if (kr > 0 && strcmp(h, k))
		sp_errorr(r, "gethostname and /proc/sys/kernel/hostname disagree");
	else if (bad_forbidden)
		sp_failr(r, "hostname '%s' is forbidden by policy (the host's name leaks into the sandbox)", h);
	else if (want && *want && !sp_glob_match(want, h))
		sp_failr(r, "hostname '%s' does not match '%s'", h, want);
	else
		sp_pass(r, "hostname '%s'", h);
}

/* env.kernel_min: "5.10" -> {5, 10}, *n = 2; 0, or -1 unless 1 to 3
 * dot-separated decimal numbers */
static int parse_version(const char *s, unsigned long v[3], size_t *n)
{
	*n = 0;
	const char *p = s;
	for (;;) {
		if (*n == 3 || !isdigit((unsigned char)*p))
			return -1;
		char *end;
		errno = 0;
		v[(*n)++] = strtoul(p, &end, 10);
		if (errno || end - p > 9)
			return -1;
		p = end;
		if (!*p)
			return 0;
		if (*p++ != '.')
			return -1;
	}
}

static int version_parse(const char *s, sp_outcome *o)
{
	unsigned long v[3];
	size_t n;
	if (parse_version(s, v, &n) == 0)
		return 0;
	sp_why(o, "'%.80s': expected a kernel version (5, 5.10 or 5.10.2)", s);
	return -1;
}

const sp_policy_type sp_ptype_version = {.name = "version", .what = "a kernel version: 5, 5.10 or 5.10.2",
					 .parse = version_parse};

/* the release ("6.1.0-18-amd64") against a minimum: <0 older, 0, >0 newer;
 * compared numerically, field by field, as far as the minimum goes */
static int release_cmp(const char *release, const unsigned long *min, size_t n)
{
	const char *a = release;
	for (size_t i = 0; i < n; i++) {
		unsigned long x = strtoul(a, (char **)&a, 10);
		if (x != min[i])
			return x < min[i] ? -1 : 1;
		if (*a == '.')
			a++;
	}
	return 0;
}

static void run_platform(const sp_ctx *ctx, sp_result *r)
{
	sp_strv arch;
	sp_policy_list(ctx->policy, "env.arch", &arch);
	const char *kmin = sp_policy_get(ctx->policy, "env.kernel_min");
	struct utsname u;
	if (uname(&u) < 0) {
		sp_strv_free(&arch);
		sp_errorr(r, "uname: %s", strerror(errno));
		return;
	}
	sp_expected(r, "arch %s, kernel %s%s", arch.n ? "in env.arch" : "any", kmin && *kmin ? ">= " : "any",
		    kmin && *kmin ? kmin : "");
	sp_observed(r, "machine %s, kernel %s %s", u.machine, u.sysname, u.release);
	bool arch_ok = arch.n == 0 || sp_strv_contains(&arch, u.machine);
	sp_strv_free(&arch);
	unsigned long min[3];
	size_t nmin = 0;
	if (kmin && *kmin && parse_version(kmin, min, &nmin) < 0) {
		sp_outcome o = {0};
		version_parse(kmin, &o);
		sp_errorr(r, "env.kernel_min: %.159s", o.why);
	} else if (!arch_ok)
		sp_failr(r, "architecture %s is not allowed by env.arch", u.machine);
	else if (nmin && release_cmp(u.release, min, nmin) < 0)
		sp_failr(r, "kernel %s is older than env.kernel_min %s", u.release, kmin);
	else
		sp_pass(r, "%s, kernel %s", u.machine, u.release);
}

/* ---- pseudo filesystems ------------------------------------------------------------ */

static const struct {
	const char *path;
	unsigned long magic;
	const char *fs;
} pseudo[] = {
	{"/proc", 0x9fa0, "proc"},
	{"/sys", 0x62656572, "sysfs"},
	{"/dev", 0, "devtmpfs/tmpfs"},
	{"/dev/pts", 0x1cd1, "devpts"},
	{"/dev/shm", 0x01021994, "tmpfs"},
};

static void run_mounts(const sp_ctx *ctx, sp_result *r)
{
	sp_strv want;
	sp_policy_list(ctx->policy, "env.mounts", &want);
	sp_expected(r, "mounted: %s", want.n ? sp_policy_get(ctx->policy, "env.mounts") : "(env.mounts empty)");
	if (want.n == 0) {
		sp_strv_free(&want);
		sp_skip(r, "env.mounts is empty");
		return;
	}
	size_t missing = 0;
	for (size_t i = 0; i < want.n; i++) {
		const char *p = want.v[i];
		struct statfs sf;
		sp_mount m;
		bool mounted = sp_mountinfo_find(p, &m) == 0 && !strcmp(m.mountpoint, p);
		int sr = statfs(p, &sf);
		unsigned long magic = 0;
		const char *fs = NULL;
		for (size_t k = 0; k < SP_ARRAY_SIZE(pseudo); k++)
			if (!strcmp(pseudo[k].path, p)) {
				magic = pseudo[k].magic;
				fs = pseudo[k].fs;
			}
		bool type_ok = sr == 0 && (magic == 0 || (unsigned long)sf.f_type == magic);
		/* /dev may be a plain tmpfs or devtmpfs; prove it holds /dev/null */
		if (!strcmp(p, "/dev")) {
			struct stat st;
			type_ok = sr == 0 && stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode);
		}
		if (sr < 0)
			sp_observed_add(r, "%s: %s", p, strerrorname_np(errno));
		else
			sp_observed_add(r, "%s: %s%s, f_type 0x%lx", p, mounted ? "mount " : "no mount entry",
					mounted ? m.fstype : "", (unsigned long)sf.f_type);
		if (!(mounted && type_ok) && !(type_ok && magic)) {
			missing++;
			sp_observed_add(r, "%s: expected %s", p, fs ? fs : "a mount");
		}
	}
	sp_strv_free(&want);
	if (missing)
		sp_failr(r, "%zu pseudo filesystem%s missing or of the wrong type", missing, missing == 1 ? "" : "s");
	else
		sp_pass(r, "all mounted");
}

/* ---- clock ---------------------------------------------------------------------------- */

static void run_clock(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "wall clock after 2024-01-01 and before 2100; monotonic and wall clocks advance together");
	struct timespec w0, m0, w1, m1, b0;
	if (clock_gettime(CLOCK_REALTIME, &w0) < 0 || clock_gettime(CLOCK_MONOTONIC, &m0) < 0) {
		sp_errorr(r, "clock_gettime: %s", strerror(errno));
		return;
	}
	struct timespec nap = {0, 2 * 1000000};
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_REALTIME, &w1);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	int bt = clock_gettime(CLOCK_BOOTTIME, &b0);
	double dw = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
	double dm = (double)(m1.tv_sec - m0.tv_sec) + (double)(m1.tv_nsec - m0.tv_nsec) / 1e9;
	char when[40];
	struct tm tm;
	gmtime_r(&w0.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	sp_observed(r, "wall %s; over a 2 ms sleep wall advanced %.1f ms, monotonic %.1f ms; boottime %s", when,
		    dw * 1000, dm * 1000, bt == 0 ? "readable" : "unreadable");
	if (w0.tv_sec < 1704067200 || w0.tv_sec > 4102444800)
		sp_failr(r, "wall clock %s is implausible", when);
	else if (dm < 0.0019 || dw < 0.0)
		sp_failr(r, "a clock did not advance over a 2 ms sleep");
	else if (dw - dm > 0.5 || dm - dw > 0.5)
		sp_warn(r, "wall and monotonic clocks disagree by %.0f ms over 2 ms (clock being stepped?)",
			(dw - dm) * 1000);
	else if (bt == 0 && (b0.tv_sec < m1.tv_sec - 1))
		sp_failr(r, "boottime behind monotonic");
	else
		sp_pass(r, "clock sane (%s)", when);
}

/* ---- time zone and locale ------------------------------------------------------------- */

/* 0 or -1; either way o says what was found */
static int tzif_ok(const char *path, sp_outcome *o)
{
	char magic[5] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sp_why_errno(o, errno, "%s: %s", path, strerrorname_np(errno));
	ssize_t n = read(fd, magic, 4);
	close(fd);
	if (n != 4 || memcmp(magic, "TZif", 4))
		return sp_why(o, "%s: not a TZif file", path);
	sp_why(o, "%s: TZif", path);
	return 0;
}

static void run_locale(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "the time zone in force is readable; the locale named by LC_ALL/LANG exists (or C/POSIX)");
	const char *tz = getenv("TZ");
	sp_outcome tzo = {0};
	int tzr;
	if (tz && *tz) {
		const char *name = tz[0] == ':' ? tz + 1 : tz;
		char path[512];
		if (name[0] == '/')
			snprintf(path, sizeof path, "%s", name);
		else
			snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", name);
		/* a POSIX TZ rule like "UTC0" or "EST5EDT" needs no file */
		bool rule = tz[0] != ':' && strpbrk(tz, "0123456789") != NULL;
		tzr = rule ? 0 : tzif_ok(path, &tzo);
		if (rule)
			sp_why(&tzo, "TZ=%s (a POSIX rule, no file needed)", tz);
	} else if (access("/etc/localtime", F_OK) == 0) {
		tzr = tzif_ok("/etc/localtime", &tzo);
	} else {
		tzr = 0;
		sp_why(&tzo, "no TZ and no /etc/localtime: UTC");
	}
	const char *lc = getenv("LC_ALL");
	if (!lc || !*lc)
		lc = getenv("LANG");
	char lwhy[200];
	int lr = 0;
	if (!lc || !*lc || !strcmp(lc, "C") || !strcmp(lc, "POSIX") || !strncmp(lc, "C.", 2)) {
		snprintf(lwhy, sizeof lwhy, "locale %s (built in)", lc && *lc ? lc : "unset: C");
	} else {
		char path[300];
		struct stat st;
		snprintf(path, sizeof path, "/usr/lib/locale/%s", lc);
		bool have = stat(path, &st) == 0 || stat("/usr/lib/locale/locale-archive", &st) == 0;
		/* locale directories spell utf8 without the dash */
		if (!have) {
			char alt[300];
			snprintf(alt, sizeof alt, "%s", path);
			char *u = strstr(alt, "UTF-8");
			if (u) {
				memmove(u + 3, u + 4, strlen(u + 4) + 1);
				u[0] = 'u', u[1] = 't', u[2] = 'f';
				have = stat(alt, &st) == 0;
			}
		}
		lr = have ? 0 : -1;
		snprintf(lwhy, sizeof lwhy, "locale %s %s", lc, have ? "present" : "has no files in /usr/lib/locale");
	}
	sp_observed(r, "%.299s; %s", tzo.why, lwhy);
	if (tzr < 0)
		sp_failr(r, "time zone unreadable");
	else if (lr < 0)
		sp_warn(r, "locale %s is named but not installed (programs fall back to C)", lc);
	else
		sp_pass(r, "time zone and locale readable");
}

const sp_check sp_check_env_required = {
	.id = SP_CKID(env_required),
	.category = "environment",
	.title = "required environment variables set",
	.rationale = "tools inside the sandbox break in confusing ways without HOME, PATH or TERM",
	.techniques = "",
	.policy_keys = "env.required:list,env.path:list",
	.method = "read",
	.run = run_required,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_env_credentials = {
	.id = SP_CKID(env_credentials),
	.category = "environment",
	.title = "no credentials in the environment or PID 1's environment",
	.rationale = "an agent reads its environment first; a token there is a token exfiltrated",
	.techniques = "AML.T0055,T1552",
	.policy_keys = "env.credentials_allowed:list",
	.method = "read",
	.run = run_credentials,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_env_hostname = {
	.id = SP_CKID(env_hostname),
	.category = "environment",
	.title = "hostname per policy",
	.rationale = "the host's own name inside the sandbox shows a shared UTS namespace and identifies the host",
	.techniques = "",
	.policy_keys = "env.hostname:str,env.hostname_forbidden:list",
	.method = "read",
	.run = run_hostname,
	.batch = &env_basics,
};

const sp_check sp_check_env_platform = {
	.id = SP_CKID(env_platform),
	.category = "environment",
	.title = "architecture and kernel version per policy",
	.rationale = "workloads and the isolation they rely on assume an architecture and a minimum kernel",
	.techniques = "",
	.policy_keys = "env.arch:list,env.kernel_min:version",
	.method = "read",
	.run = run_platform,
	.batch = &env_basics,
};

const sp_check sp_check_env_mounts = {
	.id = SP_CKID(env_mounts),
	.category = "environment",
	.title = "/proc, /sys, /dev, /dev/pts and /dev/shm mounted",
	.rationale = "a usable sandbox has its own pseudo filesystems, of the right type",
	.techniques = "",
	.policy_keys = "env.mounts:paths",
	.method = "read",
	.run = run_mounts,
	.batch = &env_basics,
};

const sp_check sp_check_env_clock = {
	.id = SP_CKID(env_clock),
	.category = "environment",
	.title = "clocks sane",
	.rationale = "TLS, tokens and logs fail with a wrong or frozen clock",
	.techniques = "",
	.policy_keys = "",
	.method = "action",
	.run = run_clock,
	.batch = &env_basics,
};

const sp_check sp_check_env_locale = {
	.id = SP_CKID(env_locale),
	.category = "environment",
	.title = "time zone and locale readable",
	.rationale = "an unreadable zone file silently turns local times into UTC",
	.techniques = "",
	.policy_keys = "",
	.method = "read",
	.run = run_locale,
	.batch = &env_basics,
};

/* ---- values, not just presence ------------------------------------------------------ */

/* env.values: "NAME=VALUE" (exact) and "NAME~REGEX" (extended regex)
 * entries separated by ';'. A value that looks like a credential is never
 * shown, matching or not. */
struct env_value {
	char name[128];
	const char *want; /* into the parsed copy */
	bool pattern;
	regex_t re;
};

static void free_values(struct env_value **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]->pattern)
			regfree(&v[i]->re);
		free(v[i]);
	}
	free(v);
}

/* Parse env.values (copy is cut in place); the entries in *out. 0, or -1
 * with o's reason (nothing to free then). */
static int parse_values(char *copy, struct env_value ***out, size_t *nout, sp_outcome *o)
{
	struct env_value **v = NULL;
	size_t n = 0;
	char *save = NULL;
	*out = NULL;
	*nout = 0;
	for (char *e = strtok_r(copy, ";", &save); e; e = strtok_r(NULL, ";", &save)) {
		/* continuation lines arrive joined with ',' */
		while (*e == ' ' || *e == '\t' || *e == ',')
			e++;
		size_t l = strlen(e);
		while (l && (e[l - 1] == ' ' || e[l - 1] == '\t' || e[l - 1] == ','))
			e[--l] = '\0';
		if (!*e)
			continue;
		size_t nl = strcspn(e, "=~");
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(nl < sizeof name ? nl : sizeof name - 1), e);
		sp_trim(name);
		if (!e[nl] || !name[0]) {
			free_values(v, n);
			return sp_why(o, "'%.100s': expected NAME=VALUE or NAME~REGEX", e);
		}
		if (nl >= sizeof name) {
			free_values(v, n);
			return sp_why(o, "'%.100s': the variable name is longer than %zu characters", e, sizeof name - 1);
		}
		/* each on its own: a compiled regex_t is not moved */
		struct env_value *x = sp_xcalloc(1, sizeof *x);
		snprintf(x->name, sizeof x->name, "%s", name);
		x->pattern = e[nl] == '~';
		x->want = e + nl + 1;
		if (x->pattern) {
			if (sp_regex_compile(&x->re, x->want, REG_EXTENDED | REG_NOSUB, o) < 0) {
				sp_why_prefix(o, "'%.100s'", e);
				free(x);
				free_values(v, n);
				return -1;
			}
		}
		v = sp_xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = x;
	}
	*out = v;
	*nout = n;
	return 0;
}

static int values_parse(const char *spec, sp_outcome *o)
{
	_cleanup_free_ char *copy = sp_xstrdup(spec);
	struct env_value **v;
	size_t n;
	if (parse_values(copy, &v, &n, o) < 0)
		return -1;
	free_values(v, n);
	return 0;
}

const sp_policy_type sp_ptype_env_values = {.name = "env_values",
					    .what = "NAME=VALUE (exact) or NAME~REGEX (extended regex) entries separated by ';'",
					    .parse = values_parse};

static void run_values(const sp_ctx *ctx, sp_result *r)
{
	const char *spec = sp_policy_get(ctx->policy, "env.values");
	sp_expected(r, "%s", spec && *spec ? spec : "(env.values empty)");
	if (!spec || !*spec) {
		sp_skip(r, "the policy names no expected value (env.values)");
		return;
	}
	_cleanup_free_ char *copy = sp_xstrdup(spec);
	struct env_value **want;
	size_t n = 0, bad = 0;
	char badlist[300] = "";
	sp_outcome o = {0};
	if (parse_values(copy, &want, &n, &o) < 0) {
		sp_errorr(r, "env.values: %s", o.why);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct env_value *w = want[i];
		const char *v = getenv(w->name);
		bool okv = v && (w->pattern ? regexec(&w->re, v, 0, NULL, 0) == 0 : !strcmp(v, w->want));
		_cleanup_free_ char *entry = v ? sp_xasprintf("%s=%s", w->name, v) : NULL;
		const char *shape = entry ? sp_env_credential_shape(entry) : NULL;
		if (!v)
			sp_observed_add(r, "%s unset", w->name);
		else if (shape)
			sp_observed_add(r, "%s %s (value redacted: %s, %zu chars)", w->name, okv ? "matches" : "DIFFERS", shape,
					strlen(v));
		else
			sp_observed_add(r, "%s=%.120s %s", w->name, v, okv ? "matches" : "DIFFERS");
		if (!okv) {
			bad++;
			size_t bl = strlen(badlist);
			snprintf(badlist + bl, sizeof badlist - bl, "%s%s", bl ? "," : "", w->name);
		}
	}
	free_values(want, n);
	if (n == 0)
		sp_skip(r, "env.values holds no entry");
	else if (bad)
		sp_failr(r, "%zu of %zu variable%s without the expected value: %s", bad, n, n == 1 ? "" : "s", badlist);
	else
		sp_pass(r, "all %zu variable%s hold the expected value", n, n == 1 ? "" : "s");
}

/* env.kernel_release: exact, or "~REGEX": 0 (the regex compiled into re
 * when *pattern), or -1 with o's reason */
static int parse_release(const char *want, bool *pattern, regex_t *re, sp_outcome *o)
{
	*pattern = want[0] == '~';
	if (!*pattern)
		return 0;
	if (sp_regex_compile(re, want + 1, REG_EXTENDED | REG_NOSUB, o) < 0) {
		sp_why_prefix(o, "'%.100s'", want);
		return -1;
	}
	return 0;
}

static int release_parse(const char *want, sp_outcome *o)
{
	bool pattern;
	regex_t re;
	if (parse_release(want, &pattern, &re, o) < 0)
		return -1;
	if (pattern)
		regfree(&re);
	return 0;
}

const sp_policy_type sp_ptype_release = {.name = "release", .what = "an exact kernel release, or ~REGEX (extended)",
					 .parse = release_parse};

static void run_kernel_release(const sp_ctx *ctx, sp_result *r)
{
	const char *want = sp_policy_get(ctx->policy, "env.kernel_release");
	if (!want || !*want) {
		sp_expected(r, "any (env.kernel_release unset)");
		sp_skip(r, "the policy names no kernel release (env.kernel_release)");
		return;
	}
	bool pattern;
	regex_t re;
	sp_outcome o = {0};
	if (parse_release(want, &pattern, &re, &o) < 0) {
		sp_expected(r, "kernel release %s", want);
		sp_errorr(r, "env.kernel_release: %.199s", o.why); /* the reason's bound before sp_outcome */
		return;
	}
	sp_expected(r, "kernel release %s %s", pattern ? "matching" : "exactly", pattern ? want + 1 : want);
	struct utsname u;
	if (uname(&u) < 0) {
		if (pattern)
			regfree(&re);
		sp_errorr(r, "uname: %s", strerror(errno));
		return;
	}
	char proc[256] = "";
	ssize_t pr = sp_read_file("/proc/sys/kernel/osrelease", proc, sizeof proc);
	if (pr > 0)
		sp_trim(proc);
	sp_observed(r, "uname release %s; /proc/sys/kernel/osrelease %s", u.release, pr > 0 ? proc : "unreadable");
	bool okv;
	if (pattern) {
		okv = regexec(&re, u.release, 0, NULL, 0) == 0;
		regfree(&re);
	} else {
		okv = !strcmp(u.release, want);
	}
	if (pr > 0 && strcmp(proc, u.release))
		sp_errorr(r, "uname and /proc/sys/kernel/osrelease disagree: cannot judge");
	else if (!okv)
		sp_failr(r, "kernel release %s, not %s", u.release, want);
	else
		sp_pass(r, "kernel release %s", u.release);
}

/* env.interfaces_up: each named interface exists and is administratively up */
static void run_interfaces_up(const sp_ctx *ctx, sp_result *r)
{
	sp_strv want;
	sp_policy_list(ctx->policy, "env.interfaces_up", &want);
	sp_expected(r, "up: %s", want.n ? sp_policy_get(ctx->policy, "env.interfaces_up") : "(env.interfaces_up empty)");
	if (want.n == 0) {
		sp_strv_free(&want);
		sp_skip(r, "the policy names no interface that must be up (env.interfaces_up)");
		return;
	}
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		int e = errno;
		sp_strv_free(&want);
		sp_errorr(r, "no socket to ask the interfaces' state with: %s", strerror(e));
		return;
	}
	size_t bad = 0;
	char badlist[300] = "";
	for (size_t i = 0; i < want.n; i++) {
		struct ifreq ifr;
		memset(&ifr, 0, sizeof ifr);
		snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", want.v[i]);
		const char *state;
		bool up = false;
		if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
			state = errno == ENODEV ? "ABSENT" : strerror(errno);
		} else {
			up = (ifr.ifr_flags & IFF_UP) != 0;
			state = !up ? "DOWN" : (ifr.ifr_flags & IFF_RUNNING) ? "up, carrier" : "up, no carrier";
		}
		sp_observed_add(r, "%s %s", want.v[i], state);
		if (!up) {
			bad++;
			size_t bl = strlen(badlist);
			snprintf(badlist + bl, sizeof badlist - bl, "%s%s", bl ? "," : "", want.v[i]);
		}
	}
	close(s);
	if (bad)
		sp_failr(r, "%zu interface%s not up: %s", bad, bad == 1 ? "" : "s", badlist);
	else
		sp_pass(r, "all %zu interface%s up", want.n, want.n == 1 ? "" : "s");
	sp_strv_free(&want);
}

/* env.swap: on (at least one active swap area), off, or any */
static const char *const swap_states[] = {"on", "off", "any", NULL};
const sp_policy_type sp_ptype_swap = {.name = "swap", .what = "on, off or any", .choices = swap_states};

static void run_swap_state(const sp_ctx *ctx, sp_result *r)
{
	const char *want = sp_policy_get(ctx->policy, "env.swap");
	if (!want || !*want)
		want = "any";
	sp_outcome o = {0};
	if (sp_policy_value_check(&sp_ptype_swap, want, &o) < 0) {
		sp_errorr(r, "env.swap: %.199s", o.why);
		return;
	}
	sp_expected(r, "swap %s", want);
	if (!strcmp(want, "any")) {
		sp_skip(r, "the policy demands nothing of swap (env.swap = any)");
		return;
	}
	int e = 0;
	_cleanup_free_ char *swaps = sp_read_file_alloc("/proc/swaps", 1 << 20, NULL, &e);
	if (!swaps) {
		sp_errorr(r, "cannot read /proc/swaps: %s", strerror(e));
		return;
	}
	size_t active = 0;
	char first[160] = "";
	char *save = NULL;
	/* the first line is the header */
	for (char *line = strtok_r(swaps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Filename", 8))
			continue;
		if (!active)
			snprintf(first, sizeof first, "%.150s", line);
		active++;
	}
	sp_observed(r, "%zu active swap area%s%s%s", active, active == 1 ? "" : "s", active ? ": " : "", first);
	if (!strcmp(want, "on") && !active)
		sp_failr(r, "no swap active, the policy demands swap");
	else if (!strcmp(want, "off") && active)
		sp_failr(r, "swap is on: memory can reach disk");
	else
		sp_pass(r, "swap %s", active ? "on" : "off");
}

const sp_check sp_check_env_values = {
	.id = SP_CKID(env_values),
	.category = "environment",
	.title = "environment variables hold the values the policy names",
	.rationale = "a variable that is set to the wrong value (a proxy, a CA bundle, a home) misleads every tool",
	.techniques = "",
	.policy_keys = "env.values:env_values",
	.method = "read",
	.run = run_values,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_env_kernel_release = {
	.id = SP_CKID(env_kernel_release),
	.category = "environment",
	.title = "kernel release exactly (or matching) what the policy names",
	.rationale = "a guest kernel other than the one built for the sandbox lacks its hardening",
	.techniques = "",
	.policy_keys = "env.kernel_release:release",
	.method = "read",
	.run = run_kernel_release,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_env_interfaces_up = {
	.id = SP_CKID(env_interfaces_up),
	.category = "environment",
	.title = "the interfaces the sandbox needs exist and are up",
	.rationale = "a sandbox whose proxy path or loopback is down is broken, not sealed",
	.techniques = "",
	.policy_keys = "env.interfaces_up:list",
	.method = "read",
	.run = run_interfaces_up,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_env_swap = {
	.id = SP_CKID(env_swap),
	.category = "environment",
	.title = "swap on or off as the policy demands",
	.rationale = "the policy may require swap (memory-hungry agents) or forbid it (secrets must not reach disk)",
	.techniques = "",
	.policy_keys = "env.swap:swap",
	.method = "read",
	.run = run_swap_state,
	.flags = SP_CHECK_INPROCESS,
};
