/* The verdict: the gate catalogue, a verdict's gates as they are reported
 * (id, pass/fail, measured value, threshold, message), and its text and
 * JSON forms. The judges that report them: ev_gates.c and gates_*.c. */
#include "evidence/ev_judge.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Messages quote bundle bytes: keep them printable, valid UTF-8 (JSON needs
 * it), replacing anything else by '?'. */
void sp_ev_sanitize(char *p)
{
	unsigned char *s = (unsigned char *)p;
	size_t n = strlen(p), i = 0;
	while (i < n) {
		if (s[i] < 0x20 || s[i] == 0x7f) {
			s[i++] = '?';
			continue;
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t len = (s[i] & 0xe0) == 0xc0 ? 2 : (s[i] & 0xf0) == 0xe0 ? 3
						 : (s[i] & 0xf8) == 0xf0       ? 4
									       : 0;
		if (len && i + len <= n && sp_ev_is_text(p + i, len)) {
			i += len;
			continue;
		}
		s[i++] = '?';
	}
}

/* ---- the gate catalogue -------------------------------------------------- */
const sp_ev_gate_info sp_gate_catalog[] = {
#define SP_GATE_INFO(name, id, techniques, what, ...) [SP_G_##name] = {id, techniques, what},
	SP_GATE_LIST(SP_GATE_INFO, SP_GATE_SKIP, SP_GATE_INFO, SP_GATE_INFO)
#undef SP_GATE_INFO
};
const size_t sp_gate_catalog_count = SP_ARRAY_SIZE(sp_gate_catalog);
_Static_assert(SP_ARRAY_SIZE(sp_gate_catalog) == SP_G_COUNT, "one catalogue entry per gate id");

const char *sp_gate_ref_id(sp_ev_gate_ref r, char out[64])
{
	const char *c = sp_gate_catalog[r.id].id;
	size_t n = strlen(c);
	if (r.suffix && n > 2 && !strcmp(c + n - 2, ".*"))
		snprintf(out, 64, "%.*s%s", (int)(n - 1), c, r.suffix);
	else
		snprintf(out, 64, "%s", c);
	return out;
}

const sp_ev_gate_info *sp_gate_info_find(const char *id)
{
	/* an exact entry first, then a family (cleanup.status before cleanup.*) */
	for (size_t i = 0; i < sp_gate_catalog_count; i++)
		if (!strcmp(id, sp_gate_catalog[i].id))
			return &sp_gate_catalog[i];
	for (size_t i = 0; i < sp_gate_catalog_count; i++) {
		const char *c = sp_gate_catalog[i].id;
		size_t n = strlen(c);
		if (n > 2 && !strcmp(c + n - 2, ".*") && !strncmp(id, c, n - 1) && id[n - 1] != '\0')
			return &sp_gate_catalog[i];
	}
	return NULL;
}

/* ---- verdict ----------------------------------------------------------- */
sp_ev_gate *sp_ev_gatef(sp_ev_verdict *v, bool pass, sp_ev_gate_ref ref, const char *measured, const char *threshold,
			const char *fmt, ...)
{
	char id[64];
	sp_gate_ref_id(ref, id);
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->g = sp_xrealloc(v->g, v->cap * sizeof *v->g);
	}
	sp_ev_gate *g = &v->g[v->n++];
	memset(g, 0, sizeof *g);
	snprintf(g->id, sizeof g->id, "%s", id);
	g->status = pass ? SP_GATE_PASS : SP_GATE_FAIL;
	snprintf(g->measured, sizeof g->measured, "%s", measured ? measured : "");
	snprintf(g->threshold, sizeof g->threshold, "%s", threshold ? threshold : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->message, sizeof g->message, fmt, ap);
	va_end(ap);
	sp_ev_sanitize(g->id);
	sp_ev_sanitize(g->measured);
	sp_ev_sanitize(g->threshold);
	sp_ev_sanitize(g->message);
	if (pass)
		v->npass++;
	else
		v->nfail++;
	return g;
}

void sp_ev_gate_na(sp_ev_verdict *v, sp_ev_gate_ref id, const char *why)
{
	sp_ev_gatef(v, false, id, "n/a", "-", "not evaluated: %s", why);
}

sp_ev_gate *sp_verdict_add(sp_ev_verdict *v, bool pass, sp_ev_gate_ref id, const char *measured, const char *threshold,
			   const char *fmt, ...)
{
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sp_ev_gatef(v, pass, id, measured, threshold, "%s", msg);
}

void sp_verdict_na(sp_ev_verdict *v, sp_ev_gate_ref id, const char *why)
{
	sp_ev_gate_na(v, id, why);
}

void sp_verdict_free(sp_ev_verdict *v)
{
	free(v->g);
	free(v->bundle);
	free(v->profile);
	free(v->input);
	sp_baseline_free(&v->lat);
	memset(v, 0, sizeof *v);
}

const sp_ev_gate *sp_verdict_find(const sp_ev_verdict *v, sp_ev_gate_ref ref)
{
	char id[64];
	sp_gate_ref_id(ref, id);
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->g[i].id, id))
			return &v->g[i];
	return NULL;
}


/* ---- output ------------------------------------------------------------ */
void sp_verdict_print_text(const sp_ev_verdict *v, FILE *f)
{
	if (v->input && strcmp(v->input, SP_EVIDENCE_SCHEMA))
		fprintf(f, "sandprobe verify %s (%s bundle, profile %s)\n", v->bundle, v->input, v->profile);
	else
		fprintf(f, "sandprobe verify %s (profile %s)\n", v->bundle, v->profile);
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		fprintf(f, "%s %-28s measured %s, threshold %s: %s\n", g->status == SP_GATE_PASS ? "PASS" : "FAIL",
			g->id, g->measured, g->threshold, g->message);
	}
	fprintf(f, "result: %s (%zu gates passed, %zu failed)\n", v->nfail ? "FAIL" : "PASS", v->npass, v->nfail);
}

void sp_verdict_print_json(const sp_ev_verdict *v, FILE *f)
{
	json_t *j = json_object(), *gates = json_array();
	json_object_set_new(j, "schema", json_string(SP_VERIFY_SCHEMA));
	json_object_set_new(j, "bundle", json_string(v->bundle));
	json_object_set_new(j, "profile", json_string(v->profile));
	json_object_set_new(j, "input", json_string(v->input ? v->input : SP_EVIDENCE_SCHEMA));
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(g->id));
		json_object_set_new(o, "status", json_string(g->status == SP_GATE_PASS ? "pass" : "fail"));
		json_object_set_new(o, "measured", json_string(g->measured));
		json_object_set_new(o, "threshold", json_string(g->threshold));
		json_object_set_new(o, "message", json_string(g->message));
		json_array_append_new(gates, o);
	}
	json_object_set_new(j, "gates", gates);
	json_t *sum = json_object();
	json_object_set_new(sum, "pass", json_integer((json_int_t)v->npass));
	json_object_set_new(sum, "fail", json_integer((json_int_t)v->nfail));
	json_object_set_new(j, "summary", sum);
	json_object_set_new(j, "result", json_string(v->nfail ? "fail" : "pass"));
	json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(j);
}
