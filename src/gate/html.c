/* The coverage matrix page (scenario rows x lane columns, one chip per
 * profile, linking to the deciding bundle's report) and the per-bundle
 * report pages, in the evidence report's style (src/report/). Every string
 * from a plan or a bundle goes through sp_html_text(). */
#include "gate/gate.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core/junit.h"
#include "core/util.h"
#include "core/version.h"
#include "report/bundle.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/verifier.h"

#define E(s) sp_html_text(f, (s) ? (s) : "-")

static const char matrix_css[] =
	"table.matrix td{min-width:90px}table.matrix th small,table.matrix td small{color:#5b6475;font-weight:400}"
	".chip{display:inline-block;margin:1px 2px;padding:1px 7px;border-radius:8px;font-size:12px;font-weight:600;"
	"text-decoration:none;white-space:nowrap;border:1px solid transparent}"
	".st-pass{background:#d8f0dd;color:#17602a}.st-fail{background:#f8d7d7;color:#8a1c1c}"
	".st-missing{background:#e6e8ec;color:#4a5160}.st-expired{background:#fff0c2;color:#7a5a00}"
	".st-wrong-candidate{background:#f3dcf5;color:#6b1f73}.st-superseded{background:#dfe7f7;color:#2d4a80}"
	".st-blocked{background:#ffe2c6;color:#8a4a0c}.st-wrong-lane{background:#f3dcf5;color:#6b1f73}.chip.opt{opacity:.65;border:1px dashed #8a93a3}"
	"td.state{font-weight:600}.legend .chip{margin-right:8px}";

static void chip(FILE *f, const sp_gate_decision *d, const sp_gate_cell *c, const char *report_dir, const char *anchor)
{
	const char *st = sp_cell_state_name(c->state);
	bool link = report_dir && c->decisive >= 0 && d->b[c->decisive].verified;
	if (link) {
		fputs("<a class=\"chip st-", f);
		fputs(st, f);
		fputs(c->required ? "" : " opt", f);
		fputs("\" href=\"", f);
		E(report_dir);
		fputs("/", f);
		E(d->b[c->decisive].key);
		fputs(".html\" title=\"", f);
	} else {
		fprintf(f, "<a class=\"chip st-%s%s\" href=\"#%s\" title=\"", st, c->required ? "" : " opt", anchor);
	}
	E(c->reason);
	fprintf(f, "\">%s %s</a>", sp_prof_names[c->prof], st);
}

static void cell_anchor(const sp_gate_decision *d, const sp_gate_cell *c, char *buf, size_t size)
{
	char id[200];
	sp_gcell_id(d, c, id, size < sizeof id ? size : sizeof id);
	snprintf(buf, size, "cell-%s", id);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '-';
}

static void fact(FILE *f, const char *k, const char *v)
{
	fputs("<tr><td>", f);
	E(k);
	fputs("</td><td>", f);
	E(v);
	fputs("</td></tr>\n", f);
}

/* a bundle's key, linked to its report page when there is one */
static void bundle_link(FILE *f, const sp_gate_bundle *b, const char *report_dir)
{
	if (report_dir && b->verified) {
		fputs("<a href=\"", f);
		E(report_dir);
		fputs("/", f);
		E(b->key);
		fputs(".html\">", f);
		E(b->key);
		fputs("</a>", f);
	} else {
		E(b->key);
	}
}

/* the title, the result and the counts */
static void write_head(FILE *f, const sp_gate_decision *d)
{
	const sp_gate_plan *p = d->plan;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>sandprobe release gate: ",
	      f);
	E(p->name);
	fputs(" ", f);
	E(p->candidate_id);
	fprintf(f, "</title>\n<style>%s%s</style>\n</head>\n<body>\n<div class=\"main\">\n", rp_css, matrix_css);
	bool notrep = d->from_archive && !d->reproduced;
	fprintf(f, "<h1>Release gate <span class=\"badge b-%s\" id=\"result\">%s</span></h1>\n",
		d->pass && !notrep ? "pass" : "fail", notrep ? "NOT REPRODUCED" : d->pass ? "PASS"
											  : "FAIL");
	if (notrep) {
		fputs("<p class=\"sub\">the decision re-made from the archive differs from the archived one (archived result ", f);
		E(d->archived_result);
		fprintf(f, ", re-made %s):</p>\n<ul>\n", d->pass ? "pass" : "fail");
		for (size_t i = 0; i < d->ndiffs; i++) {
			fputs("<li>", f);
			E(d->diffs[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("<p class=\"sub\">plan <b>", f);
	E(p->name);
	fputs("</b> &middot; candidate <b>", f);
	E(p->candidate_id);
	fprintf(f, "</b> &middot; decided at %s &middot; %zu bundle(s) &middot; signatures %s</p>\n", d->at_text, d->nb,
		d->signature_required ? "required" : "not required");
	fputs("<nav><a href=\"#matrix\">coverage matrix</a><a href=\"#cells\">cells</a><a href=\"#problems\">problems</a>"
	      "<a href=\"#bundles\">bundles</a><a href=\"#plan\">plan</a></nav>\n",
	      f);
	fprintf(f, "<p>%zu required cell(s): %zu passed, %zu failed, %zu missing, %zu expired, %zu wrong candidate, "
		   "%zu wrong lane, %zu superseded, %zu blocked; %zu problem(s) in the evidence set.</p>\n",
		d->nrequired, d->count[SP_CELL_PASS], d->count[SP_CELL_FAIL], d->count[SP_CELL_MISSING],
		d->count[SP_CELL_EXPIRED], d->count[SP_CELL_WRONG], d->count[SP_CELL_WRONG_LANE], d->count[SP_CELL_SUPERSEDED],
		d->count[SP_CELL_BLOCKED], d->nprob);
	for (size_t i = 0; i < d->nskipped; i++) {
		fputs("<p class=\"sub\">skipped: ", f);
		E(d->skipped[i]);
		fputs("</p>\n", f);
	}
}

/* scenario rows x lane columns, one chip per profile */
static void write_matrix(FILE *f, const sp_gate_decision *d, const char *report_dir)
{
	const sp_gate_plan *p = d->plan;
	fputs("<h2 id=\"matrix\">Coverage matrix</h2>\n<p class=\"legend\">", f);
	for (int s = 0; s < SP_CELL_NSTATES; s++)
		fprintf(f, "<span class=\"chip st-%s\">%s</span>", sp_cell_state_name((sp_gate_cell_state)s),
			sp_cell_state_name((sp_gate_cell_state)s));
	fputs("<span class=\"chip st-pass opt\">not required</span></p>\n<table class=\"matrix\">\n<tr><th>scenario</th><th>owner</th>",
	      f);
	for (size_t l = 0; l < p->nlanes; l++) {
		fputs("<th>", f);
		E(p->lanes[l].id);
		fputs("<br><small>", f);
		E(p->lanes[l].host_class);
		fputs(" &middot; ", f);
		E(p->lanes[l].isolation);
		fputs("</small></th>", f);
	}
	fputs("</tr>\n", f);
	size_t ci = 0;
	for (size_t s = 0; s < p->nscen; s++) {
		fputs("<tr><td><b>", f);
		E(p->scen[s].id);
		fputs("</b>", f);
		if (p->scen[s].title) {
			fputs("<br><small>", f);
			E(p->scen[s].title);
			fputs("</small>", f);
		}
		fputs("</td><td>", f);
		E(p->scen[s].owner);
		fputs("</td>", f);
		for (size_t l = 0; l < p->nlanes; l++) {
			fputs("<td>", f);
			bool any = false;
			while (ci < d->ncells && d->cells[ci].scen == s && d->cells[ci].lane == l) {
				char anchor[256];
				cell_anchor(d, &d->cells[ci], anchor, sizeof anchor);
				chip(f, d, &d->cells[ci], report_dir, anchor);
				ci++;
				any = true;
			}
			fputs(any ? "</td>" : "&ndash;</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* every cell, with its reason and evidence */
static void write_cells(FILE *f, const sp_gate_decision *d, const char *report_dir)
{
	const sp_gate_plan *p = d->plan;
	fputs("<h2 id=\"cells\">Cells</h2>\n<table class=\"cells\">\n<tr><th>cell</th><th>state</th><th>owner</th>"
	      "<th>reason</th><th>evidence</th></tr>\n",
	      f);
	for (size_t i = 0; i < d->ncells; i++) {
		const sp_gate_cell *c = &d->cells[i];
		char id[200], anchor[256];
		sp_gcell_id(d, c, id, sizeof id);
		cell_anchor(d, c, anchor, sizeof anchor);
		fprintf(f, "<tr id=\"%s\" class=\"%s\"><td>", anchor, c->required && c->state != SP_CELL_PASS ? "fail" : "");
		sp_html_text(f, id);
		if (!c->required)
			fputs(" <small>(not required)</small>", f);
		else if (c->implied)
			fputs(" <small>(promotion order)</small>", f);
		fprintf(f, "</td><td class=\"state\"><span class=\"chip st-%s\">%s</span></td><td>",
			sp_cell_state_name(c->state), sp_cell_state_name(c->state));
		E(p->scen[c->scen].owner);
		fputs("</td><td>", f);
		E(c->reason);
		fputs("</td><td>", f);
		for (size_t k = 0; k < c->nclaims; k++) {
			const sp_gate_bundle *b = &d->b[c->claims[k].bundle];
			if (k)
				fputs("<br>", f);
			bundle_link(f, b, report_dir);
			fputs(": ", f);
			E(sp_claim_disp_name(c->claims[k].disp));
		}
		if (!c->nclaims)
			fputs("&ndash;", f);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void write_problems(FILE *f, const sp_gate_decision *d)
{
	fputs("<h2 id=\"problems\">Problems in the evidence set</h2>\n", f);
	if (!d->nprob) {
		fputs("<p>None: every bundle is readable, trusted, unique and older than the decision.</p>\n", f);
	} else {
		fputs("<table class=\"problems\">\n<tr><th>kind</th><th>message</th></tr>\n", f);
		for (size_t i = 0; i < d->nprob; i++) {
			fputs("<tr class=\"fail\"><td>", f);
			E(d->prob[i].kind);
			fputs("</td><td>", f);
			E(d->prob[i].message);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void write_bundles(FILE *f, const sp_gate_decision *d, const char *report_dir)
{
	fputs("<h2 id=\"bundles\">Bundles</h2>\n<table class=\"bundles\">\n<tr><th>bundle</th><th>run</th><th>profile</th>"
	      "<th>lane</th><th>scenarios</th><th>started</th><th>verdict</th><th>trusted</th><th>cells</th></tr>\n",
	      f);
	for (size_t i = 0; i < d->nb; i++) {
		const sp_gate_bundle *b = &d->b[i];
		fprintf(f, "<tr id=\"%s\"%s><td>", b->key, b->verified && b->pass && b->trusted ? "" : " class=\"fail\"");
		bundle_link(f, b, report_dir);
		fputs("<br><small>", f);
		E(b->path);
		fputs("</small></td><td>", f);
		E(b->run_id);
		fputs("</td><td>", f);
		E(b->profile);
		fputs("</td><td>", f);
		E(b->lane);
		fputs("</td><td>", f);
		for (size_t k = 0; k < b->nscen; k++) {
			if (k)
				fputs(", ", f);
			E(b->scen[k]);
		}
		fputs("</td><td>", f);
		E(b->readable ? b->started_text : NULL);
		fputs("</td><td>", f);
		if (b->verified) {
			fprintf(f, "%s (%zu of %zu gates fail)", b->pass ? "pass" : "fail", b->nfail, b->ngates);
			if (b->failed[0]) {
				fputs("<br><small>", f);
				E(b->failed);
				fputs("</small>", f);
			}
		} else {
			fputs("not verified", f);
		}
		fprintf(f, "</td><td>%s</td><td>%zu", b->trusted ? "yes" : "no", b->nclaims);
		if (b->note[0]) {
			fputs("<br><small>", f);
			E(b->note);
			fputs("</small>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* the plan's facts */
static void write_plan(FILE *f, const sp_gate_decision *d)
{
	const sp_gate_plan *p = d->plan;
	fputs("<h2 id=\"plan\">Plan</h2>\n<table class=\"facts\">\n", f);
	fact(f, "plan", p->name);
	fact(f, "file", p->path);
	fact(f, "plan sha256", p->sha256);
	fact(f, "candidate", p->candidate_id);
	for (size_t i = 0; i < p->nart; i++) {
		_cleanup_free_ char *k = sp_xasprintf("artifact %s", p->art[i].name);
		fact(f, k, p->art[i].digest);
	}
	for (size_t l = 0; l < p->nlanes; l++)
		for (size_t i = 0; i < p->lanes[l].nart; i++) {
			_cleanup_free_ char *k = sp_xasprintf("artifact %s on lane %s", p->lanes[l].art[i].name, p->lanes[l].id);
			fact(f, k, p->lanes[l].art[i].digest);
		}
	char buf[256];
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < p->nchanges && n < sizeof buf; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", p->changes[i]);
	fact(f, "changes", buf);
	n = 0;
	buf[0] = '\0';
	for (int i = 0; i < SP_PROF_COUNT && n < sizeof buf; i++) {
		char dur[24] = "-";
		if (p->valid_for_s[i] >= 0)
			sp_gate_format_duration(p->valid_for_s[i], dur, sizeof dur);
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %s", i ? ", " : "", sp_prof_names[i], dur);
	}
	fact(f, "evidence valid for", buf);
	fact(f, "evidence not before", p->has_not_before ? p->not_before_text : "-");
	snprintf(buf, sizeof buf, "%d (per scenario where it says otherwise)", p->retries);
	fact(f, "retries", buf);
	fact(f, "signing key sha256", d->pubkey_sha256[0] ? d->pubkey_sha256 : "none: signatures not required");
	fputs("</table>\n", f);
}

int sp_gate_write_html(FILE *f, const sp_gate_decision *d, const char *report_dir)
{
	write_head(f, d);
	write_matrix(f, d, report_dir);
	write_cells(f, d, report_dir);
	write_problems(f, d);
	write_bundles(f, d, report_dir);
	write_plan(f, d);
	fprintf(f, "<footer>Generated by sandprobe %s. Owners are shown, never used to waive a cell. "
		   "Self-contained: no scripts, no external resources.</footer>\n</div>\n</body>\n</html>\n",
		SP_VERSION);
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

/* the verifier's verdict as the report page takes it */
static void to_rp_verdict(const sp_ev_verdict *v, rp_verdict *r)
{
	memset(r, 0, sizeof *r);
	r->available = 1;
	r->exit_code = v->nfail ? 1 : 0;
	r->result = sp_xstrdup(v->nfail ? "fail" : "pass");
	r->gates = sp_xcalloc(v->n ? v->n : 1, sizeof *r->gates);
	r->ngates = v->n;
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		r->gates[i].id = sp_xstrdup(g->id);
		r->gates[i].status = sp_xstrdup(g->status == SP_GATE_PASS ? "pass" : "fail");
		r->gates[i].measured = sp_xstrdup(g->measured);
		r->gates[i].threshold = sp_xstrdup(g->threshold);
		r->gates[i].message = sp_xstrdup(g->message);
	}
	r->npass = (long long)v->npass;
	r->nfail = (long long)v->nfail;
}

/* a bundle the report cannot draw still gets a page: why, and the gates */
static int fallback_page(FILE *f, const sp_gate_bundle *b, const sp_ev_verdict *v, const char *why)
{
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>sandprobe evidence: ");
	E(b->key);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<div class=\"main\">\n<h1>Evidence %s</h1>\n", rp_css,
		v && !v->nfail ? "<span class=\"badge b-pass\">PASS</span>" : "<span class=\"badge b-fail\">FAIL</span>");
	fputs("<p class=\"note\">the report cannot draw this bundle: ", f);
	E(why);
	fputs("</p>\n", f);
	if (v) {
		fputs("<table class=\"gates\">\n<tr><th>gate</th><th>status</th><th>measured</th><th>threshold</th><th>message</th></tr>\n", f);
		for (size_t i = 0; i < v->n; i++) {
			bool pass = v->g[i].status == SP_GATE_PASS;
			fprintf(f, "<tr class=\"gate %s\"><td>", pass ? "pass" : "fail");
			E(v->g[i].id);
			fprintf(f, "</td><td class=\"%s\">%s</td><td>", pass ? "pass" : "fail", pass ? "pass" : "fail");
			E(v->g[i].measured);
			fputs("</td><td>", f);
			E(v->g[i].threshold);
			fputs("</td><td>", f);
			E(v->g[i].message);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("</div>\n</body>\n</html>\n", f);
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

int sp_gate_write_reports(const sp_gate_decision *d, const char *dir, sp_error *err)
{
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return errno == ENOENT || errno == ENOTDIR ? sp_usage(err, "%s: cannot create: %s", dir, strerror(errno))
							   : sp_fail_errno(err, errno, "%s: cannot create", dir);
	for (size_t i = 0; i < d->nb; i++) {
		const sp_gate_bundle *b = &d->b[i];
		if (!b->verified)
			continue;
		_cleanup_free_ char *path = sp_xasprintf("%s/%s.html", dir, b->key);
		FILE *f = fopen(path, "we");
		if (!f)
			return sp_fail_errno(err, errno, "%s: cannot create", path);
		rp_bundle rb;
		sp_error berr = {0};
		int rc;
		if (b->verdict && rp_bundle_load(&rb, b->path, &berr) == 0) {
			rp_verdict rv;
			to_rp_verdict(b->verdict, &rv);
			rc = rp_render_html(f, &rb, &rv);
			rp_verdict_free(&rv);
			rp_bundle_free(&rb);
		} else {
			rc = fallback_page(f, b, b->verdict, b->verdict ? berr.msg : "the verdict was not kept");
		}
		if (fclose(f) != 0 && rc == 0)
			rc = -errno;
		if (rc < 0)
			return sp_fail_errno(err, -rc, "%s: cannot write", path);
	}
	return 0;
}
