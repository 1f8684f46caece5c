/* Plan parser: YAML tree -> sp_gate_plan, validated (see plan.h and
 * docs/plan-format.md). Nothing here opens a bundle; the signing key is
 * loaded by the decision (it is a path the plan names). */
#include "gate/plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "core/util.h"
#include "yaml/ytree.h"

const char *const sp_prof_names[SP_PROF_COUNT] = {"R0", "G2", "R24", "E72"};

int sp_prof_index(const char *name)
{
	for (int i = 0; i < SP_PROF_COUNT; i++)
		if (!strcmp(name, sp_prof_names[i]))
			return i;
	return -1;
}

struct pctx {
	const char *origin;
	sp_error *err;
};

#define BAD(n, ...) sp_usage_at(p->err, p->origin, (n)->line, __VA_ARGS__)

/* ---- time and durations ------------------------------------------------ */
static int digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int sp_gate_parse_time(const char *s, time_t *out)
{
	int Y, M, D, h, m, sec;
	size_t n = strlen(s);
	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
	    digits(s, 4, &Y) || digits(s + 5, 2, &M) || digits(s + 8, 2, &D) || digits(s + 11, 2, &h) ||
	    digits(s + 14, 2, &m) || digits(s + 17, 2, &sec))
		return -1;
	const char *t = s + 19;
	if (*t == '.') {
		t++;
		if (!isdigit((unsigned char)*t))
			return -1;
		while (isdigit((unsigned char)*t))
			t++;
	}
	if (strcmp(t, "Z"))
		return -1;
	if (Y < 1970 || Y > 9999 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 59)
		return -1;
	struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec};
	time_t v = timegm(&tm);
	struct tm back;
	if (v == (time_t)-1 || !gmtime_r(&v, &back) || back.tm_mday != D || back.tm_mon != M - 1)
		return -1; /* Feb 30 and the like */
	*out = v;
	return 0;
}

void sp_gate_format_time(time_t t, char *buf, size_t size)
{
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, size, "?");
}

int sp_gate_parse_duration(const char *s, long long *out)
{
	unsigned long long v = 0;
	size_t i = 0;
	while (s[i] >= '0' && s[i] <= '9' && i < 8)
		v = v * 10 + (unsigned long long)(s[i++] - '0');
	if (i == 0 || !s[i] || s[i + 1] || v == 0)
		return -1;
	long long mul;
	switch (s[i]) {
	case 's': mul = 1; break;
	case 'm': mul = 60; break;
	case 'h': mul = 3600; break;
	case 'd': mul = 86400; break;
	case 'w': mul = 7 * 86400; break;
	default: return -1;
	}
	long long r = (long long)v * mul;
	if (r > 3650LL * 86400) /* ten years */
		return -1;
	*out = r;
	return 0;
}

void sp_gate_format_duration(long long s, char *buf, size_t size)
{
	if (s % (7 * 86400) == 0)
		snprintf(buf, size, "%lldw", s / (7 * 86400));
	else if (s % 86400 == 0)
		snprintf(buf, size, "%lldd", s / 86400);
	else if (s % 3600 == 0)
		snprintf(buf, size, "%lldh", s / 3600);
	else if (s % 60 == 0)
		snprintf(buf, size, "%lldm", s / 60);
	else
		snprintf(buf, size, "%llds", s);
}

/* ---- typed accessors --------------------------------------------------- */
static int want(struct pctx *p, const sp_ynode *n, sp_ynode_kind k, const char *key)
{
	return sp_ynode_want(n, k, key, p->origin, p->err);
}

static int get_text(struct pctx *p, const sp_ynode *n, const char *key, size_t max, char **out)
{
	if (want(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	if (!n->str[0])
		return BAD(n, "'%s' must not be empty", key);
	if (strlen(n->str) > max)
		return BAD(n, "'%s' is longer than %zu characters", key, max);
	for (const unsigned char *c = (const unsigned char *)n->str; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return BAD(n, "'%s' contains a control character", key);
	free(*out);
	*out = sp_xstrdup(n->str);
	return 0;
}

/* ids: first an alphanumeric, then letters, digits, '.', '_', '-' */
static int get_id(struct pctx *p, const sp_ynode *n, const char *key, size_t max, char **out)
{
	if (get_text(p, n, key, max, out) < 0)
		return -1;
	const char *s = *out;
	if (!isalnum((unsigned char)s[0]))
		return BAD(n, "'%s' must start with a letter or digit (got '%.64s')", key, s);
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
			return BAD(n, "'%s' may only contain letters, digits, '.', '_' and '-' (got '%.64s')", key, s);
	return 0;
}

static int get_int(struct pctx *p, const sp_ynode *n, const char *key, int lo, int hi, int *out)
{
	return sp_ynode_int(n, key, lo, hi, out, p->origin, p->err);
}

static int get_digest(struct pctx *p, const sp_ynode *n, const char *key, char out[72])
{
	if (want(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	const char *s = n->str;
	if (strncmp(s, "sha256:", 7) || strlen(s) != 71)
		return BAD(n, "'%s' must be sha256:<64 hex digits> (got '%.80s')", key, s);
	for (int i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[7 + i]))
			return BAD(n, "'%s' must be sha256:<64 hex digits> (got '%.80s')", key, s);
	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 64; i++)
		out[7 + i] = (char)tolower((unsigned char)s[7 + i]);
	out[71] = '\0';
	return 0;
}

static int check_keys(struct pctx *p, const sp_ynode *map, const char *where, const char *const *allowed)
{
	const sp_ynode *k = sp_ynode_unknown_key(map, allowed);
	if (!k)
		return 0;
	if (!strncasecmp(k->str, "waive", 5) || !strncasecmp(k->str, "exempt", 6))
		return BAD(k, "'%.40s': a plan has no waivers (owners are recorded and shown, never used to waive a cell)",
			   k->str);
	return BAD(k, "unknown key '%.60s' in %s", k->str, where);
}

static int need(struct pctx *p, const sp_ynode *map, const char *key, const char *where, const sp_ynode **out)
{
	*out = sp_ynode_get(map, key);
	if (!*out)
		return BAD(map, "%s has no '%s'", where, key);
	return 0;
}

/* name: digest mapping */
static int get_artifacts(struct pctx *p, const sp_ynode *n, const char *key, sp_gate_plan_artifact **out, size_t *nout)
{
	if (want(p, n, SP_YN_MAP, key) < 0)
		return -1;
	if (n->n > SP_PLAN_MAX_ARTIFACTS)
		return BAD(n, "'%s' names more than %d artifacts", key, SP_PLAN_MAX_ARTIFACTS);
	*out = sp_xcalloc(n->n ? n->n : 1, sizeof **out);
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *k = n->items[2 * i], *v = n->items[2 * i + 1];
		sp_gate_plan_artifact *a = &(*out)[(*nout)++];
		if (get_id(p, k, "artifact name", 48, &a->name) < 0)
			return -1;
		for (const char *c = a->name; *c; c++)
			if (isupper((unsigned char)*c))
				return BAD(k, "artifact name '%s' must be lowercase", a->name);
		_cleanup_free_ char *what = sp_xasprintf("%s.%s", key, a->name);
		if (get_digest(p, v, what, a->digest) < 0)
			return -1;
	}
	return 0;
}

/* ---- sections ---------------------------------------------------------- */
static int parse_candidate(struct pctx *p, sp_gate_plan *pl, const sp_ynode *n)
{
	static const char *const keys[] = {"id", "artifacts", NULL};
	const sp_ynode *v;
	if (want(p, n, SP_YN_MAP, "candidate") < 0 || check_keys(p, n, "candidate", keys) < 0)
		return -1;
	if (need(p, n, "id", "candidate", &v) < 0 || get_text(p, v, "candidate.id", 128, &pl->candidate_id) < 0)
		return -1;
	if (need(p, n, "artifacts", "candidate", &v) < 0 ||
	    get_artifacts(p, v, "candidate.artifacts", &pl->art, &pl->nart) < 0)
		return -1;
	if (pl->nart == 0)
		return BAD(v, "'candidate.artifacts' must name at least one artifact digest (a plan without one would accept any build)");
	return 0;
}

static int parse_evidence(struct pctx *p, sp_gate_plan *pl, const sp_ynode *n, const sp_ynode **valid_node)
{
	static const char *const keys[] = {"valid_for", "not_before", "retries", "promotion_order", NULL};
	const sp_ynode *v;
	if (want(p, n, SP_YN_MAP, "evidence") < 0 || check_keys(p, n, "evidence", keys) < 0)
		return -1;
	if (need(p, n, "valid_for", "evidence", &v) < 0)
		return -1;
	*valid_node = v;
	for (int i = 0; i < SP_PROF_COUNT; i++)
		pl->valid_for_s[i] = -1;
	if (v->kind == SP_YN_SCALAR) {
		long long d;
		if (sp_gate_parse_duration(v->str, &d) < 0)
			return BAD(v, "'evidence.valid_for' must be a duration like 7d, 36h, 90m or 2w, at most 10 years (got '%.40s')",
				   v->str);
		for (int i = 0; i < SP_PROF_COUNT; i++)
			pl->valid_for_s[i] = d;
	} else if (v->kind == SP_YN_MAP) {
		long long def = -1;
		for (size_t i = 0; i < v->n; i++) {
			const sp_ynode *k = v->items[2 * i], *d = v->items[2 * i + 1];
			int pi = sp_prof_index(k->str);
			if (pi < 0 && strcmp(k->str, "default"))
				return BAD(k, "'evidence.valid_for' keys are R0, G2, R24, E72 and default (got '%.40s')", k->str);
			long long s;
			if (d->kind != SP_YN_SCALAR || sp_gate_parse_duration(d->str, &s) < 0)
				return BAD(d, "'evidence.valid_for.%s' must be a duration like 7d, 36h, 90m or 2w, at most 10 years",
					   k->str);
			if (pi < 0)
				def = s;
			else
				pl->valid_for_s[pi] = s;
		}
		for (int i = 0; i < SP_PROF_COUNT; i++)
			if (pl->valid_for_s[i] < 0)
				pl->valid_for_s[i] = def;
	} else {
		return BAD(v, "'evidence.valid_for' must be a duration or a mapping of profile to duration");
	}
	if ((v = sp_ynode_get(n, "not_before"))) {
		if (want(p, v, SP_YN_SCALAR, "evidence.not_before") < 0)
			return -1;
		if (sp_gate_parse_time(v->str, &pl->not_before) < 0)
			return BAD(v, "'evidence.not_before' must be a UTC time like 2026-08-01T00:00:00Z (got '%.40s')", v->str);
		pl->has_not_before = true;
		sp_gate_format_time(pl->not_before, pl->not_before_text, sizeof pl->not_before_text);
	}
	if ((v = sp_ynode_get(n, "retries")) && get_int(p, v, "evidence.retries", 0, 100, &pl->retries) < 0)
		return -1;
	pl->order_in_time = true;
	if ((v = sp_ynode_get(n, "promotion_order"))) {
		if (want(p, v, SP_YN_SCALAR, "evidence.promotion_order") < 0)
			return -1;
		if (!strcmp(v->str, "state"))
			pl->order_in_time = false;
		else if (strcmp(v->str, "time"))
			return BAD(v, "'evidence.promotion_order' is time (default) or state (got '%.40s')", v->str);
	}
	return 0;
}

static int parse_signing(struct pctx *p, sp_gate_plan *pl, const sp_ynode *n, const char *base_dir)
{
	static const char *const keys[] = {"pubkey", NULL};
	const sp_ynode *v;
	if (want(p, n, SP_YN_MAP, "signing") < 0 || check_keys(p, n, "signing", keys) < 0)
		return -1;
	_cleanup_free_ char *path = NULL;
	if (need(p, n, "pubkey", "signing", &v) < 0 || get_text(p, v, "signing.pubkey", 4096, &path) < 0)
		return -1;
	pl->pubkey_line = v->line;
	if (path[0] == '/' || !base_dir || !base_dir[0])
		pl->pubkey_path = sp_xstrdup(path);
	else
		pl->pubkey_path = sp_xasprintf("%s/%s", base_dir, path);
	return 0;
}

/* ---- lanes: host class and isolation ------------------------------------ */
bool sp_gate_norm_arch(const char *name, char *buf, size_t size)
{
	static const char *const alias[][2] = {
		{"amd64", "x86_64"},
		{"x86-64", "x86_64"},
		{"x64", "x86_64"},
		{"arm64", "aarch64"},
		{"i386", "i686"},
		{"x86", "i686"},
		{"ppc64el", "ppc64le"},
		{"armhf", "armv7l"},
	};
	size_t n = strlen(name);
	if (n == 0 || n >= size || n > 32 || !isalnum((unsigned char)name[0]))
		return false;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
			return false;
	snprintf(buf, size, "%s", name);
	for (size_t i = 0; i < SP_ARRAY_SIZE(alias); i++)
		if (!strcmp(name, alias[i][0]))
			snprintf(buf, size, "%s", alias[i][1]);
	return true;
}

/* the isolation classes the gate knows: the kernel boundary and the
 * runtimes (the workload's runtime.name, metadata runtime=) that provide it */
static const struct iso_class {
	const char *names[4];
	const char *boundary;
	const char *runtimes[16];
} iso_classes[] = {
	{{"oci-sandbox", "container", "shared-kernel", NULL},
	 "shared host kernel",
	 {"runc", "crun", "youki", "docker", "podman", "containerd", "nerdctl", "bwrap", "bubblewrap", "firejail",
	  "nspawn", "systemd-nspawn", "lxc", NULL}},
	{{"gvisor", "user-kernel", NULL}, "user-space kernel", {"runsc", "gvisor", NULL}},
	{{"kvm-microvm", "microvm", "vm", NULL},
	 "guest kernel (virtual machine)",
	 {"kata", "kata-runtime", "kata-qemu", "kata-fc", "firecracker", "cloud-hypervisor", "qemu", "krun", "libkrun",
	  "a3s-box", NULL}},
};

static const struct iso_class *iso_class(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(iso_classes); i++)
		for (size_t k = 0; iso_classes[i].names[k]; k++)
			if (!strcmp(iso_classes[i].names[k], name))
				return &iso_classes[i];
	return NULL;
}

static int parse_lane_class(struct pctx *p, sp_gate_plan_lane *l, const sp_ynode *hc, const sp_ynode *iso,
			    const sp_ynode *rt)
{
	if (strncmp(l->host_class, "linux-", 6) || !sp_gate_norm_arch(l->host_class + 6, l->arch, sizeof l->arch))
		return BAD(hc,
			   "lane %s: host_class '%.60s' must be linux-ARCH (linux-x86_64, linux-arm64 ...): the gate compares ARCH with a bundle's host_arch",
			   l->id, l->host_class);
	const struct iso_class *ic = iso_class(l->isolation);
	l->boundary = ic ? ic->boundary : "as the lane's runtimes provide";
	if (rt) {
		size_t n = rt->kind == SP_YN_SEQ ? rt->n : 1;
		if (rt->kind == SP_YN_MAP || n == 0 || n > 32)
			return BAD(rt, "lane %s: 'runtimes' must be a runtime name or a list of 1 to 32", l->id);
		l->runtimes = sp_xcalloc(n, sizeof *l->runtimes);
		for (size_t i = 0; i < n; i++) {
			const sp_ynode *v = rt->kind == SP_YN_SEQ ? rt->items[i] : rt;
			if (get_id(p, v, "runtimes item", 64, &l->runtimes[l->nruntimes++]) < 0)
				return -1;
		}
		return 0;
	}
	if (!ic)
		return BAD(iso,
			   "lane %s: isolation '%.60s' is not a class the gate knows (oci-sandbox, gvisor, kvm-microvm ...): list the runtimes that provide it ('runtimes: [NAME]')",
			   l->id, l->isolation);
	size_t n = 0;
	while (ic->runtimes[n])
		n++;
	l->runtimes = sp_xcalloc(n, sizeof *l->runtimes);
	for (size_t i = 0; i < n; i++)
		l->runtimes[l->nruntimes++] = sp_xstrdup(ic->runtimes[i]);
	return 0;
}

static ssize_t lane_index(const sp_gate_plan *pl, const char *id)
{
	for (size_t i = 0; i < pl->nlanes; i++)
		if (!strcmp(pl->lanes[i].id, id))
			return (ssize_t)i;
	return -1;
}

static int parse_lanes(struct pctx *p, sp_gate_plan *pl, const sp_ynode *n)
{
	static const char *const keys[] = {"id", "title", "host_class", "isolation", "runtimes", "artifacts", NULL};
	if (want(p, n, SP_YN_SEQ, "lanes") < 0)
		return -1;
	if (n->n == 0 || n->n > SP_PLAN_MAX_LANES)
		return BAD(n, "'lanes' must list 1 to %d lanes", SP_PLAN_MAX_LANES);
	pl->lanes = sp_xcalloc(n->n, sizeof *pl->lanes);
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *it = n->items[i], *v;
		sp_gate_plan_lane *l = &pl->lanes[pl->nlanes++];
		l->line = it->line;
		if (want(p, it, SP_YN_MAP, "lanes item") < 0 || check_keys(p, it, "a lane", keys) < 0)
			return -1;
		if (need(p, it, "id", "a lane", &v) < 0 || get_id(p, v, "id", 64, &l->id) < 0)
			return -1;
		if (lane_index(pl, l->id) != (ssize_t)i)
			return BAD(v, "duplicate lane id '%s'", l->id);
		const sp_ynode *hc, *iso;
		if (need(p, it, "host_class", "lane", &hc) < 0 || get_text(p, hc, "host_class", 128, &l->host_class) < 0)
			return -1;
		if (need(p, it, "isolation", "lane", &iso) < 0 || get_text(p, iso, "isolation", 128, &l->isolation) < 0)
			return -1;
		if (parse_lane_class(p, l, hc, iso, sp_ynode_get(it, "runtimes")) < 0)
			return -1;
		if ((v = sp_ynode_get(it, "title")) && get_text(p, v, "title", 200, &l->title) < 0)
			return -1;
		if ((v = sp_ynode_get(it, "artifacts")) && get_artifacts(p, v, "artifacts", &l->art, &l->nart) < 0)
			return -1;
	}
	return 0;
}

static bool plan_has_change(const sp_gate_plan *pl, const char *kind)
{
	for (size_t i = 0; i < pl->nchanges; i++)
		if (!strcmp(pl->changes[i], kind))
			return true;
	return false;
}

/* require: {kind: {lane: [profiles]}} */
static int parse_require(struct pctx *p, sp_gate_plan *pl, sp_gate_plan_scenario *s, const sp_ynode *n, bool *used)
{
	if (want(p, n, SP_YN_MAP, "require") < 0)
		return -1;
	if (n->n == 0)
		return BAD(n, "'require' of scenario %s names no kind of change", s->id);
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *k = n->items[2 * i], *lanes = n->items[2 * i + 1];
		_cleanup_free_ char *kind = NULL;
		if (get_id(p, k, "kind of change", 48, &kind) < 0)
			return -1;
		bool active = plan_has_change(pl, kind);
		for (size_t c = 0; c < pl->nchanges; c++)
			if (!strcmp(pl->changes[c], kind))
				used[c] = true;
		if (want(p, lanes, SP_YN_MAP, kind) < 0)
			return -1;
		for (size_t j = 0; j < lanes->n; j++) {
			const sp_ynode *ln = lanes->items[2 * j], *profs = lanes->items[2 * j + 1];
			ssize_t li = lane_index(pl, ln->str);
			if (li < 0)
				return BAD(ln, "scenario %s requires lane '%.64s', which 'lanes' does not declare", s->id, ln->str);
			size_t np = profs->kind == SP_YN_SEQ ? profs->n : 1;
			if (profs->kind == SP_YN_MAP || np == 0)
				return BAD(profs, "'%s.%s' must be a profile or a list of profiles (R0, G2, R24, E72)", kind,
					   ln->str);
			for (size_t q = 0; q < np; q++) {
				const sp_ynode *pn = profs->kind == SP_YN_SEQ ? profs->items[q] : profs;
				int pi = pn->kind == SP_YN_SCALAR ? sp_prof_index(pn->str) : -1;
				if (pi < 0)
					return BAD(pn, "'%.40s' is not a promotion profile (R0, G2, R24, E72)",
						   pn->kind == SP_YN_SCALAR ? pn->str : "?");
				if (active)
					s->required[li] |= 1u << pi;
			}
		}
	}
	return 0;
}

static int parse_scenarios(struct pctx *p, sp_gate_plan *pl, const sp_ynode *n, bool *used)
{
	static const char *const keys[] = {"id", "title", "owner", "workload", "retries", "require", NULL};
	if (want(p, n, SP_YN_SEQ, "scenarios") < 0)
		return -1;
	if (n->n == 0 || n->n > SP_PLAN_MAX_SCENARIOS)
		return BAD(n, "'scenarios' must list 1 to %d scenarios", SP_PLAN_MAX_SCENARIOS);
	pl->scen = sp_xcalloc(n->n, sizeof *pl->scen);
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *it = n->items[i], *v;
		sp_gate_plan_scenario *s = &pl->scen[pl->nscen++];
		s->line = it->line;
		s->retries = pl->retries;
		s->required = sp_xcalloc(pl->nlanes, sizeof *s->required);
		if (want(p, it, SP_YN_MAP, "scenarios item") < 0 || check_keys(p, it, "a scenario", keys) < 0)
			return -1;
		if (need(p, it, "id", "a scenario", &v) < 0 || get_id(p, v, "id", 32, &s->id) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (!strcasecmp(pl->scen[j].id, s->id))
				return BAD(v, "duplicate scenario id '%s' (ids are compared without case)", s->id);
		if (need(p, it, "owner", "scenario", &v) < 0 || get_text(p, v, "owner", 200, &s->owner) < 0)
			return -1;
		if ((v = sp_ynode_get(it, "title")) && get_text(p, v, "title", 200, &s->title) < 0)
			return -1;
		if ((v = sp_ynode_get(it, "workload"))) {
			char d[72];
			if (get_digest(p, v, "workload", d) < 0)
				return -1;
			memcpy(s->workload, d + 7, 65);
		}
		if ((v = sp_ynode_get(it, "retries")) && get_int(p, v, "retries", 0, 100, &s->retries) < 0)
			return -1;
		if (need(p, it, "require", "scenario", &v) < 0 || parse_require(p, pl, s, v, used) < 0)
			return -1;
	}
	return 0;
}

int sp_plan_parse(sp_gate_plan *pl, const char *text, size_t len, const char *origin, const char *base_dir,
		  sp_error *err)
{
	static const char *const keys[] = {"version", "name", "candidate", "changes", "evidence",
					   "signing", "lanes", "scenarios", NULL};
	struct pctx pc = {.origin = origin, .err = err}, *p = &pc;
	memset(pl, 0, sizeof *pl);
	if (len > SP_PLAN_MAX_BYTES)
		return sp_usage(err, "%s: plan file too large (at most %d bytes)", origin, SP_PLAN_MAX_BYTES);
	if (memchr(text, '\0', len))
		return sp_usage(err, "%s:1: NUL byte in the plan", origin);
	sp_ydoc *doc = sp_yaml_parse(text, len, origin, err);
	sp_ynode *root = doc ? doc->root : NULL;
	if (!root) {
		/* the tree builder words its refusals for workloads */
		char *w = strstr(err->msg, " in a workload");
		if (w) {
			char tail[sizeof err->msg];
			snprintf(tail, sizeof tail, "%s", w + strlen(" in a workload"));
			snprintf(w, sizeof err->msg - (size_t)(w - err->msg), " in a plan%s", tail);
		}
		return -1;
	}
	int rc = -1;
	bool *used = NULL;
	const sp_ynode *v, *valid_node = NULL;
	if (root->kind != SP_YN_MAP) {
		BAD(root, "a plan must be a mapping (version, name, candidate, changes, evidence, lanes, scenarios)");
		goto out;
	}
	if (root->n == 0) {
		sp_usage_at(p->err, p->origin, 1, "empty plan (it needs version, name, candidate, changes, evidence, lanes and scenarios)");
		goto out;
	}
	if (check_keys(p, root, "the plan", keys) < 0)
		goto out;
	int version = 0;
	if (need(p, root, "version", "the plan", &v) < 0 || get_int(p, v, "version", 1, 1000, &version) < 0)
		goto out;
	if (version != 1) {
		BAD(v, "plan version %d is not supported (this sandprobe reads version 1)", version);
		goto out;
	}
	if (need(p, root, "name", "the plan", &v) < 0 || get_id(p, v, "name", 64, &pl->name) < 0)
		goto out;
	if (need(p, root, "candidate", "the plan", &v) < 0 || parse_candidate(p, pl, v) < 0)
		goto out;
	const sp_ynode *changes;
	if (need(p, root, "changes", "the plan", &changes) < 0 || want(p, changes, SP_YN_SEQ, "changes") < 0)
		goto out;
	if (changes->n == 0 || changes->n > 64) {
		BAD(changes, "'changes' must list 1 to 64 kinds of change");
		goto out;
	}
	pl->changes = sp_xcalloc(changes->n, sizeof *pl->changes);
	for (size_t i = 0; i < changes->n; i++) {
		char *c = NULL;
		if (get_id(p, changes->items[i], "changes item", 48, &c) < 0) {
			free(c);
			goto out;
		}
		if (plan_has_change(pl, c)) {
			BAD(changes->items[i], "'changes' lists '%s' twice", c);
			free(c);
			goto out;
		}
		pl->changes[pl->nchanges++] = c;
	}
	if (need(p, root, "evidence", "the plan", &v) < 0 || parse_evidence(p, pl, v, &valid_node) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "signing")) && parse_signing(p, pl, v, base_dir) < 0)
		goto out;
	if (need(p, root, "lanes", "the plan", &v) < 0 || parse_lanes(p, pl, v) < 0)
		goto out;
	used = sp_xcalloc(pl->nchanges, sizeof *used);
	if (need(p, root, "scenarios", "the plan", &v) < 0 || parse_scenarios(p, pl, v, used) < 0)
		goto out;

	/* what the plan requires for its changes must be something */
	for (size_t c = 0; c < pl->nchanges; c++)
		if (!used[c]) {
			BAD(changes->items[c], "'changes' lists '%s', which no scenario's 'require' names", pl->changes[c]);
			goto out;
		}
	unsigned all = 0;
	for (size_t i = 0; i < pl->nscen; i++)
		for (size_t l = 0; l < pl->nlanes; l++)
			all |= pl->scen[i].required[l];
	if (!all) {
		BAD(changes, "the plan requires no cell for its changes (a plan that requires nothing would pass anything)");
		goto out;
	}
	/* every profile a required cell needs (with the promotion order: all
	 * earlier ones too) has a lifetime */
	int top = 0;
	for (int i = 0; i < SP_PROF_COUNT; i++)
		if (all & (1u << i))
			top = i;
	for (int i = 0; i <= top; i++)
		if (pl->valid_for_s[i] < 0) {
			BAD(valid_node, "'evidence.valid_for' gives no lifetime for %s evidence (add %s: or default:)",
			    sp_prof_names[i], sp_prof_names[i]);
			goto out;
		}
	pl->text = sp_xmalloc(len + 1);
	memcpy(pl->text, text, len);
	pl->text[len] = '\0';
	pl->len = len;
	unsigned char md[32];
	unsigned mdlen = 0;
	if (!EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
		sp_fail_errno(err, 0, "%s: cannot compute SHA-256", origin);
		goto out;
	}
	for (int i = 0; i < 32; i++)
		snprintf(pl->sha256 + 2 * i, 3, "%02x", md[i]);
	pl->path = sp_xstrdup(origin);
	rc = 0;
out:
	free(used);
	sp_ydoc_free(doc);
	if (rc < 0)
		sp_plan_free(pl);
	return rc;
}

int sp_plan_load(sp_gate_plan *p, const char *path, sp_error *err)
{
	int errnum = 0;
	size_t len = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, SP_PLAN_MAX_BYTES, &len, &errnum);
	if (!text)
		return errnum == EFBIG ? sp_usage(err, "%s: plan file too large (at most %d bytes)", path, SP_PLAN_MAX_BYTES)
				       : sp_usage(err, "%s: cannot read the plan: %s", path, strerror(errnum));
	_cleanup_free_ char *dir = sp_xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return sp_plan_parse(p, text, len, path, slash ? (dir[0] ? dir : "/") : NULL, err);
}

static void art_free(sp_gate_plan_artifact *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(a[i].name);
	free(a);
}

void sp_plan_free(sp_gate_plan *p)
{
	free(p->path);
	free(p->name);
	free(p->candidate_id);
	art_free(p->art, p->nart);
	for (size_t i = 0; i < p->nchanges; i++)
		free(p->changes[i]);
	free(p->changes);
	free(p->pubkey_path);
	for (size_t i = 0; i < p->nlanes; i++) {
		free(p->lanes[i].id);
		free(p->lanes[i].title);
		free(p->lanes[i].host_class);
		free(p->lanes[i].isolation);
		for (size_t k = 0; k < p->lanes[i].nruntimes; k++)
			free(p->lanes[i].runtimes[k]);
		free(p->lanes[i].runtimes);
		art_free(p->lanes[i].art, p->lanes[i].nart);
	}
	free(p->lanes);
	for (size_t i = 0; i < p->nscen; i++) {
		free(p->scen[i].id);
		free(p->scen[i].title);
		free(p->scen[i].owner);
		free(p->scen[i].required);
	}
	free(p->scen);
	free(p->text);
	memset(p, 0, sizeof *p);
}

size_t sp_plan_lane_artifacts(const sp_gate_plan *p, size_t lane, const sp_gate_plan_artifact **out, size_t max)
{
	size_t n = 0;
	const sp_gate_plan_lane *l = &p->lanes[lane];
	for (size_t i = 0; i < p->nart && n < max; i++) {
		const sp_gate_plan_artifact *a = &p->art[i];
		for (size_t j = 0; j < l->nart; j++)
			if (!strcmp(l->art[j].name, a->name))
				a = &l->art[j];
		out[n++] = a;
	}
	for (size_t j = 0; j < l->nart && n < max; j++) {
		bool dup = false;
		for (size_t i = 0; i < p->nart; i++)
			dup |= !strcmp(p->art[i].name, l->art[j].name);
		if (!dup)
			out[n++] = &l->art[j];
	}
	return n;
}
