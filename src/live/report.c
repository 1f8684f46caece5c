/* The live report: the verdict over all lanes, and its writers: text (one
 * line per result, or the matrix table), JSON (sandprobe.live.v1) and a
 * self-contained HTML page with the variant-by-property table. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/json.h"
#include "core/junit.h"
#include "core/output.h"
#include "core/version.h"
#include "live/live.h"

/* the matrix columns: each groups check ids (globs, first match wins) */
struct column {
	const char *title;
	const char *globs[6];
};
static const struct column columns[] = {
	{"pid ns", {SP_CKID(ns_pid), SP_CKGLOB(proc), SP_HOSTID(ns_pid), NULL}},
	{"net ns", {SP_CKID(ns_net), SP_CKGLOB(net), SP_HOSTID(ns_net), NULL}},
	{"other ns", {SP_CKGLOB(ns), SP_HOSTGLOB(ns), NULL}},
	{"ro root", {SP_CKID(fs_rootfs_readonly), SP_HOSTID(fs_rootfs_readonly), NULL}},
	{"caps", {SP_CKGLOB(caps), SP_HOSTID(caps), NULL}},
	{"nnp", {SP_CKGLOB(priv), SP_HOSTID(nnp), NULL}},
	{"seccomp", {SP_CKGLOB(seccomp), SP_HOSTID(seccomp), NULL}},
	{"dev", {SP_CKGLOB(dev), SP_HOSTID(dev), NULL}},
	{"cgroup+mounts", {SP_HOSTID(cgroup), SP_HOSTID(mounts), SP_CKGLOB(cgroup), NULL}},
	{"vm", {SP_HOSTGLOB(vm), NULL}},
	{"report", {SP_HOSTGLOB(doctor), SP_HOSTID(pid), SP_HOSTID(launch), NULL}},
	{"teardown", {SP_HOSTID(teardown), NULL}},
	{"other", {"*", NULL}},
};
#define NCOLS SP_ARRAY_SIZE(columns)

static size_t column_of(const char *id)
{
	for (size_t c = 0; c < NCOLS; c++)
		for (const char *const *g = columns[c].globs; *g; g++)
			if (sp_glob_match(*g, id))
				return c;
	return NCOLS - 1;
}

static bool is_bad(sp_status status)
{
	return status == SP_STATUS_FAIL || status == SP_STATUS_ERROR;
}

/* "PASS", "FAIL" or "-" for lane l, column c; *expected: a failure the variant asked for */
static const char *cell(const sp_live_lane *l, size_t c, bool *expected)
{
	size_t n = 0, bad = 0, exp = 0;
	for (size_t i = 0; i < l->results.n; i++) {
		if (column_of(l->results.v[i].id) != c)
			continue;
		n++;
		if (is_bad(l->results.v[i].status)) {
			bad++;
			exp += sp_strv_contains(&l->expected_fail, l->results.v[i].id) ||
			       sp_strv_contains(&l->also_failed, l->results.v[i].id);
		}
	}
	*expected = bad && exp == bad;
	return n == 0 ? "-" : bad ? "FAIL" : "PASS";
}

static const char *verdict(const sp_live_lane *l)
{
	if (l->status == SP_STATUS_SKIP)
		return "SKIP";
	if (!l->variant->removes)
		return l->status != SP_STATUS_PASS ? "FAIL" : "PASS";
	return l->defect ? "DEFECT" : "FAILED AS EXPECTED";
}

void sp_live_judge(sp_live_run *run)
{
	sp_strv_split(&run->defects, NULL, ",");
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		if (!l->defect || l->status == SP_STATUS_SKIP)
			continue;
		char buf[1024];
		int len = snprintf(buf, sizeof buf, "%s/%s: negative control (%s) did not fail", l->rt->name, l->variant->name,
				   l->variant->property);
		for (size_t k = 0; k < l->missed.n && len > 0 && (size_t)len < sizeof buf; k++)
			len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%s", k ? ", " : ": ", l->missed.v[k]);
		if (l->expected_fail.n == 0)
			snprintf(buf, sizeof buf, "%s/%s: no check covers %s", l->rt->name, l->variant->name, l->variant->property);
		sp_strv_push(&run->defects, buf);
	}
}

bool sp_live_failed(const sp_live_run *run)
{
	if (run->defects.n)
		return true;
	for (size_t i = 0; i < run->nteardown; i++)
		if (!run->teardown[i].ok)
			return true;
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		if (l->status == SP_STATUS_SKIP) {
			if (run->strict)
				return true;
			continue;
		}
		if (!l->variant->removes && l->status != SP_STATUS_PASS)
			return true;
	}
	return false;
}

static void removed_names(const sp_live_lane *l, char *buf, size_t n)
{
	buf[0] = '\0';
	for (unsigned bit = 1; bit <= SP_PROT_LAST; bit <<= 1)
		if (l->variant->removes & bit) {
			size_t len = strlen(buf);
			snprintf(buf + len, n - len, "%s%s", len ? ", " : "", sp_prot_name(bit));
		}
}

static const char *kvm_word(const sp_live_platform *p)
{
	if (!p->kvm_probed)
		return "present";
	return p->kvm_usable ? "usable" : "not usable";
}

/* does the row say why (a skip, a defect; another verb's lane that erred: a fleet cell that never reported) */
static bool says_why(const sp_live_run *run, const sp_live_lane *l)
{
	return l->status == SP_STATUS_SKIP || l->defect || (run->origin && l->status == SP_STATUS_ERROR);
}

static void write_matrix_text(FILE *f, const sp_live_run *run)
{
	fprintf(f, "%-15s %-14s", "runtime", "variant");
	for (size_t c = 0; c < NCOLS; c++)
		fprintf(f, " %-*s", (int)(strlen(columns[c].title) > 5 ? strlen(columns[c].title) : 5), columns[c].title);
	fprintf(f, "  verdict\n");
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		fprintf(f, "%-15s %-14s", l->rt->name, l->variant->name);
		for (size_t c = 0; c < NCOLS; c++) {
			int w = (int)(strlen(columns[c].title) > 5 ? strlen(columns[c].title) : 5);
			bool exp;
			const char *v = l->status == SP_STATUS_SKIP ? "skip" : cell(l, c, &exp);
			char buf[16];
			snprintf(buf, sizeof buf, "%s%s", v, l->status != SP_STATUS_SKIP && exp && l->variant->removes ? "*" : "");
			fprintf(f, " %-*s", w, buf);
		}
		fprintf(f, "  %s (%.0f ms)%s%s\n", verdict(l), l->ms, says_why(run, l) ? ": " : "", says_why(run, l) ? l->reason : "");
	}
	fprintf(f, "* a failure the negative control must produce\n");
}

void sp_live_write_text(FILE *f, const sp_live_run *run, bool verbose)
{
	const sp_live_platform *p = &run->platform;
	if (run->origin)
		fprintf(f, "%s\n", run->origin);
	else
		fprintf(f, "platform: %s %s, %s host (virt: %s), cgroup %s, kvm %s (%s)\n", p->kernel, p->arch, p->host_kind,
			p->virt, p->cgroup, kvm_word(p), p->kvm_reason);
	if (run->matrix) {
		write_matrix_text(f, run);
	} else {
		for (size_t i = 0; i < run->n; i++) {
			const sp_live_lane *l = &run->lanes[i];
			fprintf(f, "lane: %s/%s%s%s\n", l->rt->name, l->variant->name, l->rtinfo[0] ? " -- " : "", l->rtinfo);
			if (l->notes[0])
				fprintf(f, "note: %s\n", l->notes);
			for (size_t k = 0; k < l->results.n; k++) {
				const sp_live_result *r = &l->results.v[k];
				fprintf(f, "%s: %s -- %s\n", sp_status_label(r->status), r->id, r->detail);
				if (verbose || is_bad(r->status))
					fprintf(f, "      expected: %s\n      observed: %s\n", r->expected, r->observed);
			}
			if (l->stderr_tail && l->status != SP_STATUS_PASS && verbose)
				fprintf(f, "runtime stderr:\n%s\n", l->stderr_tail);
		}
	}
	for (size_t i = 0; i < run->defects.n; i++)
		fprintf(f, "DEFECT: %s\n", run->defects.v[i]);
	for (size_t i = 0; i < run->nteardown; i++)
		fprintf(f, "TEARDOWN: %s %s -- %s\n", run->teardown[i].rt->name, run->teardown[i].ok ? "PASS" : "FAIL",
			run->teardown[i].what);
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		if (!run->matrix)
			fprintf(f, "LANE: %s/%s %s -- %s (%.0f ms)\n", l->rt->name, l->variant->name, verdict(l), l->reason, l->ms);
	}
	fprintf(f, "RESULT: %s\n", sp_live_failed(run) ? "FAIL" : "PASS");
}

static json_t *strv_json(const sp_strv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, sp_json_str(v->v[i]));
	return a;
}

static json_t *launch_json(const sp_live_launch *l)
{
	json_t *ns = json_array();
	for (unsigned i = 0; i < 7; i++)
		if (l->ns & (1u << i))
			json_array_append_new(ns, json_string(sp_ns_names[i]));
	return json_pack("{s:o,s:b,s:b,s:b,s:b,s:b,s:b,s:b,s:b,s:b}", "namespaces", ns, "read_only_root", l->ro_root,
			 "cap_drop_all", l->drop_caps, "seccomp", l->seccomp, "no_new_privs", l->nnp, "minimal_dev", l->min_dev,
			 "tmp", l->tmp, "own_cgroup", l->own_cgroup, "privileged", l->privileged, "vm", l->vm);
}

int sp_live_write_json(FILE *f, const sp_live_run *run)
{
	const sp_live_platform *p = &run->platform;
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("sandprobe.live.v1"));
	json_object_set_new(root, "tool", json_pack("{s:s,s:s}", "name", "sandprobe", "version", SP_VERSION));
	json_object_set_new(root, "platform",
			    json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:{s:b,s:b,s:b,s:o},s:o}", "os", "linux", "kernel", sp_json_str(p->kernel),
				      "arch", sp_json_str(p->arch), "host_kind", sp_json_str(p->host_kind), "virtualization", sp_json_str(p->virt),
				      "cgroup", sp_json_str(p->cgroup), "kvm", "present", p->kvm_present, "probed", p->kvm_probed,
				      "usable", p->kvm_usable,
				      "reason", sp_json_str(p->kvm_reason), "notes", sp_json_str(p->notes)));
	json_t *lanes = json_array();
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		json_t *removed = json_array();
		for (unsigned bit = 1; bit <= SP_PROT_LAST; bit <<= 1)
			if (l->variant->removes & bit)
				json_array_append_new(removed, json_string(sp_prot_name(bit)));
		json_t *results = json_array();
		for (size_t k = 0; k < l->results.n; k++) {
			const sp_live_result *r = &l->results.v[k];
			json_array_append_new(results, json_pack("{s:o,s:s,s:s,s:o,s:o,s:o}", "id", sp_json_str(r->id), "side",
								 r->host ? "host" : "inside", "status", sp_status_name(r->status), "expected",
								 sp_json_str(r->expected), "observed", sp_json_str(r->observed), "detail",
								 sp_json_str(r->detail)));
		}
		json_t *o = json_pack("{s:s,s:s,s:b,s:o,s:s,s:o,s:s,s:f}", "runtime", l->rt->name, "variant", l->variant->name,
				      "negative_control", l->variant->removes != 0, "removed", removed, "status", sp_status_name(l->status),
				      "reason", sp_json_str(l->reason), "verdict", verdict(l), "duration_ms", l->ms);
		if (l->variant->property)
			json_object_set_new(o, "property", json_string(l->variant->property));
		json_object_set_new(o, "launch", sp_json_str(l->rtinfo));
		if (l->name[0]) {
			/* what the lane created is named by these: for a caller's own proof that nothing is left */
			json_object_set_new(o, "name", sp_json_str(l->name));
			json_object_set_new(o, "nonce", sp_json_str(l->nonce));
			json_object_set_new(o, "dir", sp_json_str(l->dir));
		}
		if (l->notes[0])
			json_object_set_new(o, "notes", sp_json_str(l->notes));
		if (l->command)
			json_object_set_new(o, "command", sp_json_str(l->command));
		json_object_set_new(o, "launch_failed", json_boolean(l->launch_failed));
		json_object_set_new(o, "launch_limitation", json_boolean(l->limited));
		if (l->rt->handler)
			json_object_set_new(o, "runtime_class", json_pack("{s:s,s:s}", "handler", l->rt->handler, "runtime_type",
									 l->rt->runtime_type ? l->rt->runtime_type : ""));
		json_object_set_new(o, "doctor_ms", json_real(l->doctor_ms));
		if (l->status != SP_STATUS_SKIP && !run->origin) {
			json_object_set_new(o, "claims", launch_json(&l->claim));
			json_object_set_new(o, "actual", launch_json(&l->actual));
		}
		json_object_set_new(o, "doctor_args", strv_json(&l->doctor_args));
		if (l->boundary[0])
			json_object_set_new(o, "kernel_boundary",
					    json_pack("{s:s,s:b}", "kind", l->boundary, "accepted", l->boundary_accepted));
		if (l->variant->removes) {
			json_object_set_new(o, "must_fail", strv_json(&l->expected_fail));
			json_object_set_new(o, "did_not_fail", strv_json(&l->missed));
			json_object_set_new(o, "also_failed", strv_json(&l->also_failed));
			json_object_set_new(o, "collateral", strv_json(&l->collateral));
			json_object_set_new(o, "judged_by_boundary", strv_json(&l->by_boundary));
		}
		if (l->json_extra)
			json_object_update(o, l->json_extra);
		json_object_set_new(o, "results", results);
		json_array_append_new(lanes, o);
	}
	json_object_set_new(root, "lanes", lanes);
	json_object_set_new(root, "defects", strv_json(&run->defects));
	/* what the lanes shared (images, namespaces), removed when the run ended, and its proof */
	json_t *td = json_array();
	for (size_t i = 0; i < run->nteardown; i++)
		json_array_append_new(td, json_pack("{s:s,s:s,s:o}", "runtime", run->teardown[i].rt->name, "status",
						    run->teardown[i].ok ? "pass" : "fail", "observed", sp_json_str(run->teardown[i].what)));
	json_object_set_new(root, "teardown", td);
	json_object_set_new(root, "result", json_string(sp_live_failed(run) ? "fail" : "pass"));
	int r = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return r;
}

static void html_text(FILE *f, const char *s)
{
	sp_xml_attr(f, s ? s : "");
}

/* the lane's note on the host control paths it hid (firejail names them, the others say why none needed hiding) */
static void html_hidden(FILE *f, const sp_live_lane *l)
{
	const char *h = strstr(l->notes, "host control paths hidden");
	if (!h)
		return;
	const char *end = strstr(h, "; ");
	char buf[sizeof l->notes];
	snprintf(buf, sizeof buf, "%.*s", (int)(end ? (size_t)(end - h) : strlen(h)), h);
	fputs("<br><small>", f);
	html_text(f, buf);
	fputs("</small>", f);
}

void sp_live_write_html(FILE *f, const sp_live_run *run)
{
	const sp_live_platform *p = &run->platform;
	bool failed = sp_live_failed(run);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>sandprobe ", f);
	html_text(f, run->suite ? run->suite : "live");
	fputs(" matrix</title>\n<style>\n"
	      "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\n"
	      "table{border-collapse:collapse;margin:1em 0}\n"
	      "th,td{border:1px solid #ccc;padding:.3em .6em;text-align:center}\n"
	      "th{background:#f0f0f0}td.l{text-align:left}\n"
	      ".PASS{background:#d9f2d9}.FAIL{background:#f7d4d4}.EXP{background:#fbe8c8}.SKIP,.none{color:#888}\n"
	      ".DEFECT{background:#e00;color:#fff;font-weight:bold}.ok{color:#070}.bad{color:#b00}\n"
	      "small{color:#666}\n</style></head><body>\n",
	      f);
	fprintf(f, "<h1>sandprobe %s: <span class=\"%s\">%s</span></h1>\n", run->suite ? run->suite : "live", failed ? "bad" : "ok",
		failed ? "FAIL" : "PASS");
	fputs("<p>", f);
	if (run->origin) {
		html_text(f, run->origin);
	} else {
		html_text(f, p->kernel);
		fputs(" ", f);
		html_text(f, p->arch);
		fputs(", host ", f);
		html_text(f, p->host_kind);
		fputs(" (virtualization: ", f);
		html_text(f, p->virt);
		fputs("), cgroup ", f);
		html_text(f, p->cgroup);
		fprintf(f, ", KVM %s: ", kvm_word(p));
		html_text(f, p->kvm_reason);
		fputs("<br><small>", f);
		html_text(f, p->notes);
		fputs("</small>", f);
	}
	fputs("</p>\n<table>\n<tr><th>runtime</th><th>variant</th>", f);
	for (size_t c = 0; c < NCOLS; c++)
		fprintf(f, "<th>%s</th>", columns[c].title);
	fputs("<th>verdict</th><th>ms</th></tr>\n", f);
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		bool skip = l->status == SP_STATUS_SKIP;
		fputs("<tr><td class=\"l\">", f);
		html_text(f, l->rt->name);
		fputs("</td><td class=\"l\">", f);
		html_text(f, l->variant->name);
		if (l->variant->removes) {
			char rm[256];
			removed_names(l, rm, sizeof rm);
			fputs("<br><small>removes: ", f);
			html_text(f, rm);
			fputs("</small>", f);
		}
		html_hidden(f, l);
		fputs("</td>", f);
		for (size_t c = 0; c < NCOLS; c++) {
			bool exp = false;
			const char *v = skip ? "skip" : cell(l, c, &exp);
			const char *cls = skip ? "SKIP" : !strcmp(v, "-") ? "none" : exp && l->variant->removes ? "EXP" : v;
			fprintf(f, "<td class=\"%s\">%s%s</td>", cls, v, exp && l->variant->removes && !skip ? "*" : "");
		}
		const char *vd = verdict(l);
		fprintf(f, "<td class=\"%s\">%s", !strcmp(vd, "FAILED AS EXPECTED") ? "PASS" : vd, vd);
		if (says_why(run, l)) {
			fputs("<br><small>", f);
			html_text(f, l->reason);
			fputs("</small>", f);
		}
		fprintf(f, "</td><td>%.0f</td></tr>\n", l->ms);
	}
	fputs("</table>\n<p><small>* a failure the negative control must produce. A negative control that does not fail is a tool "
	      "defect.</small></p>\n",
	      f);
	if (run->nteardown) {
		fputs("<h2>End of the run</h2><ul>\n", f);
		for (size_t i = 0; i < run->nteardown; i++) {
			fprintf(f, "<li class=\"%s\">", run->teardown[i].ok ? "ok" : "bad");
			html_text(f, run->teardown[i].rt->name);
			fputs(run->teardown[i].ok ? ": " : ": LEFT BEHIND: ", f);
			html_text(f, run->teardown[i].what);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	if (run->defects.n) {
		fputs("<h2>Defects</h2><ul>\n", f);
		for (size_t i = 0; i < run->defects.n; i++) {
			fputs("<li>", f);
			html_text(f, run->defects.v[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("</body></html>\n", f);
}
