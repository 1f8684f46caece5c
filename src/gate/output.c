/* Text, JSON (sandprobe.gate.v1, docs/schema/gate.schema.json) and JUnit
 * output of a decision. */
#include "gate/gate.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "core/junit.h"
#include "core/util.h"
#include "core/version.h"
#include "report/svg.h"

static int flush_status(FILE *f)
{
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

static const char *owner(const sp_gate_decision *d, const sp_gate_cell *c)
{
	return d->plan->scen[c->scen].owner;
}

/* ---- text ---------------------------------------------------------------- */
int sp_gate_write_text(FILE *f, const sp_gate_decision *d)
{
	const sp_gate_plan *p = d->plan;
	fprintf(f, "sandprobe gate: plan %s, candidate %s, decided at %s, %zu bundle(s), signatures %s\n", p->name,
		p->candidate_id, d->at_text, d->nb, d->signature_required ? "required" : "not required");
	for (size_t i = 0; i < d->ncells; i++) {
		const sp_gate_cell *c = &d->cells[i];
		if (!c->required)
			continue;
		fprintf(f, "%s: %s %s %s -- %s [owner: %s]%s\n", sp_cell_state_label(c->state), p->scen[c->scen].id,
			p->lanes[c->lane].id, sp_prof_names[c->prof], c->reason, owner(d, c),
			c->implied ? " (required by the promotion order)" : "");
	}
	for (size_t i = 0; i < d->ncells; i++) {
		const sp_gate_cell *c = &d->cells[i];
		if (c->required)
			continue;
		fprintf(f, "INFO: %s %s %s %s (not required) -- %s [owner: %s]\n", p->scen[c->scen].id,
			p->lanes[c->lane].id, sp_prof_names[c->prof], sp_cell_state_name(c->state), c->reason, owner(d, c));
	}
	for (size_t i = 0; i < d->nb; i++) {
		const sp_gate_bundle *b = &d->b[i];
		if (b->readable && !b->nclaims && b->note[0])
			fprintf(f, "NOTE: %s fills no cell: %s\n", b->path, b->note);
	}
	for (size_t i = 0; i < d->nskipped; i++)
		fprintf(f, "SKIPPED: %s\n", d->skipped[i]);
	if (d->expired_by_now)
		fprintf(f,
			"NOTE: decided at %s, before the gate ran (--at): %zu passing cell(s) rest on evidence that has expired since\n",
			d->at_text, d->expired_by_now);
	for (size_t i = 0; i < d->nprob; i++)
		fprintf(f, "PROBLEM: %s: %s\n", d->prob[i].kind, d->prob[i].message);
	if (d->from_archive && !d->reproduced) {
		fprintf(f, "NOT-REPRODUCED: archived result %s, re-made result %s\n", d->archived_result,
			d->pass ? "pass" : "fail");
		for (size_t i = 0; i < d->ndiffs; i++)
			fprintf(f, "DIFFERS: %s\n", d->diffs[i]);
	}
	const char *res = sp_gate_result(d);
	char label[20];
	size_t k = 0;
	for (; res[k] && k < sizeof label - 1; k++)
		label[k] = (char)(res[k] >= 'a' && res[k] <= 'z' ? res[k] - 32 : res[k]);
	label[k] = '\0';
	fprintf(f,
		"RESULT: %s -- %zu required cell(s): %zu passed, %zu failed, %zu missing, %zu expired, %zu wrong candidate, "
		"%zu wrong lane, %zu superseded, %zu blocked; %zu problem(s)\n",
		label, d->nrequired, d->count[SP_CELL_PASS], d->count[SP_CELL_FAIL], d->count[SP_CELL_MISSING],
		d->count[SP_CELL_EXPIRED], d->count[SP_CELL_WRONG], d->count[SP_CELL_WRONG_LANE],
		d->count[SP_CELL_SUPERSEDED], d->count[SP_CELL_BLOCKED], d->nprob);
	return flush_status(f);
}

/* ---- JSON ---------------------------------------------------------------- */
/* a JSON string even when a cut message split a UTF-8 sequence */
static json_t *jstring(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	_cleanup_free_ char *c = sp_xstrdup(s);
	for (unsigned char *p = (unsigned char *)c; *p; p++)
		if (*p >= 0x80)
			*p = '?';
	return json_string(c);
}

static json_t *str_or_null(const char *s)
{
	return s ? jstring(s) : json_null();
}

static json_t *artifacts_json(const sp_gate_plan_artifact *a, size_t n)
{
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, a[i].name, json_string(a[i].digest));
	return o;
}

json_t *sp_gate_decision_json(const sp_gate_decision *d)
{
	const sp_gate_plan *p = d->plan;
	json_t *j = json_object();
	json_object_set_new(j, "schema", json_string(SP_GATE_SCHEMA));
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("sandprobe"));
	json_object_set_new(tool, "version", json_string(SP_VERSION));
	json_object_set_new(j, "tool", tool);

	json_t *pl = json_object();
	json_object_set_new(pl, "name", json_string(p->name));
	json_object_set_new(pl, "file", jstring(p->path));
	json_object_set_new(pl, "sha256", json_string(p->sha256));
	json_t *cand = json_object();
	json_object_set_new(cand, "id", json_string(p->candidate_id));
	json_object_set_new(cand, "artifacts", artifacts_json(p->art, p->nart));
	json_object_set_new(pl, "candidate", cand);
	json_t *ch = json_array();
	for (size_t i = 0; i < p->nchanges; i++)
		json_array_append_new(ch, json_string(p->changes[i]));
	json_object_set_new(pl, "changes", ch);
	json_t *vf = json_object();
	for (int i = 0; i < SP_PROF_COUNT; i++)
		json_object_set_new(vf, sp_prof_names[i], p->valid_for_s[i] >= 0 ? json_integer(p->valid_for_s[i]) : json_null());
	json_object_set_new(pl, "valid_for_s", vf);
	json_object_set_new(pl, "not_before", p->has_not_before ? json_string(p->not_before_text) : json_null());
	json_object_set_new(pl, "retries", json_integer(p->retries));
	json_object_set_new(pl, "promotion_order", json_string(p->order_in_time ? "time" : "state"));
	json_object_set_new(pl, "signature_required", json_boolean(d->signature_required));
	json_object_set_new(pl, "pubkey_sha256", d->pubkey_sha256[0] ? json_string(d->pubkey_sha256) : json_null());
	json_t *lanes = json_array();
	for (size_t i = 0; i < p->nlanes; i++) {
		const sp_gate_plan_lane *l = &p->lanes[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(l->id));
		json_object_set_new(o, "title", str_or_null(l->title));
		json_object_set_new(o, "host_class", json_string(l->host_class));
		json_object_set_new(o, "isolation", json_string(l->isolation));
		json_object_set_new(o, "arch", json_string(l->arch));
		json_t *rts = json_array();
		for (size_t k = 0; k < l->nruntimes; k++)
			json_array_append_new(rts, json_string(l->runtimes[k]));
		json_object_set_new(o, "runtimes", rts);
		json_object_set_new(o, "artifacts", artifacts_json(l->art, l->nart));
		json_array_append_new(lanes, o);
	}
	json_object_set_new(pl, "lanes", lanes);
	json_t *scen = json_array();
	for (size_t i = 0; i < p->nscen; i++) {
		const sp_gate_plan_scenario *s = &p->scen[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(s->id));
		json_object_set_new(o, "title", str_or_null(s->title));
		json_object_set_new(o, "owner", json_string(s->owner));
		json_object_set_new(o, "workload", s->workload[0] ? json_string(s->workload) : json_null());
		json_object_set_new(o, "retries", json_integer(s->retries));
		json_array_append_new(scen, o);
	}
	json_object_set_new(pl, "scenarios", scen);
	json_object_set_new(j, "plan", pl);

	json_object_set_new(j, "decided_at", json_string(d->at_text));
	json_object_set_new(j, "result", json_string(sp_gate_result(d)));
	json_object_set_new(j, "expired_by_now", json_integer((json_int_t)d->expired_by_now));
	if (d->from_archive) {
		json_t *r = json_object();
		json_object_set_new(r, "reproduced", json_boolean(d->reproduced));
		json_object_set_new(r, "archived_result", jstring(d->archived_result));
		json_object_set_new(r, "remade_result", json_string(d->pass ? "pass" : "fail"));
		json_t *df = json_array();
		for (size_t i = 0; i < d->ndiffs; i++)
			json_array_append_new(df, jstring(d->diffs[i]));
		json_object_set_new(r, "differences", df);
		json_t *cd = json_array();
		for (size_t i = 0; i < d->ncelldiffs; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "id", jstring(d->celldiffs[i].id));
			json_object_set_new(o, "archived", jstring(d->celldiffs[i].archived));
			json_object_set_new(o, "remade", jstring(d->celldiffs[i].remade));
			json_array_append_new(cd, o);
		}
		json_object_set_new(r, "cells", cd);
		json_object_set_new(j, "reproduction", r);
	} else {
		json_object_set_new(j, "reproduction", json_null());
	}
	json_t *sum = json_object();
	json_object_set_new(sum, "required", json_integer((json_int_t)d->nrequired));
	for (int s = 0; s < SP_CELL_NSTATES; s++)
		json_object_set_new(sum, sp_cell_state_name((sp_gate_cell_state)s), json_integer((json_int_t)d->count[s]));
	json_object_set_new(sum, "problems", json_integer((json_int_t)d->nprob));
	json_object_set_new(j, "summary", sum);

	json_t *cells = json_array();
	for (size_t i = 0; i < d->ncells; i++) {
		const sp_gate_cell *c = &d->cells[i];
		char id[200];
		sp_gcell_id(d, c, id, sizeof id);
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(id));
		json_object_set_new(o, "scenario", json_string(p->scen[c->scen].id));
		json_object_set_new(o, "lane", json_string(p->lanes[c->lane].id));
		json_object_set_new(o, "profile", json_string(sp_prof_names[c->prof]));
		json_object_set_new(o, "owner", json_string(p->scen[c->scen].owner));
		json_object_set_new(o, "required", json_boolean(c->required));
		json_object_set_new(o, "implied", json_boolean(c->implied));
		json_object_set_new(o, "state", json_string(sp_cell_state_name(c->state)));
		json_object_set_new(o, "reason", jstring(c->reason));
		if (c->decisive >= 0) {
			const sp_gate_bundle *b = &d->b[c->decisive];
			json_t *bo = json_object();
			json_object_set_new(bo, "key", json_string(b->key));
			json_object_set_new(bo, "run_id", str_or_null(b->run_id));
			json_object_set_new(bo, "manifest_sha256", json_string(b->manifest_sha256));
			json_object_set_new(o, "bundle", bo);
		} else {
			json_object_set_new(o, "bundle", json_null());
		}
		json_t *ev = json_array();
		for (size_t k = 0; k < c->nclaims; k++) {
			const sp_gate_claim *g = &c->claims[k];
			json_t *e = json_object();
			json_object_set_new(e, "key", json_string(d->b[g->bundle].key));
			json_object_set_new(e, "run_id", str_or_null(d->b[g->bundle].run_id));
			json_object_set_new(e, "disposition", json_string(sp_claim_disp_name(g->disp)));
			json_object_set_new(e, "reason", jstring(g->reason));
			json_array_append_new(ev, e);
		}
		json_object_set_new(o, "evidence", ev);
		json_array_append_new(cells, o);
	}
	json_object_set_new(j, "cells", cells);

	json_t *bundles = json_array();
	for (size_t i = 0; i < d->nb; i++) {
		const sp_gate_bundle *b = &d->b[i];
		json_t *o = json_object();
		json_object_set_new(o, "key", json_string(b->key));
		json_object_set_new(o, "path", jstring(b->path));
		json_object_set_new(o, "readable", json_boolean(b->readable));
		json_object_set_new(o, "run_id", str_or_null(b->run_id));
		json_object_set_new(o, "profile", str_or_null(b->profile));
		json_object_set_new(o, "lane", str_or_null(b->lane));
		json_t *sc = json_array();
		for (size_t k = 0; k < b->nscen; k++)
			json_array_append_new(sc, json_string(b->scen[k]));
		json_object_set_new(o, "scenarios", sc);
		json_object_set_new(o, "started_at", str_or_null(b->readable ? b->started_text : NULL));
		char t[32];
		sp_gate_format_time(b->ended, t, sizeof t);
		json_object_set_new(o, "ended_at", b->readable ? json_string(t) : json_null());
		json_object_set_new(o, "manifest_sha256", b->manifest_sha256[0] ? json_string(b->manifest_sha256) : json_null());
		json_object_set_new(o, "verdict", b->verified ? json_string(b->pass ? "pass" : "fail") : json_null());
		json_object_set_new(o, "gates", json_integer((json_int_t)b->ngates));
		json_t *fg = json_array();
		if (b->failed[0]) {
			char tmp[sizeof b->failed];
			memcpy(tmp, b->failed, sizeof tmp);
			for (char *s = tmp, *e; s && *s; s = e) {
				e = strstr(s, ", ");
				if (e) {
					*e = '\0';
					e += 2;
				}
				json_array_append_new(fg, json_string(s));
			}
		}
		json_object_set_new(o, "failed_gates", fg);
		json_object_set_new(o, "trusted", json_boolean(b->trusted));
		json_object_set_new(o, "claims", json_integer((json_int_t)b->nclaims));
		json_object_set_new(o, "duplicate_of", b->dup_of >= 0 ? json_string(d->b[b->dup_of].key) : json_null());
		json_object_set_new(o, "note", b->note[0] ? jstring(b->note) : json_null());
		json_array_append_new(bundles, o);
	}
	json_object_set_new(j, "bundles", bundles);

	json_t *probs = json_array();
	for (size_t i = 0; i < d->nprob; i++) {
		const sp_gate_problem *pr = &d->prob[i];
		json_t *o = json_object();
		json_object_set_new(o, "kind", json_string(pr->kind));
		json_object_set_new(o, "bundle", pr->bundle >= 0 ? json_string(d->b[pr->bundle].key) : json_null());
		json_object_set_new(o, "message", jstring(pr->message));
		json_array_append_new(probs, o);
	}
	json_object_set_new(j, "problems", probs);
	json_t *sk = json_array();
	for (size_t i = 0; i < d->nskipped; i++)
		json_array_append_new(sk, jstring(d->skipped[i]));
	json_object_set_new(j, "skipped", sk);
	return j;
}

int sp_gate_write_json(FILE *f, const sp_gate_decision *d)
{
	json_t *j = sp_gate_decision_json(d);
	int rc = json_dumpf(j, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	json_decref(j);
	fputc('\n', f);
	if (rc < 0)
		return -EIO;
	return flush_status(f);
}

/* ---- JUnit ----------------------------------------------------------------- */
int sp_gate_write_junit(FILE *f, const sp_gate_decision *d)
{
	const sp_gate_plan *p = d->plan;
	bool notrep = d->from_archive && !d->reproduced;
	size_t tests = d->nrequired + 1 + (d->from_archive ? 1 : 0);
	size_t failures = d->nrequired - d->count[SP_CELL_PASS] + (d->nprob ? 1 : 0) + (notrep ? 1 : 0);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"sandprobe gate\" tests=\"%zu\" failures=\"%zu\">\n",
		tests, failures);
	fputs("<testsuite name=\"sandprobe.gate.", f);
	sp_html_text(f, p->name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" timestamp=\"%s\">\n", tests, failures,
		d->at_text);
	fputs("<properties>\n<property name=\"candidate\" value=\"", f);
	sp_html_text(f, p->candidate_id);
	fputs("\"/>\n<property name=\"plan_sha256\" value=\"", f);
	sp_html_text(f, p->sha256);
	fputs("\"/>\n", f);
	for (size_t i = 0; i < p->nart; i++) {
		fputs("<property name=\"artifact.", f);
		sp_html_text(f, p->art[i].name);
		fputs("\" value=\"", f);
		sp_html_text(f, p->art[i].digest);
		fputs("\"/>\n", f);
	}
	fputs("</properties>\n", f);
	for (size_t i = 0; i < d->ncells; i++) {
		const sp_gate_cell *c = &d->cells[i];
		if (!c->required)
			continue;
		char id[200];
		sp_gcell_id(d, c, id, sizeof id);
		fputs("<testcase classname=\"", f);
		sp_html_text(f, p->scen[c->scen].id);
		fputs("\" name=\"", f);
		sp_html_text(f, id);
		fputs("\">\n", f);
		if (c->state != SP_CELL_PASS) {
			fprintf(f, "<failure type=\"%s\" message=\"", sp_cell_state_name(c->state));
			sp_html_text(f, c->reason);
			fputs("\">", f);
			sp_html_text(f, c->reason);
			fputs("\nowner: ", f);
			sp_html_text(f, owner(d, c));
			fputs("</failure>\n", f);
		}
		fputs("<system-out>owner: ", f);
		sp_html_text(f, owner(d, c));
		fputs("\nstate: ", f);
		sp_html_text(f, sp_cell_state_name(c->state));
		fputs("\n", f);
		sp_html_text(f, c->reason);
		fputs("</system-out>\n</testcase>\n", f);
	}
	/* the evidence set itself: unreadable, untrusted, conflicting or future bundles */
	fputs("<testcase classname=\"gate\" name=\"evidence set\">\n", f);
	if (d->nprob) {
		fprintf(f, "<failure type=\"problem\" message=\"%zu problem(s) in the evidence set\">", d->nprob);
		for (size_t i = 0; i < d->nprob; i++) {
			sp_html_text(f, d->prob[i].kind);
			fputs(": ", f);
			sp_html_text(f, d->prob[i].message);
			fputs("\n", f);
		}
		fputs("</failure>\n", f);
	}
	if (d->nskipped) {
		fputs("<system-out>", f);
		for (size_t i = 0; i < d->nskipped; i++) {
			fputs("skipped: ", f);
			sp_html_text(f, d->skipped[i]);
			fputs("\n", f);
		}
		fputs("</system-out>\n", f);
	}
	fputs("</testcase>\n", f);
	if (d->from_archive) {
		fputs("<testcase classname=\"gate\" name=\"archive reproduction\">\n", f);
		if (notrep) {
			fputs("<failure type=\"not-reproduced\" message=\"archived result ", f);
			sp_html_text(f, d->archived_result);
			fprintf(f, ", re-made result %s\">", d->pass ? "pass" : "fail");
			for (size_t i = 0; i < d->ndiffs; i++) {
				sp_html_text(f, d->diffs[i]);
				fputs("\n", f);
			}
			fputs("</failure>\n", f);
		}
		fputs("</testcase>\n", f);
	}
	fputs("</testsuite>\n</testsuites>\n", f);
	return flush_status(f);
}
