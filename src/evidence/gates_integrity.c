/* Gates on the bundle as a whole: logs bounded and redacted, MANIFEST lists
 * and matches every file, its signature verifies. */
#include "evidence/ev_judge.h"

#include <string.h>

#include "core/util.h"

void sp_judge_logs_bounded(sp_ev_judge *s, sp_ev_gate_ref g)
{
	char m[48], t[48];
	if (!s->listed) {
		na(s->v, g, s->list_err.msg);
		return;
	}
	snprintf(t, sizeof t, "%d bytes", LOG_BOUND);
	if (s->log_big[0]) {
		snprintf(m, sizeof m, "%lld bytes", s->log_bigsz);
		gate(s->v, false, g, m, t, "%s", s->log_big);
	} else {
		snprintf(m, sizeof m, "%zu files", s->nlogs);
		gate(s->v, true, g, m, t, "%zu log file(s), each within 64 KiB (or head and tail with an elision line)", s->nlogs);
	}
}

void sp_judge_logs_redacted(sp_ev_judge *s, sp_ev_gate_ref g)
{
	char m[48];
	if (!s->listed) {
		na(s->v, g, s->list_err.msg);
		return;
	}
	snprintf(m, sizeof m, "%zu unredacted", s->log_hits);
	if (!s->log_scan)
		na(s->v, g, "cannot compile the secret patterns");
	else if (s->log_hits)
		gate(s->v, false, g, m, "0 unredacted", "%zu secret-shaped value(s) not redacted; first: %s", s->log_hits,
		     s->log_where);
	else
		gate(s->v, true, g, m, "0 unredacted", "no value of the %zu secret shapes in %zu log file(s)",
		     sp_secret_shape_count(), s->nlogs);
}

/* the bundle's files against MANIFEST, in one merge of two sorted lists */
void sp_judge_integrity_manifest(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	sp_error merr;
	sp_ev_manifest man = {0};
	if (!s->mbuf) {
		gate(v, false, g, "missing", "every file listed and matching", "MANIFEST: %s", sp_ev_strerror(s->merrno));
	} else if (sp_ev_manifest_parse(&man, s->mbuf, s->mlen, &merr) < 0) {
		gate(v, false, g, "invalid", "every file listed and matching", "%s", merr.msg);
	} else if (!s->listed) {
		gate(v, false, g, "invalid", "every file listed and matching", "bundle: %s", s->list_err.msg);
	} else {
		char **paths = s->paths;
		size_t n = s->npaths;
		size_t i = 0, j = 0, bad = 0;
		char first[300] = "";
		while (i < man.n || j < n) {
			int c = i == man.n ? 1 : j == n ? -1
							: strcmp(man.v[i].path, paths[j]);
			const char *what = NULL, *who = NULL;
			if (c < 0) {
				what = "listed in MANIFEST but missing (removed)";
				who = man.v[i++].path;
			} else if (c > 0) {
				what = "present but not listed in MANIFEST (added)";
				who = paths[j++];
			} else {
				unsigned char d[32];
				const unsigned char *dp = NULL;
				for (int k = 0; k < KF_N; k++)
					if (!strcmp(sp_ev_known_name[k], paths[j]) && s->hash[k].done)
						dp = s->hash[k].digest;
				if (!dp) {
					_cleanup_free_ char *fp = sp_xasprintf("%s/%s", s->dir, paths[j]);
					sp_outcome o = {0};
					int r = sp_ev_sha256_file(fp, d, NULL, &o);
					if (r < 0) {
						what = "unreadable";
						who = paths[j];
					}
					dp = d;
				}
				if (!what && memcmp(dp, man.v[i].digest, 32)) {
					what = "does not match its MANIFEST digest (edited or truncated)";
					who = paths[j];
				}
				i++;
				j++;
			}
			if (what && !bad++)
				snprintf(first, sizeof first, "%s %s", who, what);
		}
		char m[48], t[48];
		snprintf(m, sizeof m, "%zu bad", bad);
		snprintf(t, sizeof t, "0 bad of %zu", man.n);
		if (bad)
			gate(v, false, g, m, t, "%zu file(s) fail the MANIFEST; first: %s", bad, first);
		else
			gate(v, true, g, m, t, "MANIFEST lists and matches all %zu files", man.n);
	}
	sp_ev_manifest_free(&man);
}

void sp_judge_integrity_signature(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	sp_error merr;
	if (!s->o->pubkey) {
		gate(v, true, g, "not checked", "--pubkey", "no --pubkey given: signature not checked (MANIFEST.sig %s)",
		     s->sig ? "present" : "absent");
	} else if (!s->sig) {
		gate(v, false, g, "unsigned", "valid Ed25519", "a public key was given but MANIFEST.sig is %s",
		     sp_ev_strerror(s->serrno));
	} else if (!s->mbuf) {
		gate(v, false, g, "no MANIFEST", "valid Ed25519", "MANIFEST is missing");
	} else if (sp_sig_verify(s->o->pubkey, s->mbuf, s->mlen, s->sig, s->slen, &merr) == 1) {
		gate(v, true, g, "valid", "valid Ed25519", "MANIFEST.sig is a valid Ed25519 signature of MANIFEST");
	} else {
		gate(v, false, g, "invalid", "valid Ed25519", "%s", merr.msg);
	}
}
