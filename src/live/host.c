/* Host-side checks (host.*) and the doctor's report as untrusted input.
 * Every host check reads the sandbox from outside (/proc/PID/...), compares
 * with the claim, and compares with what the doctor saw inside: a
 * disagreement between inside and outside is a failure. Empty or unreadable
 * values are errors, never passes. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/caps.h"
#include "live/live.h"

#define DOCTOR_REPORT_MAX (4u << 20)
#define FIELD_MAX 65536

static const char *const statuses[] = {"pass", "fail", "skip", "warn", "error"};

/* the host's and the doctor's check of each namespace, in sp_ns_names order */
static const char *const host_ns_ids[7] = {SP_HOSTID(ns_pid),  SP_HOSTID(ns_net),  SP_HOSTID(ns_mnt),   SP_HOSTID(ns_uts),
					   SP_HOSTID(ns_ipc),  SP_HOSTID(ns_user), SP_HOSTID(ns_cgroup)};
static const char *const doctor_ns_ids[7] = {SP_CKID(ns_pid), SP_CKID(ns_net),  SP_CKID(ns_mnt),   SP_CKID(ns_uts),
					     SP_CKID(ns_ipc), SP_CKID(ns_user), SP_CKID(ns_cgroup)};

static bool valid_id(const char *id)
{
	size_t n = strlen(id);
	if (n == 0 || n >= 96)
		return false;
	for (const char *p = id; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

static bool valid_status(const char *s)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(statuses); i++)
		if (!strcmp(s, statuses[i]))
			return true;
	return false;
}

/* a string member no longer than FIELD_MAX (absent: "") */
static int str_field(json_t *obj, const char *k, const char **out, sp_outcome *o, size_t idx)
{
	json_t *v = json_object_get(obj, k);
	if (!v) {
		*out = "";
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) > FIELD_MAX)
		return sp_why(o, "results[%zu].%s: not a string of at most %u bytes", idx, k, FIELD_MAX);
	*out = json_string_value(v);
	return 0;
}

/* validate against sandprobe.doctor.v1; 0 or -1 with why */
static int validate(json_t *root, int rc, const sp_live_cfg *cfg, sp_outcome *o)
{
	if (!json_is_object(root))
		return sp_why(o, "top level is not an object");
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, "sandprobe.doctor.v1"))
		return sp_why(o, "schema is '%s', want sandprobe.doctor.v1", schema ? schema : "(missing)");
	json_t *results = json_object_get(root, "results");
	if (!json_is_array(results) || json_array_size(results) == 0)
		return sp_why(o, "results: missing or empty");
	if (json_array_size(results) > 4096)
		return sp_why(o, "results: %zu entries, more than 4096", json_array_size(results));
	json_t *sum = json_object_get(root, "summary");
	if (!json_is_object(sum))
		return sp_why(o, "summary: missing");
	const char *result = json_string_value(json_object_get(root, "result"));
	if (!result || (strcmp(result, "pass") && strcmp(result, "fail") && strcmp(result, "skip")))
		return sp_why(o, "result: '%s', want pass, fail or skip", result ? result : "(missing)");
	json_t *env = json_object_get(root, "environment");
	if (!json_is_object(env) || !json_is_string(json_object_get(env, "kernel")))
		return sp_why(o, "environment.kernel: missing");
	size_t counts[5] = {0};
	sp_strv seen;
	sp_strv_split(&seen, NULL, ",");
	size_t i;
	json_t *r;
	int ret = 0;
	json_array_foreach(results, i, r) {
		const char *id = json_string_value(json_object_get(r, "id"));
		const char *st = json_string_value(json_object_get(r, "status"));
		const char *dummy;
		if (!json_is_object(r) || !id || !valid_id(id)) {
			sp_why(o, "results[%zu].id: missing or malformed", i);
			ret = -1;
			break;
		}
		if (!st || !valid_status(st)) {
			sp_why(o, "results[%zu].status: '%s' is not pass/fail/skip/warn/error", i, st ? st : "(missing)");
			ret = -1;
			break;
		}
		if (str_field(r, "expected", &dummy, o, i) < 0 || str_field(r, "observed", &dummy, o, i) < 0 ||
		    str_field(r, "detail", &dummy, o, i) < 0) {
			ret = -1;
			break;
		}
		if (sp_strv_contains(&seen, id)) {
			sp_why(o, "results[%zu].id: '%s' appears twice", i, id);
			ret = -1;
			break;
		}
		if (!sp_strv_contains(&cfg->ids, id)) {
			sp_why(o, "results[%zu].id: '%s' is not in the doctor's catalogue", i, id);
			ret = -1;
			break;
		}
		sp_strv_push(&seen, id);
		for (size_t s = 0; s < SP_ARRAY_SIZE(statuses); s++)
			counts[s] += !strcmp(st, statuses[s]);
	}
	if (ret == 0)
		for (size_t s = 0; s < SP_ARRAY_SIZE(statuses); s++) {
			json_t *c = json_object_get(sum, statuses[s]);
			if (!json_is_integer(c) || json_integer_value(c) != (json_int_t)counts[s]) {
				sp_why(o, "summary.%s is not the number of %s results (%zu)", statuses[s], statuses[s],
				       counts[s]);
				ret = -1;
				break;
			}
		}
	if (ret == 0) {
		bool failed = counts[1] || counts[4];
		/* "skip": every result skipped, nothing proven (exit 1) */
		bool all_skipped = !failed && counts[2] == json_array_size(results);
		if (failed != !strcmp(result, "fail")) {
			sp_why(o, "result '%s' contradicts its results (%zu fail, %zu error)", result, counts[1], counts[4]);
			ret = -1;
		} else if (all_skipped != !strcmp(result, "skip")) {
			sp_why(o, "result '%s' contradicts its results (%zu of %zu skipped)", result, counts[2],
			       json_array_size(results));
			ret = -1;
		} else if ((rc == 0) != !strcmp(result, "pass") || (rc != 0 && rc != 1)) {
			sp_why(o, "exit status %d contradicts result '%s'", rc, result);
			ret = -1;
		}
	}
	if (ret == 0)
		for (size_t k = 0; k < cfg->run_ids.n; k++)
			if (!sp_strv_contains(&seen, cfg->run_ids.v[k])) {
				sp_why(o, "check '%s' of the catalogue is missing from the report", cfg->run_ids.v[k]);
				ret = -1;
				break;
			}
	sp_strv_free(&seen);
	return ret;
}

void sp_doctor_ingest(sp_live_lane *l, const char *json, size_t len, int rc)
{
	const char *exp = "a sandprobe.doctor.v1 report under 4 MiB, consistent with itself and the exit status";
	if (len == 0) {
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_ERROR, exp, "no JSON before the exit marker", "the doctor printed no report");
		return;
	}
	if (len > DOCTOR_REPORT_MAX) {
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_FAIL, exp, "oversized", "report of %zu bytes rejected", len);
		return;
	}
	json_error_t je;
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_FAIL, exp, je.text, "not valid JSON at line %d column %d", je.line,
			    je.column);
		return;
	}
	sp_outcome o = {0};
	if (validate(root, rc, l->cfg, &o) < 0) {
		o.why[511] = '\0'; /* the reason as it always was: at most 511 bytes */
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_FAIL, exp, o.why, "report rejected: %s", o.why);
		json_decref(root);
		return;
	}
	json_t *results = json_object_get(root, "results");
	size_t i;
	json_t *r;
	json_array_foreach(results, i, r) {
		const char *g[3];
		sp_outcome unused; /* validated above */
		str_field(r, "expected", &g[0], &unused, i);
		str_field(r, "observed", &g[1], &unused, i);
		str_field(r, "detail", &g[2], &unused, i);
		sp_status st = SP_STATUS_ERROR;
		sp_lres_status(json_string_value(json_object_get(r, "status")), &st); /* validated above */
		sp_lres_add(&l->results, json_string_value(json_object_get(r, "id")), st, g[0], g[1], "%s", g[2]);
	}
	json_t *dms = json_object_get(root, "duration_ms");
	l->doctor_ms = json_is_number(dms) ? json_number_value(dms) : 0;
	snprintf(l->doctor_kernel, sizeof l->doctor_kernel, "%s",
		 json_string_value(json_object_get(json_object_get(root, "environment"), "kernel")));
	/* the kernel the doctor says it talks to, and whether its policy accepts it
	 * (untrusted: only a kind the lane's own runtime confirms is used, see
	 * sp_lane_by_boundary; anything else is the host's kernel, judged literally) */
	json_t *kb = json_object_get(json_object_get(root, "environment"), "kernel_boundary");
	const char *kind = json_string_value(json_object_get(kb, "kind"));
	l->boundary[0] = '\0';
	l->boundary_accepted = false;
	if (kind && (!strcmp(kind, "host") || !strcmp(kind, "user-space") || !strcmp(kind, "guest"))) {
		snprintf(l->boundary, sizeof l->boundary, "%s", kind);
		l->boundary_accepted = strcmp(kind, "host") && json_is_true(json_object_get(kb, "accepted"));
	}
	if (!strcmp(json_string_value(json_object_get(root, "result")), "skip")) {
		/* a valid report that proves nothing: the lane has no doctor verdict */
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_ERROR, exp, "result skip, exit status 1",
			    "the doctor proved nothing: all %zu of its checks skipped", json_array_size(results));
		json_decref(root);
		return;
	}
	sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_PASS, exp, "", "valid report: %zu results, exit status %d%s%s%s",
		    json_array_size(results), rc, l->boundary[0] ? "; kernel boundary " : "", l->boundary,
		    l->boundary_accepted ? " (accepted by its policy)" : "");
	json_decref(root);
}

/* ------------------------------------------------------------- helpers */

/* the target of pid's (0: our own) namespace link of type: 0, or -1 (o: strerror of errnum) */
static int ns_link(pid_t pid, const char *type, char *buf, size_t size, sp_outcome *o)
{
	char path[64];
	if (pid)
		snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, type);
	else
		snprintf(path, sizeof path, "/proc/self/ns/%s", type);
	ssize_t n = readlink(path, buf, size - 1);
	if (n < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	buf[n] = '\0';
	return n > 0 ? 0 : sp_why_errno(o, EINVAL, "%s", strerror(EINVAL));
}

/* what the doctor observed for id (NULL when the check did not run) */
static const char *inside(const sp_live_lane *l, const char *id)
{
	const sp_live_result *r = sp_lres_find(&l->results, id);
	return r && !r->host ? r->observed : NULL;
}

/* hex value after "KEY " in text; 0 or -1 */
static int after_key_hex(const char *text, const char *key, uint64_t *out)
{
	const char *p = text ? strstr(text, key) : NULL;
	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == ':' || *p == '\t')
		p++;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(p, &end, 16);
	if (end == p || errno)
		return -1;
	*out = v;
	return 0;
}

static void host_ns(sp_live_lane *l)
{
	for (unsigned i = 0; i < 7; i++) {
		const char *t = sp_ns_names[i];
		const char *id = host_ns_ids[i];
		char exp[128], sb[128], hb[128], obs[512];
		bool claimed = l->claim.ns & (1u << i);
		snprintf(exp, sizeof exp, "%s", claimed ? "the sandbox's link differs from the host's, both readable"
							 : "any (not claimed by this launch)");
		sp_outcome os = {0}, oh = {0};
		int es = ns_link(l->host_pid, t, sb, sizeof sb, &os), eh = ns_link(0, t, hb, sizeof hb, &oh);
		if (es < 0 || eh < 0) {
			snprintf(obs, sizeof obs, "sandbox %s, host %s", es < 0 ? os.why : sb, eh < 0 ? oh.why : hb);
			sp_lres_add(&l->results, id, SP_STATUS_ERROR, exp, obs, "cannot read both namespace links: empty-vs-empty is no proof");
			continue;
		}
		snprintf(obs, sizeof obs, "sandbox (pid %d) %s, host %s", (int)l->host_pid, sb, hb);
		const char *in = inside(l, doctor_ns_ids[i]);
		if (in && strncmp(in, sb, strlen(sb)) != 0) {
			sp_lres_add(&l->results, id, SP_STATUS_FAIL, exp, obs, "inside and outside disagree: the doctor saw '%.60s', the host sees %s", in, sb);
			continue;
		}
		bool same = !strcmp(sb, hb);
		if (same && claimed)
			sp_lres_add(&l->results, id, SP_STATUS_FAIL, exp, obs, "the sandbox shares the host's %s namespace", t);
		else
			sp_lres_add(&l->results, id, SP_STATUS_PASS, exp, obs, "%s%s", same ? "shared, not claimed" : "own namespace",
				    in ? ", and the doctor saw the same link" : "");
	}
}

static void host_caps(sp_live_lane *l)
{
	char path[64], eff[64], bnd[64];
	snprintf(path, sizeof path, "/proc/%d/status", (int)l->host_pid);
	const char *exp = l->claim.drop_caps ? "CapEff and CapBnd empty, as the doctor saw"
					     : "any capabilities (not dropped by this launch), as the doctor saw";
	int a = sp_status_field(path, "CapEff", eff, sizeof eff), b = sp_status_field(path, "CapBnd", bnd, sizeof bnd);
	uint64_t e, bb;
	if (a < 0 || b < 0 || sp_caps_parse(eff, &e) < 0 || sp_caps_parse(bnd, &bb) < 0) {
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_ERROR, exp, path, "cannot read CapEff/CapBnd of the sandbox from the host");
		return;
	}
	char obs[512];
	snprintf(obs, sizeof obs, "host view of pid %d: CapEff %016llx, CapBnd %016llx", (int)l->host_pid,
		 (unsigned long long)e, (unsigned long long)bb);
	const char *ie = inside(l, SP_CKID(caps_effective)), *ib = inside(l, SP_CKID(caps_bounding));
	uint64_t de, db;
	if (ie && (after_key_hex(ie, "CapEff", &de) < 0)) {
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_ERROR, exp, obs, "cannot read the doctor's CapEff from '%.80s'", ie);
		return;
	}
	if (ib && (after_key_hex(ib, "CapBnd", &db) < 0)) {
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_ERROR, exp, obs, "cannot read the doctor's CapBnd from '%.80s'", ib);
		return;
	}
	if ((ie && de != e) || (ib && db != bb)) {
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_FAIL, exp, obs, "inside and outside disagree: the doctor saw CapEff %016llx CapBnd %016llx",
			    ie ? (unsigned long long)de : 0ull, ib ? (unsigned long long)db : 0ull);
		return;
	}
	if (l->claim.drop_caps && (e || bb))
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_FAIL, exp, obs, "the launch dropped every capability, but the sandbox holds some");
	else
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_PASS, exp, obs, "%s", ie ? "matches the claim and the doctor's view" : "matches the claim");
}

static void host_status_flag(sp_live_lane *l, const char *id, const char *field, const char *doctor_id, const char *doctor_key,
			     bool claimed, const char *want, const char *what)
{
	char path[64], v[32], exp[160];
	snprintf(path, sizeof path, "/proc/%d/status", (int)l->host_pid);
	snprintf(exp, sizeof exp, "%s %s, as the doctor saw", field, claimed ? want : "any (not claimed)");
	if (sp_status_field(path, field, v, sizeof v) < 0 || !v[0]) {
		sp_lres_add(&l->results, id, SP_STATUS_ERROR, exp, path, "cannot read %s of the sandbox from the host", field);
		return;
	}
	char obs[256];
	snprintf(obs, sizeof obs, "host view of pid %d: %s %s", (int)l->host_pid, field, v);
	const char *in = inside(l, doctor_id);
	if (in) {
		const char *p = strstr(in, doctor_key);
		if (!p) {
			sp_lres_add(&l->results, id, SP_STATUS_ERROR, exp, obs, "cannot find '%s' in the doctor's observation '%.80s'", doctor_key, in);
			return;
		}
		p += strlen(doctor_key);
		char dv[32];
		size_t n = strcspn(p, " ,;");
		snprintf(dv, sizeof dv, "%.*s", (int)(n < 31 ? n : 31), p);
		if (strcmp(dv, v)) {
			sp_lres_add(&l->results, id, SP_STATUS_FAIL, exp, obs, "inside and outside disagree: the doctor saw %s %s", field, dv);
			return;
		}
	}
	if (claimed && strcmp(v, want))
		sp_lres_add(&l->results, id, SP_STATUS_FAIL, exp, obs, "the launch claims %s, the host sees %s %s", what, field, v);
	else
		sp_lres_add(&l->results, id, SP_STATUS_PASS, exp, obs, "%s%s", claimed ? what : "not claimed", in ? ", the doctor agrees" : "");
}

static void host_cgroup(sp_live_lane *l)
{
	char path[64], sb[4096], hb[4096];
	snprintf(path, sizeof path, "/proc/%d/cgroup", (int)l->host_pid);
	const char *exp = l->claim.own_cgroup ? "a cgroup other than the host side's" : "any (this runtime makes no cgroup)";
	ssize_t a = sp_read_file(path, sb, sizeof sb), b = sp_read_file("/proc/self/cgroup", hb, sizeof hb);
	if (a <= 0 || b <= 0) {
		sp_lres_add(&l->results, SP_HOSTID(cgroup), SP_STATUS_ERROR, exp, path, "cannot read both cgroup files");
		return;
	}
	/* the unified (0::) line, or the pids controller on v1 */
	char line[512] = "";
	for (char *s = sb; s && *s;) {
		char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		if (!strncmp(s, "0::", 3) || strstr(s, ":pids:")) {
			snprintf(line, sizeof line, "%.*s", (int)(n < 500 ? n : 500), s);
			if (strstr(line, ":pids:"))
				break;
		}
		s = nl ? nl + 1 : NULL;
	}
	char obs[700];
	snprintf(obs, sizeof obs, "sandbox %s", line[0] ? line : "(no pids/unified line)");
	bool same = !strcmp(sb, hb);
	if (l->claim.own_cgroup && same)
		sp_lres_add(&l->results, SP_HOSTID(cgroup), SP_STATUS_FAIL, exp, obs, "the sandbox sits in the same cgroups as sandprobe");
	else
		sp_lres_add(&l->results, SP_HOSTID(cgroup), SP_STATUS_PASS, exp, obs, "%s", same ? "same cgroups as sandprobe (not claimed)" : "own cgroup");
}

/* the sandbox's root mount from its own mountinfo (paths are relative to its root) */
/* is opt one of the comma-separated mount options in opts? */
static bool mount_opt_has(const char *opts, const char *opt)
{
	sp_strv v;
	sp_strv_split(&v, opts, ",");
	bool has = sp_strv_contains(&v, opt);
	sp_strv_free(&v);
	return has;
}

/* 1 found (opts, super, fstype filled), 0 not, -1 when pid's mountinfo cannot be opened (the caller says so) */
static int root_mount(pid_t pid, char *opts, size_t osz, char *super, size_t ssz, char *fstype, size_t fsz, size_t *nmounts)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	/* the mount the process's root is on (mounts stacked over / later are not its root) */
	char rootp[64];
	snprintf(rootp, sizeof rootp, "/proc/%d/root/", (int)pid);
	struct statx stx;
	long root_id = -1;
	if (statx(AT_FDCWD, rootp, 0, STATX_MNT_ID, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID))
		root_id = (long)stx.stx_mnt_id;
	char line[4096];
	int found = 0;
	bool exact = false;
	*nmounts = 0;
	while (fgets(line, sizeof line, f)) {
		(*nmounts)++;
		char mp[2048], o[512];
		long id;
		if (sscanf(line, "%ld %*d %*s %*s %2047s %511s", &id, mp, o) != 3 || strcmp(mp, "/"))
			continue;
		if (exact)
			continue;
		exact = id == root_id;
		const char *dash = strstr(line, " - ");
		char fs[64] = "", src[512] = "", so[1024] = "";
		if (dash)
			sscanf(dash + 3, "%63s %511s %1023s", fs, src, so);
		snprintf(opts, osz, "%s", o);
		snprintf(super, ssz, "%s", so);
		snprintf(fstype, fsz, "%s", fs);
		found = 1; /* the root's own mount, else the last: the topmost mount at / */
	}
	return found;
}

static void host_mounts(sp_live_lane *l, bool ro_from_mountinfo)
{
	char opts[512] = "", super[1024] = "", fstype[64] = "";
	size_t n = 0;
	int rm = root_mount(l->host_pid, opts, sizeof opts, super, sizeof super, fstype, sizeof fstype, &n);
	/* mount namespace: its root is not the host's root */
	char rp[64];
	snprintf(rp, sizeof rp, "/proc/%d/root/", (int)l->host_pid);
	struct stat a, b;
	bool mnt_claim = l->claim.ns & SP_NS_MNT;
	const char *exp = l->claim.host_fs_root ? "a mountinfo of its own (its root is the host's filesystem: claimed)"
						: "a mountinfo of its own, whose root is not the host's /";
	if (rm < 0 || n == 0 || stat(rp, &a) < 0 || stat("/", &b) < 0) {
		sp_lres_add(&l->results, SP_HOSTID(mounts), SP_STATUS_ERROR, exp, rp, "cannot read the sandbox's mountinfo or root from the host");
	} else {
		bool same_root = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
		char obs[512];
		snprintf(obs, sizeof obs, "%zu mounts; root %u:%u inode %lu (host / %u:%u inode %lu)", n, major(a.st_dev),
			 minor(a.st_dev), (unsigned long)a.st_ino, major(b.st_dev), minor(b.st_dev), (unsigned long)b.st_ino);
		if (same_root && mnt_claim && !l->claim.host_fs_root)
			sp_lres_add(&l->results, SP_HOSTID(mounts), SP_STATUS_FAIL, exp, obs, "the sandbox's root is the host's /");
		else
			sp_lres_add(&l->results, SP_HOSTID(mounts), SP_STATUS_PASS, exp, obs, "%s",
				    !same_root ? "own root" : l->claim.host_fs_root ? "the host's filesystem, a view of its own (claimed: no chroot)"
										    : "host root (not claimed)");
	}

	if (!ro_from_mountinfo)
		return;
	const char *exp2 = l->claim.ro_root ? "the sandbox's / mounted ro, and the doctor's write probe refused"
					    : "any (this launch does not claim a read-only root)";
	const char *in = inside(l, SP_CKID(fs_rootfs_readonly));
	bool in_refused = in && strstr(in, "failed with");
	bool in_wrote = in && sp_startswith(in, "created");
	if (rm < 0) {
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_ERROR, exp2, "", "mountinfo unreadable: %s", strerror(-rm));
		return;
	}
	if (rm == 0) {
		/* no mount at / (a chroot): nothing to read from outside */
		if (l->claim.ro_root)
			sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_ERROR, exp2, "no mount at / in the sandbox's mountinfo",
				    "cannot see the root mount from the host");
		else
			sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_PASS, exp2, "no mount at / (chroot)", "not claimed");
		return;
	}
	bool ro = mount_opt_has(opts, "ro") || mount_opt_has(super, "ro");
	char obs[1024];
	snprintf(obs, sizeof obs, "/ is %s (%s, super %s)", fstype, opts, super);
	if (in && !in_refused && !in_wrote) {
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_ERROR, exp2, obs, "cannot read the doctor's probe from '%.80s'", in);
	} else if (in && ro && in_wrote) {
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_FAIL, exp2, obs,
			    "inside and outside disagree: mounted ro, but the doctor created a file at /");
	} else if (l->claim.ro_root && !ro) {
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_FAIL, exp2, obs, "the launch claims a read-only root, the host sees it rw");
	} else if (l->claim.ro_root && in_wrote) {
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_FAIL, exp2, obs, "the doctor created a file at /");
	} else {
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_PASS, exp2, obs, "%s", ro ? "root mounted ro" : "root rw, not claimed");
	}
}

/* the harmless nodes a minimal /dev may hold (relative to /dev) */
static const char *const dev_allow[] = {"null", "zero", "full", "random", "urandom", "tty", "ptmx", "console", "pts/ptmx"};

static bool dev_allowed(const char *rel, bool own_pts)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(dev_allow); i++)
		if (!strcmp(rel, dev_allow[i]))
			return true;
	/* a terminal of the sandbox's own devpts instance (not one of the host's) */
	if (own_pts && sp_startswith(rel, "pts/") && rel[4]) {
		for (const char *c = rel + 4; *c; c++)
			if (!isdigit((unsigned char)*c))
				return false;
		return true;
	}
	return false;
}

static void dev_walk_at(int dfd, const char *rel, int depth, bool own_pts, sp_live_dev_scan *sc)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++sc->entries > 65536) {
			sc->truncated = true;
			break;
		}
		char path[1024];
		snprintf(path, sizeof path, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth >= 8) {
				sc->truncated = true;
				continue;
			}
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				dev_walk_at(sub, path, depth + 1, own_pts, sc);
			continue;
		}
		if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
			continue;
		sc->nodes++;
		if (S_ISCHR(st.st_mode) && dev_allowed(path, own_pts))
			continue;
		sc->extra++;
		sc->blocks += S_ISBLK(st.st_mode);
		size_t len = strlen(sc->list);
		if (sc->extra <= 8)
			snprintf(sc->list + len, sizeof sc->list - len, "%s%s (%u:%u)", len ? "," : "", path, major(st.st_rdev),
				 minor(st.st_rdev));
	}
	closedir(d);
}

int sp_dev_walk(const char *dev, sp_live_dev_scan *sc, sp_outcome *o)
{
	memset(sc, 0, sizeof *sc);
	int fd = open(dev, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	/* its pts is the sandbox's own when it is a devpts mount other than the host's */
	char pts[1100];
	snprintf(pts, sizeof pts, "%s/pts", dev);
	struct statfs sf;
	struct stat a, b;
	sc->own_pts = statfs(pts, &sf) == 0 && sf.f_type == DEVPTS_SUPER_MAGIC && stat(pts, &a) == 0 &&
		      (stat("/dev/pts", &b) < 0 || a.st_dev != b.st_dev);
	dev_walk_at(fd, "", 0, sc->own_pts, sc);
	return 0;
}

static void host_dev(sp_live_lane *l)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/root/dev", (int)l->host_pid);
	const char *exp = l->claim.min_dev
				  ? "no device node anywhere under /dev beyond null,zero,full,random,urandom,tty,ptmx,console and its own pts"
				  : "any (this launch does not claim a minimal /dev)";
	sp_live_dev_scan sc;
	sp_outcome o = {0};
	if (sp_dev_walk(path, &sc, &o) < 0) {
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_ERROR, exp, path, "cannot list the sandbox's /dev from the host: %s", o.why);
		return;
	}
	char obs[800];
	snprintf(obs, sizeof obs, "%zu device nodes under /dev (walked recursively%s), %zu beyond the allowlist (%zu block)%s%s%s",
		 sc.nodes, sc.truncated ? ", cut short at its bounds" : "", sc.extra, sc.blocks, sc.extra ? ": " : "", sc.list,
		 sc.extra > 8 ? ",..." : "");
	if (l->claim.min_dev && sc.extra)
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_FAIL, exp, obs, "host device nodes reachable in the sandbox");
	else if (l->claim.min_dev && sc.truncated)
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_ERROR, exp, obs, "the walk of /dev was cut short: no proof");
	else
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_PASS, exp, obs, "%s", sc.extra ? "extra devices (not claimed)" : "only harmless device nodes");
}

static void host_vm(sp_live_lane *l)
{
	struct utsname u;
	uname(&u);
	sp_lres_add(&l->results, SP_HOSTID(vm_accel), SP_STATUS_PASS, "a working accelerator, reported", l->vm_accel, "guest ran under %s", l->vm_accel);
	char obs[512];
	snprintf(obs, sizeof obs, "doctor reports kernel '%s'; image is '%s'; host runs '%s'", l->doctor_kernel, l->vm_kernel,
		 u.release);
	const char *exp = "the doctor ran on the guest kernel that was booted";
	if (!l->doctor_kernel[0] || !l->vm_kernel[0])
		sp_lres_add(&l->results, SP_HOSTID(vm_kernel), SP_STATUS_ERROR, exp, obs, "cannot compare: a kernel release is missing");
	else if (!sp_startswith(l->vm_kernel, l->doctor_kernel))
		sp_lres_add(&l->results, SP_HOSTID(vm_kernel), SP_STATUS_FAIL, exp, obs, "the report does not come from the booted guest kernel");
	else
		sp_lres_add(&l->results, SP_HOSTID(vm_kernel), SP_STATUS_PASS, exp, obs, "the report comes from the guest kernel");
}

/* ------------------------------------------------- user-space kernel (gVisor) */

/* The sandbox's process on the host is gVisor's Sentry, not the workload:
 * the workload's namespaces, capabilities, filter and root live in the
 * Sentry. What the host can read about them is the engine's own view: the
 * OCI spec the runtime was given (l->spec) and the flags the Sentry runs
 * with (its command line). Each check compares that view with the claim and
 * with what the doctor saw inside; what the host sees of the Sentry process
 * itself (namespaces, capabilities, filter) is reported beside it. */

static const char *const oci_ns_names[7] = {"pid", "network", "mount", "uts", "ipc", "user", "cgroup"};

static bool spec_has_ns(json_t *spec, const char *type)
{
	json_t *ns = json_object_get(json_object_get(spec, "linux"), "namespaces");
	size_t i;
	json_t *n;
	json_array_foreach(ns, i, n) {
		const char *t = json_string_value(json_object_get(n, "type"));
		if (t && !strcmp(t, type) && !json_string_length(json_object_get(n, "path")))
			return true;
	}
	return false;
}

static int spec_caps(json_t *spec, const char *set, uint64_t *mask)
{
	json_t *a = json_object_get(json_object_get(json_object_get(spec, "process"), "capabilities"), set);
	*mask = 0;
	if (!a)
		return 0; /* absent: none */
	if (!json_is_array(a))
		return -1;
	size_t i;
	json_t *c;
	json_array_foreach(a, i, c) {
		int n = json_is_string(c) ? sp_cap_from_name(json_string_value(c)) : -1;
		if (n < 0 || n > 63)
			continue; /* a name this build does not know cannot be in our masks */
		*mask |= 1ull << n;
	}
	return 0;
}

static void uk_ns(sp_live_lane *l, json_t *spec)
{
	for (unsigned i = 0; i < 7; i++) {
		const char *t = sp_ns_names[i];
		const char *id = host_ns_ids[i];
		char sb[128] = "", hb[128] = "", obs[512];
		bool claimed = l->claim.ns & (1u << i);
		bool in_spec = spec_has_ns(spec, oci_ns_names[i]);
		const char *exp = claimed ? "the engine's spec gives the workload its own namespace (gVisor implements it)"
					  : "any (not claimed by this launch)";
		sp_outcome ignored = {0}; /* an unreadable link leaves its buffer empty */
		ns_link(l->host_pid, t, sb, sizeof sb, &ignored);
		ns_link(0, t, hb, sizeof hb, &ignored);
		snprintf(obs, sizeof obs, "spec: %s namespace %s; the Sentry (pid %d) is in %s, the host in %s", oci_ns_names[i],
			 in_spec ? "new" : "not asked for", (int)l->host_pid, sb[0] ? sb : "?", hb[0] ? hb : "?");
		if (claimed && !in_spec)
			sp_lres_add(&l->results, id, SP_STATUS_FAIL, exp, obs, "the engine did not ask for a %s namespace", oci_ns_names[i]);
		else
			sp_lres_add(&l->results, id, SP_STATUS_PASS, exp, obs, "%s", in_spec ? "in the spec" : "not claimed");
	}
}

static void uk_caps(sp_live_lane *l, json_t *spec)
{
	const char *exp = l->claim.drop_caps ? "the spec gives no capability, and the doctor saw none"
					     : "any capabilities (not dropped by this launch), as the doctor saw";
	uint64_t e, b;
	if (spec_caps(spec, "effective", &e) < 0 || spec_caps(spec, "bounding", &b) < 0) {
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_ERROR, exp, l->spec, "the spec's process.capabilities is malformed");
		return;
	}
	char path[64], se[64] = "?", obs[512];
	snprintf(path, sizeof path, "/proc/%d/status", (int)l->host_pid);
	sp_status_field(path, "CapEff", se, sizeof se);
	snprintf(obs, sizeof obs, "spec: effective %016llx, bounding %016llx; the Sentry's own CapEff %s", (unsigned long long)e,
		 (unsigned long long)b, se);
	const char *ie = inside(l, SP_CKID(caps_effective)), *ib = inside(l, SP_CKID(caps_bounding));
	uint64_t de = 0, db = 0;
	bool have_e = ie && after_key_hex(ie, "CapEff", &de) == 0, have_b = ib && after_key_hex(ib, "CapBnd", &db) == 0;
	if ((have_e && de != e) || (have_b && db != b))
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_FAIL, exp, obs, "the doctor saw CapEff %016llx CapBnd %016llx, not what the spec gives",
			    (unsigned long long)de, (unsigned long long)db);
	else if (l->claim.drop_caps && (e || b))
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_FAIL, exp, obs, "the launch dropped every capability, but the spec gives some");
	else
		sp_lres_add(&l->results, SP_HOSTID(caps), SP_STATUS_PASS, exp, obs, "%s", have_e || have_b ? "the spec and the doctor's view agree" : "matches the claim");
}

static void uk_seccomp(sp_live_lane *l, json_t *spec, bool oci_seccomp)
{
	const char *exp = l->claim.seccomp ? "the workload runs under the spec's filter (loaded by gVisor), as the doctor saw"
					   : "any (not claimed by this launch)";
	bool in_spec = json_is_object(json_object_get(json_object_get(spec, "linux"), "seccomp"));
	bool workload = in_spec && oci_seccomp;
	char path[64], sentry[32] = "?", obs[512];
	snprintf(path, sizeof path, "/proc/%d/status", (int)l->host_pid);
	sp_status_field(path, "Seccomp", sentry, sizeof sentry);
	snprintf(obs, sizeof obs, "spec: %s; the Sentry runs %s --oci-seccomp; the Sentry's own Seccomp %s",
		 in_spec ? "a seccomp filter" : "no seccomp filter", oci_seccomp ? "with" : "without", sentry);
	const char *in = inside(l, SP_CKID(seccomp_mode));
	const char *p = in ? strstr(in, "Seccomp ") : NULL;
	int dv = p ? atoi(p + 8) : -1;
	if (strcmp(sentry, "2"))
		sp_lres_add(&l->results, SP_HOSTID(seccomp), SP_STATUS_FAIL, exp, obs, "the Sentry itself runs without its seccomp filter");
	else if (dv >= 0 && (dv == 2) != workload)
		sp_lres_add(&l->results, SP_HOSTID(seccomp), SP_STATUS_FAIL, exp, obs, "the doctor saw Seccomp %d, the engine's view says %s", dv,
			    workload ? "a filter" : "none");
	else if (l->claim.seccomp && !workload)
		sp_lres_add(&l->results, SP_HOSTID(seccomp), SP_STATUS_FAIL, exp, obs, "%s", in_spec ? "the engine passed a seccomp filter, but gVisor does not load it without --oci-seccomp" : "the spec has no seccomp filter");
	else
		sp_lres_add(&l->results, SP_HOSTID(seccomp), SP_STATUS_PASS, exp, obs, "%s", workload ? "the workload's filter is loaded" : "not claimed");
}

/* the doctor's reading of no_new_privs: "NoNewPrivs N in status", or where
 * the status has no such line (gVisor) "N from prctl"; -1 when neither */
static int doctor_nnp(const char *in)
{
	const char *p = in ? strstr(in, "NoNewPrivs ") : NULL;
	if (p && (p[11] == '0' || p[11] == '1') && !isdigit((unsigned char)p[12]))
		return p[11] - '0';
	p = in ? strstr(in, " from prctl") : NULL;
	if (p && p > in && (p[-1] == '0' || p[-1] == '1') && (p - 1 == in || !isdigit((unsigned char)p[-2])))
		return p[-1] - '0';
	return -1;
}

/* no_new_privs of the workload is a flag of gVisor's kernel, not of the host
 * process: the host reads the engine's view (the spec's noNewPrivileges),
 * compares it with what gVisor's kernel told the doctor (prctl: gVisor's
 * status has no NoNewPrivs line) and reports the Sentry's own flag, which the
 * host kernel holds for the sandbox process. gVisor (this release) ignores a
 * false noNewPrivileges: its kernel never honours set-user-ID bits or file
 * capabilities at execve, so the doctor sees 1 either way; a spec that does
 * not ask for it still fails a launch that claims it. */
static void uk_nnp(sp_live_lane *l, json_t *spec)
{
	const char *exp = l->claim.nnp ? "the spec sets noNewPrivileges, and gVisor's kernel reports it in force (the doctor's prctl)"
				       : "any (not claimed)";
	bool nnp = json_is_true(json_object_get(json_object_get(spec, "process"), "noNewPrivileges"));
	char path[64], sentry[32] = "?", obs[512];
	snprintf(path, sizeof path, "/proc/%d/status", (int)l->host_pid);
	sp_status_field(path, "NoNewPrivs", sentry, sizeof sentry);
	const char *in = inside(l, SP_CKID(priv_no_new_privs));
	int dv = doctor_nnp(in);
	snprintf(obs, sizeof obs, "spec: noNewPrivileges %s; gVisor's kernel (the doctor): NoNewPrivs %s; the Sentry's own NoNewPrivs %s (the host kernel's flag on the sandbox process)",
		 nnp ? "true" : "false", dv < 0 ? (in ? "unreadable" : "(no probe)") : dv ? "1" : "0", sentry);
	if (in && dv < 0)
		sp_lres_add(&l->results, SP_HOSTID(nnp), SP_STATUS_ERROR, exp, obs, "cannot read NoNewPrivs in the doctor's observation '%.80s'", in);
	else if (nnp && dv == 0)
		sp_lres_add(&l->results, SP_HOSTID(nnp), SP_STATUS_FAIL, exp, obs, "the spec sets noNewPrivileges, but gVisor's kernel reports it off in the workload");
	else if (l->claim.nnp && !nnp)
		sp_lres_add(&l->results, SP_HOSTID(nnp), SP_STATUS_FAIL, exp, obs, "the launch claims no_new_privs, the spec does not set it%s",
			    dv == 1 ? " (gVisor reports it in force anyway: it ignores the field)" : "");
	else if (!l->claim.nnp)
		sp_lres_add(&l->results, SP_HOSTID(nnp), SP_STATUS_PASS, exp, obs, "not claimed");
	else
		sp_lres_add(&l->results, SP_HOSTID(nnp), SP_STATUS_PASS, exp, obs, "no_new_privs in the spec%s", dv == 1 ? ", in force in the workload (the doctor agrees)" : "");
}

static void uk_rootfs(sp_live_lane *l, json_t *spec)
{
	const char *exp = l->claim.ro_root ? "the spec's root is read-only, and the doctor's write probe refused"
					   : "any (this launch does not claim a read-only root)";
	bool ro = json_is_true(json_object_get(json_object_get(spec, "root"), "readonly"));
	const char *in = inside(l, SP_CKID(fs_rootfs_readonly));
	bool in_wrote = in && sp_startswith(in, "created");
	char obs[512];
	snprintf(obs, sizeof obs, "spec: root %s readonly %s; the doctor: %.200s", json_string_value(json_object_get(json_object_get(spec, "root"), "path")) ?: "?",
		 ro ? "true" : "false", in ? in : "(no probe)");
	if (ro && in_wrote)
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_FAIL, exp, obs, "the spec's root is read-only, but the doctor created a file at /");
	else if (l->claim.ro_root && !ro)
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_FAIL, exp, obs, "the launch claims a read-only root, the spec's is writable");
	else if (l->claim.ro_root && in_wrote)
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_FAIL, exp, obs, "the doctor created a file at /");
	else
		sp_lres_add(&l->results, SP_HOSTID(fs_rootfs_readonly), SP_STATUS_PASS, exp, obs, "%s", ro ? "read-only in the spec" : "writable, not claimed");
}

/* gVisor gives the workload a /dev of its own and opens no host device node
 * unless it passes it through; what the engine's spec gives from the host is
 * compared with what the doctor could open inside */
static void uk_dev(sp_live_lane *l, json_t *spec)
{
	static const char *const allow[] = {"null", "zero", "full", "random", "urandom", "tty", "ptmx", "console"};
	const char *exp = l->claim.min_dev ? "no host device of the spec usable inside (the doctor opens none of them)"
					   : "any (this launch does not claim a minimal /dev)";
	sp_strv given;
	sp_strv_split(&given, NULL, ",");
	json_t *devs = json_object_get(json_object_get(spec, "linux"), "devices");
	size_t i;
	json_t *d;
	json_array_foreach(devs, i, d) {
		const char *path = json_string_value(json_object_get(d, "path"));
		if (!path || !sp_startswith(path, "/dev/"))
			continue;
		bool ok = false;
		for (size_t k = 0; k < SP_ARRAY_SIZE(allow); k++)
			ok |= !strcmp(path + 5, allow[k]);
		if (!ok)
			sp_strv_push(&given, path + 5);
	}
	/* a bind of the host's /dev (or of a node under it) gives what it holds */
	bool dev_bind = false;
	json_t *mounts = json_object_get(spec, "mounts"), *m;
	json_array_foreach(mounts, i, m) {
		const char *dst = json_string_value(json_object_get(m, "destination"));
		const char *src = json_string_value(json_object_get(m, "source"));
		const char *type = json_string_value(json_object_get(m, "type"));
		bool bind = type && !strcmp(type, "bind");
		json_t *o;
		size_t k;
		json_array_foreach(json_object_get(m, "options"), k, o) bind |= json_is_string(o) && strstr(json_string_value(o), "bind");
		if (dst && src && bind && sp_startswith(dst, "/dev") && sp_startswith(src, "/dev"))
			dev_bind = true;
	}
	/* the doctor lists what it could open: "net/tun c 10:200 OPENS; ..."; one is the host's when the spec
	 * names it, or when the host's /dev is bound and holds a node of that name and number */
	const char *in = inside(l, SP_CKID(dev_host_devices));
	size_t usable = 0;
	char list[400] = "";
	for (const char *e = in; e && *e;) {
		size_t n = strcspn(e, ";");
		char item[256], name[128], kind;
		unsigned ma, mi;
		snprintf(item, sizeof item, "%.*s", (int)(n < 255 ? n : 255), e);
		e += n + (e[n] == ';');
		while (*e == ' ')
			e++;
		if (sscanf(sp_trim(item), "%127s %c %u:%u", name, &kind, &ma, &mi) != 4 || !strstr(item, "OPENS"))
			continue;
		/* gVisor's own emulated devices carry the same names and numbers as the host's: not the host's */
		static const char *const own[] = {"fuse", "net/tun", "tty", "ptmx", "console"};
		bool gvisor_own = false;
		for (size_t k = 0; k < SP_ARRAY_SIZE(own); k++)
			gvisor_own |= !strcmp(name, own[k]);
		if (gvisor_own)
			continue;
		bool host = sp_strv_contains(&given, name);
		if (!host && dev_bind) {
			char hp[200];
			struct stat st;
			snprintf(hp, sizeof hp, "/dev/%s", name);
			host = stat(hp, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && major(st.st_rdev) == ma &&
			       minor(st.st_rdev) == mi;
		}
		if (!host)
			continue;
		usable++;
		size_t len = strlen(list);
		snprintf(list + len, sizeof list - len, "%s%s", len ? "," : "", name);
	}
	char obs[900];
	snprintf(obs, sizeof obs, "spec: %zu host device(s) beyond the allowlist%s; the doctor opened %zu of them%s%s (gVisor's own /dev "
				  "is not the host's)",
		 given.n, dev_bind ? " and a bind of the host's /dev" : "", usable, usable ? ": " : "", list);
	if (!in && l->claim.min_dev && (given.n || dev_bind))
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_ERROR, exp, obs, "the spec gives host devices, and the doctor's probe of them is missing");
	else if (l->claim.min_dev && usable)
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_FAIL, exp, obs, "a host device the engine gave is usable inside gVisor");
	else
		sp_lres_add(&l->results, SP_HOSTID(dev), SP_STATUS_PASS, exp, obs, "%s",
			    given.n || dev_bind ? "host devices in the spec, none usable inside" : "no host device in the spec");
	sp_strv_free(&given);
}

static void host_user_kernel(sp_live_lane *l)
{
	struct utsname u;
	uname(&u);
	static char cl[65536];
	ssize_t n = sp_cmdline(l->host_pid, cl, sizeof cl);
	bool sentry = n > 0 && !strcmp(cl, "runsc-sandbox");
	bool oci_seccomp = n > 0 && (memmem(cl, (size_t)n, "--oci-seccomp\0", 14) || memmem(cl, (size_t)n, "--oci-seccomp=true", 18));
	char obs[512];
	snprintf(obs, sizeof obs, "the doctor reports kernel '%s'; the host runs '%s'; pid %d is %s", l->doctor_kernel, u.release,
		 (int)l->host_pid, sentry ? "runsc-sandbox (the Sentry)" : n > 0 ? cl : "gone");
	const char *exp = "the doctor ran on gVisor's kernel (not the host's), in the sandbox process the engine names";
	if (!sentry)
		sp_lres_add(&l->results, SP_HOSTID(kernel_boundary), SP_STATUS_ERROR, exp, obs, "the sandbox's process is not a gVisor sandbox");
	else if (!l->doctor_kernel[0])
		sp_lres_add(&l->results, SP_HOSTID(kernel_boundary), SP_STATUS_ERROR, exp, obs, "the doctor reported no kernel release");
	else if (!strcmp(l->doctor_kernel, u.release))
		sp_lres_add(&l->results, SP_HOSTID(kernel_boundary), SP_STATUS_FAIL, exp, obs, "the doctor ran on the host's kernel, not in gVisor");
	else
		sp_lres_add(&l->results, SP_HOSTID(kernel_boundary), SP_STATUS_PASS, exp, obs, "user-space kernel: the workload's system calls end in the Sentry");
	json_error_t je;
	json_t *spec = l->spec[0] ? json_load_file(l->spec, 0, &je) : NULL;
	if (!json_is_object(spec)) {
		static const char *const ids[] = {SP_HOSTID(ns_pid), SP_HOSTID(ns_net), SP_HOSTID(ns_mnt), SP_HOSTID(ns_uts), SP_HOSTID(ns_ipc), SP_HOSTID(ns_user),
						  SP_HOSTID(ns_cgroup), SP_HOSTID(caps), SP_HOSTID(seccomp), SP_HOSTID(nnp), SP_HOSTID(fs_rootfs_readonly), SP_HOSTID(dev)};
		for (size_t i = 0; i < SP_ARRAY_SIZE(ids); i++)
			sp_lres_add(&l->results, ids[i], SP_STATUS_ERROR, "the engine's view (the OCI spec the runtime was given)", l->spec,
				    "cannot read the runtime's spec%s%s", l->spec[0] ? ": " : "", l->spec[0] ? je.text : "");
		json_decref(spec);
		return;
	}
	uk_ns(l, spec);
	uk_caps(l, spec);
	uk_seccomp(l, spec, oci_seccomp);
	uk_nnp(l, spec);
	host_cgroup(l);
	host_mounts(l, false);
	uk_rootfs(l, spec);
	uk_dev(l, spec);
	json_decref(spec);
}

void sp_host_checks(sp_live_lane *l)
{
	if (l->claim.vm) {
		host_vm(l);
		return;
	}
	if (l->host_pid <= 0)
		return; /* host.pid already says why */
	if (l->claim.user_kernel) {
		host_user_kernel(l);
		return;
	}
	host_ns(l);
	host_caps(l);
	host_status_flag(l, SP_HOSTID(seccomp), "Seccomp", SP_CKID(seccomp_mode), "Seccomp ", l->claim.seccomp, "2", "a seccomp filter");
	host_status_flag(l, SP_HOSTID(nnp), "NoNewPrivs", SP_CKID(priv_no_new_privs), "NoNewPrivs ", l->claim.nnp, "1", "no_new_privs");
	host_cgroup(l);
	host_mounts(l, true);
	host_dev(l);
}
