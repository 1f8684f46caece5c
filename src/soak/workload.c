/* Workload parser: YAML tree -> sp_soak_workload, validated (see workload.h). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <openssl/evp.h>

#include "core/op_classes.h"
#include "soak/faultproxy.h"
#include "soak/workload.h"
#include "yaml/ytree.h"
#include "core/util.h"

#define SP_OP_CLASS_AT(name, str) [SP_CLASS_##name] = str,
static const char *const class_names[SP_CLASS_COUNT] = {SP_OP_CLASSES(SP_OP_CLASS_AT)};
static const int default_mix[SP_CLASS_COUNT] = {40, 20, 15, 15, 10};

const char *sp_class_name(sp_soak_class c)
{
	return (unsigned)c < SP_CLASS_COUNT ? class_names[c] : "?";
}

/* where a placeholder may appear */
enum { CTX_GLOBAL = 1, CTX_SCENARIO = 2 };

struct pctx {
	const char *origin;
	sp_error *err;
	bool has_rootfs; /* {rootfs} is only available when 'rootfs' is declared */
};

/* ---- placeholders ---- */
static const char *const var_names[] = {"id", "sid", "gen", "state", "rootfs", "prefix", "run", "scenario", "exe"};
static const int var_ctx[] = {CTX_SCENARIO, CTX_SCENARIO, CTX_SCENARIO, CTX_GLOBAL, CTX_GLOBAL,
			      CTX_GLOBAL, CTX_GLOBAL, CTX_SCENARIO, CTX_GLOBAL};

static const char *var_value(const sp_soak_vars *v, size_t i)
{
	const char *vals[] = {v->id, v->sid, v->gen, v->state, v->rootfs, v->prefix, v->run, v->scenario, v->exe};
	return vals[i];
}

/* A placeholder is '{' + [a-z_]+ + '}' not preceded by '$' (so shell
 * "${var}", awk "{print $1}", jq "{type: .t}" and Go "{{.Names}}" stay
 * literal). Returns the name length and sets *name, or 0 when c does not
 * start a placeholder. */
static size_t placeholder_at(const char *start, const char *c, const char **name)
{
	if (*c != '{' || (c > start && c[-1] == '$') || (c > start && c[-1] == '{') || c[1] == '{')
		return 0;
	size_t n = 0;
	while ((c[1 + n] >= 'a' && c[1 + n] <= 'z') || c[1 + n] == '_')
		n++;
	if (n == 0 || c[1 + n] != '}')
		return 0;
	*name = c + 1;
	return n;
}

static ssize_t var_index(const char *name, size_t len)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(var_names); i++)
		if (strlen(var_names[i]) == len && !strncmp(name, var_names[i], len))
			return (ssize_t)i;
	return -1;
}

/* Check every placeholder of s is known and allowed in ctx (bitmask). */
static int check_placeholders(struct pctx *p, const sp_ynode *n, const char *s, int ctx)
{
	for (const char *c = s; *c; c++) {
		const char *name;
		size_t len = placeholder_at(s, c, &name);
		if (!len)
			continue;
		ssize_t i = var_index(name, len);
		if (i < 0)
			return sp_usage(p->err, "%s:%d: unknown placeholder '{%.*s}' (known: {id} {sid} {gen} {scenario} {state} {rootfs} {prefix} {run} {exe})",
					p->origin, n->line, (int)(len > 40 ? 40 : len), name);
		if (!(var_ctx[i] & ctx))
			return sp_usage(p->err, "%s:%d: placeholder '{%s}' is only available in scenario steps", p->origin, n->line, var_names[i]);
		if (!strcmp(var_names[i], "rootfs") && !p->has_rootfs)
			return sp_usage(p->err, "%s:%d: placeholder '{rootfs}' needs a top-level 'rootfs' key", p->origin, n->line);
		c += len + 1;
	}
	return 0;
}

char *sp_expand(const char *tmpl, const sp_soak_vars *v)
{
	size_t cap = strlen(tmpl) + 64, len = 0;
	char *out = sp_xmalloc(cap);
	for (const char *c = tmpl; *c; c++) {
		const char *piece = c, *name;
		size_t plen = 1, nlen = placeholder_at(tmpl, c, &name);
		if (nlen) {
			ssize_t i = var_index(name, nlen);
			if (i < 0 || !var_value(v, (size_t)i)) {
				free(out);
				return NULL;
			}
			piece = var_value(v, (size_t)i);
			plen = strlen(piece);
			c += nlen + 1;
		}
		if (len + plen + 1 > cap) {
			cap = (len + plen + 1) * 2;
			out = sp_xrealloc(out, cap);
		}
		memcpy(out + len, piece, plen);
		len += plen;
	}
	out[len] = '\0';
	return out;
}

/* ---- typed accessors ---- */
static int want_kind(struct pctx *p, const sp_ynode *n, sp_ynode_kind k, const char *key)
{
	static const char *const kn[] = {"a scalar", "a list", "a mapping"};
	if (n->kind != k)
		return sp_usage(p->err, "%s:%d: '%s' must be %s", p->origin, n->line, key, kn[k]);
	return 0;
}

static int get_str(struct pctx *p, const sp_ynode *n, const char *key, char **out)
{
	if (want_kind(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	if (!n->str[0])
		return sp_usage(p->err, "%s:%d: '%s' must not be empty", p->origin, n->line, key);
	for (const char *c = n->str; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t')
			return sp_usage(p->err, "%s:%d: '%s' contains a control character", p->origin, n->line, key);
	free(*out);
	*out = sp_xstrdup(n->str);
	return 0;
}

static int get_int(struct pctx *p, const sp_ynode *n, const char *key, long long lo, long long hi, long long *out)
{
	unsigned long long v;
	if (want_kind(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	if (sp_parse_u64(n->str, &v) < 0 || v < (unsigned long long)lo || v > (unsigned long long)hi)
		return sp_usage(p->err, "%s:%d: '%s' must be an integer from %lld to %lld (got '%.40s')", p->origin, n->line,
				key, lo, hi, n->str);
	*out = (long long)v;
	return 0;
}

static int get_int32(struct pctx *p, const sp_ynode *n, const char *key, int lo, int hi, int *out)
{
	long long v = 0;
	if (get_int(p, n, key, lo, hi, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

static int get_num(struct pctx *p, const sp_ynode *n, const char *key, double lo, double hi, double *out)
{
	char *end;
	if (want_kind(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	errno = 0;
	double v = strtod(n->str, &end);
	if (!n->str[0] || *end || errno || !isfinite(v) || v < lo || v > hi || n->str[0] == ' ')
		return sp_usage(p->err, "%s:%d: '%s' must be a number from %g to %g (got '%.40s')", p->origin, n->line, key,
				lo, hi, n->str);
	*out = v;
	return 0;
}

static int get_bool(struct pctx *p, const sp_ynode *n, const char *key, bool *out)
{
	if (want_kind(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	if (!strcmp(n->str, "true"))
		*out = true;
	else if (!strcmp(n->str, "false"))
		*out = false;
	else
		return sp_usage(p->err, "%s:%d: '%s' must be true or false (got '%.40s')", p->origin, n->line, key, n->str);
	return 0;
}

static int get_argv(struct pctx *p, const sp_ynode *n, const char *key, int ctx, sp_strv *out)
{
	if (want_kind(p, n, SP_YN_SEQ, key) < 0)
		return -1;
	if (n->n == 0)
		return sp_usage(p->err, "%s:%d: '%s' must list at least the program", p->origin, n->line, key);
	if (n->n > 4096)
		return sp_usage(p->err, "%s:%d: '%s' has too many arguments", p->origin, n->line, key);
	sp_strv_free(out);
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *a = n->items[i];
		if (a->kind != SP_YN_SCALAR) {
			sp_strv_free(out);
			return sp_usage(p->err, "%s:%d: every item of '%s' must be a string", p->origin, a->line, key);
		}
		if (i == 0 && !a->str[0]) {
			sp_strv_free(out);
			return sp_usage(p->err, "%s:%d: '%s' has an empty program name", p->origin, a->line, key);
		}
		if (check_placeholders(p, a, a->str, ctx) < 0) {
			sp_strv_free(out);
			return -1;
		}
		sp_strv_push(out, a->str);
	}
	return 0;
}

/* op names and scenario ids: [A-Za-z0-9._-], 1..48 */
static int check_name(struct pctx *p, const sp_ynode *n, const char *key, const char *s)
{
	size_t len = strlen(s);
	if (len == 0 || len > 48)
		return sp_usage(p->err, "%s:%d: '%s' must be 1 to 48 characters", p->origin, n->line, key);
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
		      *c == '_' || *c == '.'))
			return sp_usage(p->err, "%s:%d: '%s' may only contain letters, digits, '.', '_' and '-' (got '%.48s')",
					p->origin, n->line, key, s);
	return 0;
}

/* Walk a mapping: every key must be in allowed (NULL-terminated). */
static int check_keys(struct pctx *p, const sp_ynode *map, const char *where, const char *const *allowed)
{
	const sp_ynode *k = sp_ynode_unknown_key(map, allowed);
	if (k)
		return sp_usage(p->err, "%s:%d: unknown key '%.60s' in %s", p->origin, k->line, k->str, where);
	return 0;
}

static void steps_free(sp_soak_wsteps *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].op);
		sp_strv_free(&s->v[i].argv);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* A step list: each item a bare argv list or a mapping {op, argv, expect,
 * timeout_ms, invariant}. Bare lists are named "<section>-<n>". */
static int get_steps(struct pctx *p, const sp_ynode *n, const char *section, int ctx, int default_timeout,
		     sp_soak_wsteps *out)
{
	static const char *const keys[] = {"op", "argv", "expect", "timeout_ms", "invariant", NULL};
	if (want_kind(p, n, SP_YN_SEQ, section) < 0)
		return -1;
	if (n->n > 256)
		return sp_usage(p->err, "%s:%d: '%s' has too many steps", p->origin, n->line, section);
	out->v = sp_xcalloc(n->n ? n->n : 1, sizeof(sp_soak_wstep));
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *it = n->items[i];
		sp_soak_wstep *st = &out->v[out->n++];
		st->line = it->line;
		st->timeout_ms = default_timeout;
		if (it->kind == SP_YN_SEQ) {
			st->op = sp_xasprintf("%s-%zu", section, i + 1);
			if (get_argv(p, it, section, ctx, &st->argv) < 0)
				return -1;
			continue;
		}
		if (it->kind != SP_YN_MAP)
			return sp_usage(p->err, "%s:%d: each item of '%s' must be an argument list or a step mapping",
					p->origin, it->line, section);
		if (check_keys(p, it, "a step", keys) < 0)
			return -1;
		const sp_ynode *v;
		if ((v = sp_ynode_get(it, "op"))) {
			if (get_str(p, v, "op", &st->op) < 0 || check_name(p, v, "op", st->op) < 0)
				return -1;
		} else {
			st->op = sp_xasprintf("%s-%zu", section, i + 1);
		}
		if (!(v = sp_ynode_get(it, "argv")))
			return sp_usage(p->err, "%s:%d: step '%s' has no 'argv'", p->origin, it->line, st->op);
		if (get_argv(p, v, "argv", ctx, &st->argv) < 0)
			return -1;
		if ((v = sp_ynode_get(it, "expect"))) {
			if (want_kind(p, v, SP_YN_SCALAR, "expect") < 0)
				return -1;
			if (!strcmp(v->str, "ok"))
				st->expect_fail = false;
			else if (!strcmp(v->str, "fail"))
				st->expect_fail = true;
			else
				return sp_usage(p->err, "%s:%d: 'expect' must be ok or fail (got '%.40s')", p->origin, v->line, v->str);
		}
		if ((v = sp_ynode_get(it, "timeout_ms")) && get_int32(p, v, "timeout_ms", 1, 3600000, &st->timeout_ms) < 0)
			return -1;
		if ((v = sp_ynode_get(it, "invariant")) && get_bool(p, v, "invariant", &st->invariant) < 0)
			return -1;
		for (size_t j = 0; j + 1 < out->n; j++)
			if (!strcmp(out->v[j].op, st->op))
				return sp_usage(p->err, "%s:%d: duplicate op '%s' in '%s'", p->origin, it->line, st->op, section);
	}
	return 0;
}

static const sp_soak_wstep *find_step(const sp_soak_wsteps *s, const char *op)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].op, op))
			return &s->v[i];
	return NULL;
}

static int parse_signal(const char *s)
{
	static const struct {
		const char *n;
		int sig;
	} sigs[] = {{"KILL", SIGKILL}, {"TERM", SIGTERM}, {"INT", SIGINT}, {"HUP", SIGHUP}, {"QUIT", SIGQUIT}};
	for (size_t i = 0; i < SP_ARRAY_SIZE(sigs); i++)
		if (!strcmp(s, sigs[i].n) || (sp_startswith(s, "SIG") && !strcmp(s + 3, sigs[i].n)))
			return sigs[i].sig;
	return -1;
}

/* a path key of F05/F09: a string with placeholders, absolute once expanded */
static int get_path(struct pctx *p, const sp_ynode *v, const char *key, char **out)
{
	if (get_str(p, v, key, out) < 0 || check_placeholders(p, v, *out, CTX_GLOBAL | CTX_SCENARIO) < 0)
		return -1;
	if ((*out)[0] != '/' && (*out)[0] != '{')
		return sp_usage(p->err, "%s:%d: '%s' must be an absolute path (got '%.60s')", p->origin, v->line, key, *out);
	return 0;
}

/* F05's and F09's own keys (the others refuse them) */
static int get_fault_f05_f09(struct pctx *p, const sp_ynode *n, sp_soak_wfault *f)
{
	static const char *const f05[] = {"modefile", "mode", "window_ms", "blobs", NULL};
	static const char *const f09[] = {"link", "from", "to", "next", NULL};
	bool is05 = !strcmp(f->id, "F05"), is09 = !strcmp(f->id, "F09");
	const sp_ynode *v;
	for (int k = 0; k < 2; k++)
		for (const char *const *key = k ? f09 : f05; *key; key++)
			if ((v = sp_ynode_get(n, *key)) && !(k ? is09 : is05) &&
			    !(f->cut && (!strcmp(*key, "modefile") || !strcmp(*key, "window_ms")))) /* F06's cut has both */
				return sp_usage(p->err, "%s:%d: '%s' is for %s only", p->origin, v->line, *key, k ? "F09" : "F05");
	if (is05) {
		if (!(v = sp_ynode_get(n, "modefile")))
			return sp_usage(p->err, "%s:%d: F05 needs 'modefile', the fault proxy's mode file", p->origin, n->line);
		if (get_path(p, v, "modefile", &f->modefile) < 0)
			return -1;
		if (!(v = sp_ynode_get(n, "mode")))
			return sp_usage(p->err, "%s:%d: F05 needs 'mode' (disconnect, truncate:N, stall, slow:BPS or redirect:PORT)",
					p->origin, n->line);
		sp_fp_mode_t m = {SP_FP_PASS, 0};
		const char *why = "pass is no fault";
		if (get_str(p, v, "mode", &f->mode) < 0)
			return -1;
		if (sp_fp_mode_parse(f->mode, strlen(f->mode), &m, &why) < 0 || m.mode == SP_FP_PASS)
			return sp_usage(p->err, "%s:%d: 'mode' must be disconnect, truncate:N, stall, slow:BPS or redirect:PORT (got '%.40s': %s)",
					p->origin, v->line, f->mode, why);
		f->window_ms = 2000;
		if ((v = sp_ynode_get(n, "window_ms")) && get_int32(p, v, "window_ms", 1, 3600000, &f->window_ms) < 0)
			return -1;
		if ((v = sp_ynode_get(n, "blobs")) && get_argv(p, v, "blobs", CTX_GLOBAL | CTX_SCENARIO, &f->blobs) < 0)
			return -1;
		if (f->window_ms >= f->rto_ms)
			return sp_usage(p->err, "%s:%d: F05's window_ms (%d) must be shorter than its rto_ms (%d)", p->origin, n->line,
					f->window_ms, f->rto_ms);
	}
	if (is09) {
		static const char *const need[] = {"link", "from", "to"};
		char **out[] = {&f->link, &f->from, &f->to};
		for (size_t i = 0; i < 3; i++) {
			if (!(v = sp_ynode_get(n, need[i])))
				return sp_usage(p->err, "%s:%d: F09 needs '%s' (link: the runtime path the workload calls, from: version N, to: version N+1)",
						p->origin, n->line, need[i]);
			if (get_path(p, v, need[i], out[i]) < 0)
				return -1;
		}
		if ((v = sp_ynode_get(n, "next"))) {
			if (want_kind(p, v, SP_YN_SCALAR, "next") < 0)
				return -1;
			if (!strcmp(v->str, "fail-closed"))
				f->next_fail_closed = true;
			else if (strcmp(v->str, "keep"))
				return sp_usage(p->err, "%s:%d: 'next' must be keep or fail-closed (got '%.40s')", p->origin, v->line, v->str);
		}
	}
	return 0;
}

/* F06 bounded connection loss: cut (disconnect|stall), modefile, window_ms */
static int netloss_keys(struct pctx *p, const sp_ynode *n, sp_soak_wfault *f, bool is_f06)
{
	const sp_ynode *v;
	static const char *const only = "%s:%d: '%s' is for F05 only, or F06 with 'cut' (a bounded connection loss)";
	if ((v = sp_ynode_get(n, "cut"))) {
		if (!is_f06)
			return sp_usage(p->err, only, p->origin, v->line, "cut");
		if (get_str(p, v, "cut", &f->cut) < 0)
			return -1;
		if (strcmp(f->cut, "disconnect") && strcmp(f->cut, "stall"))
			return sp_usage(p->err, "%s:%d: 'cut' must be disconnect or stall (got '%.20s')", p->origin, v->line, f->cut);
	}
	if (!strcmp(f->id, "F05"))
		return 0; /* its modefile and window_ms are F05's own (get_fault_f05_f09) */
	if ((v = sp_ynode_get(n, "modefile"))) {
		if (!f->cut)
			return sp_usage(p->err, only, p->origin, v->line, "modefile");
		if (get_str(p, v, "modefile", &f->modefile) < 0 ||
		    check_placeholders(p, v, f->modefile, CTX_GLOBAL | CTX_SCENARIO) < 0)
			return -1;
		if (!sp_startswith(f->modefile, "{state}/") || strstr(f->modefile, ".."))
			return sp_usage(p->err, "%s:%d: 'modefile' must be a file under {state}/ (the run writes it)", p->origin,
					v->line);
	} else if (f->cut) {
		return sp_usage(p->err, "%s:%d: F06 with 'cut' needs 'modefile', the mode file of the fault proxy in the path",
				p->origin, n->line);
	}
	f->window_ms = 2000;
	if ((v = sp_ynode_get(n, "window_ms"))) {
		if (!f->cut)
			return sp_usage(p->err, only, p->origin, v->line, "window_ms");
		if (get_int32(p, v, "window_ms", 1, 600000, &f->window_ms) < 0)
			return -1;
	}
	return 0;
}

/* F08 (fault_vm.c): the canary VM's QMP socket and its state command */
static int get_f08(struct pctx *p, const sp_ynode *n, sp_soak_wfault *f, bool is_f08)
{
	const sp_ynode *q = sp_ynode_get(n, "qmp"), *s = sp_ynode_get(n, "state");
	if (!is_f08 && (q || s))
		return sp_usage(p->err, "%s:%d: '%s' is for F08 only (the canary VM)", p->origin, (q ? q : s)->line, q ? "qmp" : "state");
	if (!is_f08)
		return 0;
	if (!q || !s)
		return sp_usage(p->err, "%s:%d: F08 needs 'qmp' (the VM's QMP socket) and 'state' (a command printing the state it keeps on its disk)",
				p->origin, n->line);
	if (get_str(p, q, "qmp", &f->qmp) < 0 || check_placeholders(p, q, f->qmp, CTX_GLOBAL | CTX_SCENARIO) < 0)
		return -1;
	return get_argv(p, s, "state", CTX_GLOBAL | CTX_SCENARIO, &f->state);
}

static int get_fault(struct pctx *p, const sp_ynode *n, sp_soak_scenario *sc)
{
	static const char *const keys[] = {"id", "step", "pidfile", "portfile", "tasks", "qmp", "state", "signal",
					   "after_ms", "rto_ms", "expected", "cut", "modefile", "mode", "window_ms", "blobs",
					   "link", "from", "to", "next", NULL};
	sp_soak_wfault *f = &sc->fault;
	const sp_ynode *v;
	if (want_kind(p, n, SP_YN_MAP, "fault") < 0 || check_keys(p, n, "fault", keys) < 0)
		return -1;
	f->present = true;
	f->line = n->line;
	if (!(v = sp_ynode_get(n, "id")))
		return sp_usage(p->err, "%s:%d: fault has no 'id' (F01 to F09)", p->origin, n->line);
	if (want_kind(p, v, SP_YN_SCALAR, "id") < 0)
		return -1;
	if (strcmp(v->str, "F01") && strcmp(v->str, "F02") && strcmp(v->str, "F03") && strcmp(v->str, "F04") &&
	    strcmp(v->str, "F05") && strcmp(v->str, "F06") && strcmp(v->str, "F07") && strcmp(v->str, "F08") &&
	    strcmp(v->str, "F09"))
		return sp_usage(p->err, "%s:%d: fault id must be F01, F02, F03, F04, F05, F06, F07, F08 or F09 (got '%.20s')",
				p->origin, v->line, v->str);
	snprintf(f->id, sizeof f->id, "%s", v->str);
	bool is_f05 = !strcmp(f->id, "F05"), is_f09 = !strcmp(f->id, "F09"), is_f08 = !strcmp(f->id, "F08");
	bool is_f06 = !strcmp(f->id, "F06") || is_f05, is_f04 = !strcmp(f->id, "F04") || is_f09; /* F05: pid and port files; F09: tasks */
	bool is_cut = !strcmp(f->id, "F06") && sp_ynode_get(n, "cut"); /* bounded connection loss: no process is signalled */
	bool by_pidfile = (!strcmp(f->id, "F02") || !strcmp(f->id, "F03") || is_f04 || is_f06 || is_f08) && !is_f09 && !is_cut;
	f->signal = !strcmp(f->id, "F03") || is_f04 || is_f06 ? SIGTERM : SIGKILL;
	f->rto_ms = 10000;
	if (!(v = sp_ynode_get(n, "step")))
		return sp_usage(p->err, "%s:%d: fault has no 'step' (the step it interrupts or follows)", p->origin, n->line);
	if (get_str(p, v, "step", &f->step) < 0)
		return -1;
	if (!find_step(&sc->steps, f->step))
		return sp_usage(p->err, "%s:%d: fault step '%.48s' is not a step of scenario %s", p->origin, v->line, f->step, sc->id);
	if ((v = sp_ynode_get(n, "pidfile"))) {
		if (!by_pidfile)
			return sp_usage(p->err, "%s:%d: 'pidfile' is for F02 to F06 only, not F06 with 'cut' (%s %s)", p->origin,
					v->line, is_cut ? "F06 with 'cut'" : f->id,
					is_cut ? "cuts a path, it signals no process" : "does not signal a process");
		if (get_str(p, v, "pidfile", &f->pidfile) < 0 || check_placeholders(p, v, f->pidfile, CTX_GLOBAL | CTX_SCENARIO) < 0)
			return -1;
	} else if (by_pidfile) {
		return sp_usage(p->err, "%s:%d: %s needs 'pidfile' naming its owned target", p->origin, n->line, f->id);
	}
	if ((v = sp_ynode_get(n, "portfile"))) {
		if (!is_f06)
			return sp_usage(p->err, "%s:%d: 'portfile' is for F05 and F06 only (the proxy's loopback port)", p->origin, v->line);
		if (get_str(p, v, "portfile", &f->portfile) < 0 ||
		    check_placeholders(p, v, f->portfile, CTX_GLOBAL | CTX_SCENARIO) < 0)
			return -1;
	} else if (is_f06) {
		return sp_usage(p->err, "%s:%d: %s needs 'portfile' naming the file that holds the proxy's loopback port",
				p->origin, n->line, f->id);
	}
	if ((v = sp_ynode_get(n, "tasks"))) {
		if (!is_f04)
			return sp_usage(p->err, "%s:%d: 'tasks' is for F04 and F09 only (the daemon's tasks, the live resources)", p->origin, v->line);
		if (get_argv(p, v, "tasks", CTX_GLOBAL | CTX_SCENARIO, &f->tasks) < 0)
			return -1;
	} else if (is_f04) {
		return sp_usage(p->err, "%s:%d: %s needs 'tasks', a command listing %s one per line", p->origin, n->line, f->id,
				is_f09 ? "the live resources" : "the daemon's tasks");
	}
	if (netloss_keys(p, n, f, is_f06) < 0 || get_f08(p, n, f, is_f08) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "signal"))) {
		if (want_kind(p, v, SP_YN_SCALAR, "signal") < 0)
			return -1;
		if ((f->signal = parse_signal(v->str)) < 0)
			return sp_usage(p->err, "%s:%d: 'signal' must be KILL, TERM, INT, HUP or QUIT (got '%.20s')", p->origin, v->line, v->str);
	}
	if ((v = sp_ynode_get(n, "after_ms")) && get_int32(p, v, "after_ms", 0, 3600000, &f->after_ms) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "rto_ms")) && get_int32(p, v, "rto_ms", 1, 3600000, &f->rto_ms) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "expected"))) {
		if (get_str(p, v, "expected", &f->expected) < 0)
			return -1;
	} else {
		f->expected = sp_xstrdup("recovered");
	}
	return get_fault_f05_f09(p, n, f);
}

static int get_scenario(struct pctx *p, const sp_ynode *n, const sp_soak_workload *w, sp_soak_scenario *sc)
{
	static const char *const keys[] = {"id", "class", "api", "parallel", "start", "steps", "recover", "stop", "fault", NULL};
	const int ctx = CTX_GLOBAL | CTX_SCENARIO;
	const sp_ynode *v;
	if (want_kind(p, n, SP_YN_MAP, "scenario") < 0 || check_keys(p, n, "a scenario", keys) < 0)
		return -1;
	sc->line = n->line;
	if (!(v = sp_ynode_get(n, "id")))
		return sp_usage(p->err, "%s:%d: scenario has no 'id'", p->origin, n->line);
	if (get_str(p, v, "id", &sc->id) < 0 || check_name(p, v, "id", sc->id) < 0)
		return -1;
	if (!(v = sp_ynode_get(n, "class")))
		return sp_usage(p->err, "%s:%d: scenario %s has no 'class'", p->origin, n->line, sc->id);
	if (want_kind(p, v, SP_YN_SCALAR, "class") < 0)
		return -1;
	size_t c;
	for (c = 0; c < SP_CLASS_COUNT; c++)
		if (!strcmp(v->str, class_names[c]))
			break;
	if (c == SP_CLASS_COUNT)
		return sp_usage(p->err, "%s:%d: 'class' must be lifecycle, service, storage, network or fault (got '%.40s')",
				p->origin, v->line, v->str);
	sc->cls = (sp_soak_class)c;
	if ((v = sp_ynode_get(n, "api"))) {
		if (get_str(p, v, "api", &sc->api) < 0 || check_name(p, v, "api", sc->api) < 0)
			return -1;
	} else {
		sc->api = sp_xstrdup(w->runtime ? w->runtime : "cli");
	}
	if ((v = sp_ynode_get(n, "parallel")) && get_bool(p, v, "parallel", &sc->parallel) < 0)
		return -1;
	if (!(v = sp_ynode_get(n, "steps")))
		return sp_usage(p->err, "%s:%d: scenario %s has no 'steps'", p->origin, n->line, sc->id);
	if (get_steps(p, v, "steps", ctx, w->timeout_ms, &sc->steps) < 0)
		return -1;
	if (sc->steps.n == 0)
		return sp_usage(p->err, "%s:%d: scenario %s has an empty 'steps' list", p->origin, v->line, sc->id);
	if ((v = sp_ynode_get(n, "start")) && get_steps(p, v, "start", ctx, w->timeout_ms, &sc->start) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "recover")) && get_steps(p, v, "recover", ctx, w->timeout_ms, &sc->recover) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "stop")) && get_steps(p, v, "stop", ctx, w->timeout_ms, &sc->stop) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "fault"))) {
		if (sc->cls != SP_CLASS_FAULT)
			return sp_usage(p->err, "%s:%d: 'fault' is only allowed in a scenario of class fault", p->origin, v->line);
		if (get_fault(p, v, sc) < 0)
			return -1;
	} else if (sc->cls == SP_CLASS_FAULT) {
		return sp_usage(p->err, "%s:%d: scenario %s of class fault declares no 'fault'", p->origin, n->line, sc->id);
	}
	return 0;
}

static int get_mix(struct pctx *p, const sp_ynode *n, int mix[SP_CLASS_COUNT])
{
	static const char *const keys[] = {SP_OP_CLASSES(SP_OP_CLASS_NAME) NULL};
	_Static_assert(SP_ARRAY_SIZE(keys) == SP_CLASS_COUNT + 1, "a name for every class");
	if (want_kind(p, n, SP_YN_MAP, "mix") < 0 || check_keys(p, n, "mix", keys) < 0)
		return -1;
	int sum = 0;
	for (int c = 0; c < SP_CLASS_COUNT; c++) {
		const sp_ynode *v = sp_ynode_get(n, class_names[c]);
		mix[c] = 0;
		if (v && get_int32(p, v, class_names[c], 0, 100, &mix[c]) < 0)
			return -1;
		sum += mix[c];
	}
	if (sum != 100)
		return sp_usage(p->err, "%s:%d: 'mix' percentages must add up to 100 (they add up to %d)", p->origin, n->line, sum);
	return 0;
}

static int get_counters(struct pctx *p, const sp_ynode *n, sp_soak_workload *w)
{
	static const char *const keys[] = {"name", "dir", "argv", NULL};
	if (want_kind(p, n, SP_YN_SEQ, "counters") < 0)
		return -1;
	if (n->n > 32)
		return sp_usage(p->err, "%s:%d: at most 32 counters", p->origin, n->line);
	w->counters = sp_xcalloc(n->n ? n->n : 1, sizeof(sp_soak_counter));
	for (size_t i = 0; i < n->n; i++) {
		const sp_ynode *it = n->items[i], *v;
		sp_soak_counter *c = &w->counters[w->ncounters++];
		if (want_kind(p, it, SP_YN_MAP, "counter") < 0 || check_keys(p, it, "a counter", keys) < 0)
			return -1;
		if (!(v = sp_ynode_get(it, "name")))
			return sp_usage(p->err, "%s:%d: counter has no 'name'", p->origin, it->line);
		if (get_str(p, v, "name", &c->name) < 0 || check_name(p, v, "name", c->name) < 0)
			return -1;
		for (size_t j = 0; j + 1 < w->ncounters; j++)
			if (!strcmp(w->counters[j].name, c->name))
				return sp_usage(p->err, "%s:%d: duplicate counter '%s'", p->origin, v->line, c->name);
		const sp_ynode *d = sp_ynode_get(it, "dir"), *a = sp_ynode_get(it, "argv");
		if (!!d == !!a)
			return sp_usage(p->err, "%s:%d: counter '%s' needs exactly one of 'dir' or 'argv'", p->origin, it->line, c->name);
		if (d && (get_str(p, d, "dir", &c->dir) < 0 || check_placeholders(p, d, c->dir, CTX_GLOBAL) < 0))
			return -1;
		if (a && get_argv(p, a, "argv", CTX_GLOBAL, &c->argv) < 0)
			return -1;
	}
	return 0;
}

static int get_thresholds(struct pctx *p, const sp_ynode *n, sp_soak_workload *w)
{
	static const char *const keys[] = {"fd_growth_max", "disk_budget_bytes", "rss_slope_mib_per_day", "p95_regression_pct", NULL};
	const sp_ynode *v;
	if (want_kind(p, n, SP_YN_MAP, "thresholds") < 0 || check_keys(p, n, "thresholds", keys) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "fd_growth_max")) && get_int(p, v, "fd_growth_max", 0, 1000000, &w->fd_growth_max) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "disk_budget_bytes")) &&
	    get_int(p, v, "disk_budget_bytes", 0, 1LL << 50, &w->disk_budget_bytes) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "rss_slope_mib_per_day")) &&
	    get_num(p, v, "rss_slope_mib_per_day", 0, 1e6, &w->rss_slope_mib_per_day) < 0)
		return -1;
	if ((v = sp_ynode_get(n, "p95_regression_pct")) && get_num(p, v, "p95_regression_pct", 0, 1e6, &w->p95_regression_pct) < 0)
		return -1;
	return 0;
}

int sp_workload_parse(sp_soak_workload *w, const char *text, size_t len, const char *origin, sp_error *err)
{
	static const char *const keys[] = {"version", "name", "runtime", "state_root", "prefix", "rootfs", "concurrency",
					   "rate", "timeout_ms", "mix", "thresholds", "setup", "cleanup", "teardown",
					   "inventory", "counters", "scenarios", NULL};
	struct pctx pc = {.origin = origin, .err = err}, *p = &pc;
	const sp_ynode *v;
	int r = -1;

	memset(w, 0, sizeof *w);
	w->concurrency = 2;
	w->timeout_ms = 30000;
	memcpy(w->mix, default_mix, sizeof w->mix);
	w->fd_growth_max = 16;
	w->disk_budget_bytes = 256LL << 20;
	w->rss_slope_mib_per_day = 50;
	w->p95_regression_pct = 30;

	sp_ydoc *doc = sp_yaml_parse(text, len, origin, err);
	sp_ynode *root = doc ? doc->root : NULL;
	if (!root)
		return -1;
	if (root->kind != SP_YN_MAP) {
		sp_usage(err, "%s:%d: a workload is a mapping of keys (version, name, runtime, scenarios ...)", origin, root->line);
		goto out;
	}
	if (check_keys(p, root, "the workload", keys) < 0)
		goto out;
	if (!(v = sp_ynode_get(root, "version"))) {
		sp_usage(err, "%s:1: missing 'version: 1'", origin);
		goto out;
	}
	if (want_kind(p, v, SP_YN_SCALAR, "version") < 0)
		goto out;
	if (strcmp(v->str, "1")) {
		sp_usage(err, "%s:%d: unsupported workload version '%.20s' (this sandprobe reads version 1)", origin, v->line, v->str);
		goto out;
	}
	if (!(v = sp_ynode_get(root, "name"))) {
		sp_usage(err, "%s:1: missing 'name'", origin);
		goto out;
	}
	if (get_str(p, v, "name", &w->name) < 0 || check_name(p, v, "name", w->name) < 0)
		goto out;
	if (!(v = sp_ynode_get(root, "runtime"))) {
		sp_usage(err, "%s:1: missing 'runtime' (name and version command)", origin);
		goto out;
	}
	{
		static const char *const rkeys[] = {"name", "version", NULL};
		const sp_ynode *rn;
		if (want_kind(p, v, SP_YN_MAP, "runtime") < 0 || check_keys(p, v, "runtime", rkeys) < 0)
			goto out;
		if (!(rn = sp_ynode_get(v, "name"))) {
			sp_usage(err, "%s:%d: runtime has no 'name'", origin, v->line);
			goto out;
		}
		if (get_str(p, rn, "name", &w->runtime) < 0 || check_name(p, rn, "name", w->runtime) < 0)
			goto out;
		if (!(rn = sp_ynode_get(v, "version"))) {
			sp_usage(err, "%s:%d: runtime has no 'version' command", origin, v->line);
			goto out;
		}
		if (get_argv(p, rn, "version", CTX_GLOBAL, &w->version_argv) < 0)
			goto out;
	}
	if (!(v = sp_ynode_get(root, "state_root"))) {
		sp_usage(err, "%s:1: missing 'state_root' (the directory under which the run keeps its state)", origin);
		goto out;
	}
	if (get_str(p, v, "state_root", &w->state_root) < 0)
		goto out;
	if (w->state_root[0] != '/' || strstr(w->state_root, "/../") || sp_endswith(w->state_root, "/..") ||
	    strchr(w->state_root, '{')) {
		sp_usage(err, "%s:%d: 'state_root' must be an absolute path without '..' or placeholders", origin, v->line);
		goto out;
	}
	if (!(v = sp_ynode_get(root, "prefix"))) {
		sp_usage(err, "%s:1: missing 'prefix' (the name prefix that marks what the run owns)", origin);
		goto out;
	}
	if (get_str(p, v, "prefix", &w->prefix) < 0)
		goto out;
	{
		size_t pl = strlen(w->prefix);
		bool okp = pl >= 2 && pl <= 16 && w->prefix[0] >= 'a' && w->prefix[0] <= 'z';
		for (const char *c = w->prefix; okp && *c; c++)
			okp = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-';
		if (!okp) {
			sp_usage(err, "%s:%d: 'prefix' must be 2 to 16 characters of [a-z0-9-], starting with a letter", origin, v->line);
			goto out;
		}
	}
	if ((v = sp_ynode_get(root, "rootfs")) &&
	    (get_str(p, v, "rootfs", &w->rootfs) < 0 || check_placeholders(p, v, w->rootfs, CTX_GLOBAL) < 0))
		goto out;
	if (w->rootfs && strstr(w->rootfs, "{rootfs}")) {
		sp_usage(err, "%s:%d: 'rootfs' cannot refer to itself", origin, v->line);
		goto out;
	}
	pc.has_rootfs = w->rootfs != NULL;
	if ((v = sp_ynode_get(root, "concurrency")) && get_int32(p, v, "concurrency", 1, 256, &w->concurrency) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "rate")) && get_num(p, v, "rate", 0, 100000, &w->rate) < 0)
		goto out;
	if (w->rate > 0 && w->rate < SP_RATE_MIN) {
		/* 1e9 / rate nanoseconds must stay a meaningful interval (a tiny rate
		 * once overflowed into "unbounded") */
		sp_usage(err, "%s:%d: 'rate' must be 0 (unbounded) or from %g to 100000 operations per second (got '%.40s')",
			 origin, v->line, SP_RATE_MIN, v->str);
		goto out;
	}
	if ((v = sp_ynode_get(root, "timeout_ms")) && get_int32(p, v, "timeout_ms", 1, 3600000, &w->timeout_ms) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "mix")) && get_mix(p, v, w->mix) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "thresholds")) && get_thresholds(p, v, w) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "setup")) && get_steps(p, v, "setup", CTX_GLOBAL, w->timeout_ms, &w->setup) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "cleanup")) && get_steps(p, v, "cleanup", CTX_GLOBAL, w->timeout_ms, &w->cleanup) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "teardown")) && get_steps(p, v, "teardown", CTX_GLOBAL, w->timeout_ms, &w->teardown) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "inventory")) && get_argv(p, v, "inventory", CTX_GLOBAL, &w->inventory) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "counters")) && get_counters(p, v, w) < 0)
		goto out;
	if (!(v = sp_ynode_get(root, "scenarios"))) {
		sp_usage(err, "%s:1: missing 'scenarios'", origin);
		goto out;
	}
	if (want_kind(p, v, SP_YN_SEQ, "scenarios") < 0)
		goto out;
	if (v->n == 0 || v->n > 64) {
		sp_usage(err, "%s:%d: 'scenarios' must list 1 to 64 scenarios", origin, v->line);
		goto out;
	}
	w->scen = sp_xcalloc(v->n, sizeof(sp_soak_scenario));
	for (size_t i = 0; i < v->n; i++) {
		sp_soak_scenario *sc = &w->scen[w->nscen++];
		if (get_scenario(p, v->items[i], w, sc) < 0)
			goto out;
		for (size_t j = 0; j + 1 < w->nscen; j++)
			if (!strcasecmp(w->scen[j].id, sc->id)) {
				sp_usage(err, "%s:%d: duplicate scenario id '%s'", origin, v->items[i]->line, sc->id);
				goto out;
			}
	}
	r = 0;
out:
	sp_ydoc_free(doc);
	if (r < 0) {
		sp_workload_free(w);
		/* one line, whatever the file's strings hold */
		for (char *c = err->msg; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	return r;
}

int sp_workload_load(sp_soak_workload *w, const char *path, sp_error *err)
{
	int errnum = 0;
	size_t len = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, 4 << 20, &len, &errnum);
	if (!text)
		return errnum == EFBIG ? sp_usage(err, "%s: workload file too large (at most 4 MiB)", path)
				       : sp_usage(err, "%s: cannot read workload: %s", path, strerror(errnum));
	if (sp_workload_parse(w, text, len, path, err) < 0)
		return -1;
	unsigned char md[32];
	unsigned int mdlen = 0;
	if (!EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
		sp_workload_free(w);
		return sp_fail_errno(err, 0, "%s: cannot compute SHA-256", path);
	}
	for (int i = 0; i < 32; i++)
		snprintf(w->sha256 + 2 * i, 3, "%02x", md[i]);
	w->path = sp_xstrdup(path);
	return 0;
}

void sp_workload_free(sp_soak_workload *w)
{
	free(w->path);
	free(w->name);
	free(w->runtime);
	sp_strv_free(&w->version_argv);
	free(w->state_root);
	free(w->prefix);
	free(w->rootfs);
	steps_free(&w->setup);
	steps_free(&w->cleanup);
	steps_free(&w->teardown);
	sp_strv_free(&w->inventory);
	for (size_t i = 0; i < w->ncounters; i++) {
		free(w->counters[i].name);
		free(w->counters[i].dir);
		sp_strv_free(&w->counters[i].argv);
	}
	free(w->counters);
	for (size_t i = 0; i < w->nscen; i++) {
		sp_soak_scenario *sc = &w->scen[i];
		free(sc->id);
		free(sc->api);
		steps_free(&sc->start);
		steps_free(&sc->steps);
		steps_free(&sc->recover);
		steps_free(&sc->stop);
		free(sc->fault.step);
		free(sc->fault.pidfile);
		free(sc->fault.portfile);
		free(sc->fault.cut);
		sp_strv_free(&sc->fault.tasks);
		free(sc->fault.qmp);
		sp_strv_free(&sc->fault.state);
		free(sc->fault.expected);
		free(sc->fault.modefile);
		free(sc->fault.mode);
		sp_strv_free(&sc->fault.blobs);
		free(sc->fault.link);
		free(sc->fault.from);
		free(sc->fault.to);
	}
	free(w->scen);
	memset(w, 0, sizeof *w);
}
