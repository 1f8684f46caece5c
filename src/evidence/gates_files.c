/* Gates on the bundle's files as files: every one present, metadata.txt's
 * schema, keys and profile claim, each TSV file's columns and types, the
 * JSON files typed. */
#include "evidence/ev_judge.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"

void sp_judge_files_present(sp_ev_judge *s, sp_ev_gate_ref g)
{
	char missing[256] = "";
	size_t nmiss = 0, len = 0;
	for (int k = 0; k < KF_N; k++) {
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", s->dir, sp_ev_known_name[k]);
		struct stat st;
		const char *why = NULL;
		if (lstat(p, &st) < 0)
			why = "missing";
		else if (!S_ISREG(st.st_mode))
			why = "not a regular file";
		else if (st.st_size == 0)
			why = "empty";
		if (why) {
			nmiss++;
			len += (size_t)snprintf(missing + len, len < sizeof missing ? sizeof missing - len : 0, "%s%s %s",
						nmiss > 1 ? ", " : "", sp_ev_known_name[k], why);
			if (len >= sizeof missing)
				len = sizeof missing;
		}
	}
	_cleanup_free_ char *lp = sp_xasprintf("%s/logs", s->dir);
	struct stat st;
	if (lstat(lp, &st) < 0 || !S_ISDIR(st.st_mode)) {
		nmiss++;
		len += (size_t)snprintf(missing + len, len < sizeof missing ? sizeof missing - len : 0, "%slogs/ missing",
					nmiss > 1 ? ", " : "");
	}
	char m[32];
	snprintf(m, sizeof m, "%zu missing", nmiss);
	if (nmiss)
		gate(s->v, false, g, m, "0 missing", "%s", missing);
	else
		gate(s->v, true, g, m, "0 missing", "every required file present and non-empty");
}

/* ---- metadata.txt ------------------------------------------------------- */
void sp_judge_metadata_schema(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const char *msg = s->meta_err.msg;
	if (s->meta_ok) {
		gate(s->v, true, g, SP_EVIDENCE_SCHEMA, SP_EVIDENCE_SCHEMA, "metadata.txt: schema %s", SP_EVIDENCE_SCHEMA);
	} else if (!strcmp(s->meta_kind, "schema")) {
		gate(s->v, false, g, "unknown", SP_EVIDENCE_SCHEMA, "%s", msg);
	} else if (!strcmp(s->meta_kind, "present")) {
		na(s->v, g, msg);
	} else {
		const char *sch = s->meta.n ? sp_kv_get(s->meta.kv, s->meta.n, "schema") : NULL;
		if (sch && !strcmp(sch, SP_EVIDENCE_SCHEMA))
			gate(s->v, true, g, SP_EVIDENCE_SCHEMA, SP_EVIDENCE_SCHEMA, "metadata.txt: schema %s", SP_EVIDENCE_SCHEMA);
		else
			na(s->v, g, msg);
	}
}

void sp_judge_metadata_keys(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (s->meta_ok)
		gate(s->v, true, g, "all typed", "every required key typed",
		     "metadata.txt: %zu keys, %zu declared scenarios, %zu declared faults", s->meta.n, s->meta.nscenarios,
		     s->meta.nfaults);
	else if (!strcmp(s->meta_kind, "schema"))
		na(s->v, g, "metadata.txt has no known schema");
	else if (!strcmp(s->meta_kind, "present"))
		na(s->v, g, s->meta_err.msg);
	else
		gate(s->v, false, g, "invalid", "every required key typed", "%s", s->meta_err.msg);
}

/* a named profile whose thresholds the metadata loosens is a claim the
 * bundle does not meet (the thresholds: sp_ev_read_metadata) */
void sp_judge_profile_claim(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const char *claim = s->meta.profile;
	if (!s->meta_ok)
		na(s->v, g, "metadata.txt is invalid");
	else if (!s->claim_named)
		gate(s->v, true, g, claim, "custom", "custom profile: judged by the thresholds in metadata.txt");
	else if (s->loose)
		gate(s->v, false, g, s->loose_have, s->loose_want,
		     "bundle claims profile %s but metadata %s=%s is looser than the profile's %s", claim, s->loose,
		     s->loose_have, s->loose_want);
	else
		gate(s->v, true, g, claim, claim, "metadata thresholds meet profile %s", claim);
}

/* metadata.absent: fields a writer could not derive (sandprobe import marks
 * them '-' and lists them): such a bundle is drawn, never release evidence */
void sp_judge_metadata_absent(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const char *ab = s->meta.n ? sp_kv_get(s->meta.kv, s->meta.n, "absent") : NULL;
	if (!s->meta.n) {
		na(s->v, g, "metadata.txt is unreadable");
		return;
	}
	if (!ab || !*ab) {
		gate(s->v, true, g, "none", "none", "no field is marked absent");
		return;
	}
	size_t n = 1;
	for (const char *p = ab; *p; p++)
		n += *p == ',';
	const char *from = sp_kv_get(s->meta.kv, s->meta.n, "imported_from");
	char m[32];
	snprintf(m, sizeof m, "%zu absent", n);
	gate(s->v, false, g, m, "none", "%zu field(s) marked absent%s%s%s: %.200s", n, from ? " (imported from " : "",
	     from ? from : "", from ? ")" : "", ab);
}

/* ---- TSV files: columns.<stem>, types.<stem> ----------------------------- */
static enum sp_ev_file file_of(sp_ev_gate_ref g)
{
	for (int f = 0; f < SP_EV_NFILES; f++)
		if (!strcmp(sp_ev_file_stem((enum sp_ev_file)f), g.suffix))
			return (enum sp_ev_file)f;
	abort(); /* a line of SP_GATE_LIST names no TSV file */
}

void sp_judge_columns(sp_ev_judge *s, sp_ev_gate_ref g)
{
	enum sp_ev_file f = file_of(g);
	const struct tsv_outcome *r = &s->tsv[f];
	if (!r->opened && r->err == SP_EVE_PRESENT)
		na(s->v, g, r->msg);
	else if (!r->opened)
		gate(s->v, false, g, "missing", "all required", "%s", r->msg);
	else
		gate(s->v, true, g, "all required", "all required", "%s: every required column present", sp_ev_file_name(f));
}

void sp_judge_types(sp_ev_judge *s, sp_ev_gate_ref g)
{
	enum sp_ev_file f = file_of(g);
	const struct tsv_outcome *r = &s->tsv[f];
	char m[32];
	snprintf(m, sizeof m, "%llu rows", r->rows);
	if (!r->opened)
		na(s->v, g, r->msg);
	else if (!r->read_ok)
		gate(s->v, false, g, "invalid", "every value typed", "%s", r->msg);
	else
		gate(s->v, true, g, m, "every value typed", "%s: %llu rows, every value of the right type", sp_ev_file_name(f),
		     r->rows);
}

/* ---- JSON files ---------------------------------------------------------- */
void sp_judge_types_inventory(sp_ev_judge *s, sp_ev_gate_ref g)
{
	char m[48];
	snprintf(m, sizeof m, "%zu + %zu", s->inv_start.n, s->inv_final.n);
	if (!s->inv_ok)
		gate(s->v, false, g, "invalid", "valid", "%s", s->inv_msg);
	else
		gate(s->v, true, g, m, "valid", "inventories: %zu start, %zu final resources", s->inv_start.n, s->inv_final.n);
}

void sp_judge_types_summary(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (!s->sm_ok)
		gate(s->v, false, g, "invalid", "valid", "summary.json: %s", s->sm_err.msg);
	else
		gate(s->v, true, g, "valid", "valid", "summary.json: every field of the right type");
}
