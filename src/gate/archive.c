/* Evidence retention: `sandprobe gate --archive DIR` and
 * `sandprobe gate --from-archive DIR`. An archive holds the plan (verbatim),
 * the plan's signing key, a copy of every bundle the decision was given,
 * the decision (JSON, text, JUnit, HTML matrix and the bundles' reports) and
 * a MANIFEST over all of it (sha256sum format, Ed25519-signed when a key is
 * given). It is written into a sibling temporary directory, re-decided from
 * there, and renamed into place only when the re-made decision equals the
 * original. */
#include "core/fsutil.h"
#include "gate/gate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/util.h"

#define ARCHIVE_PLAN "plan.yaml"
#define ARCHIVE_KEY "signing.pub"
#define ARCHIVE_DECISION "decision.json"

/* ---- writing ------------------------------------------------------------- */
static int write_file(const char *path, const void *data, size_t len, sp_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return sp_fail_errno(err, errno, "%s: cannot create", path);
	int rc = sp_write_all(fd, data, len);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		return sp_fail_errno(err, -rc, "%s: cannot write", path);
	return 0;
}

static int copy_file(int sfd, const char *dst, sp_error *err)
{
	int dfd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (dfd < 0)
		return sp_fail_errno(err, errno, "%s: cannot create", dst);
	char buf[1 << 16];
	ssize_t n;
	int rc = 0;
	while ((n = read(sfd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if ((rc = sp_write_all(dfd, buf, (size_t)n)) < 0)
			break;
	}
	if (close(dfd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		return sp_fail_errno(err, -rc, "%s: cannot copy", dst);
	return 0;
}

/* Copy the tree at src into dst (created). Regular files and directories
 * are copied; anything else (symlink, fifo, device) becomes a small regular
 * file saying what it was, so the copy is judged as the original was: as an
 * entry the bundle's MANIFEST does not vouch for. Links are never followed. */
static int copy_tree(const char *src, const char *dst, int depth, sp_error *err)
{
	if (depth > 16)
		return sp_usage(err, "%s: directories nested too deep", src);
	if (mkdir(dst, 0755) < 0)
		return sp_fail_errno(err, errno, "%s: cannot create", dst);
	int fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return sp_fail_errno(err, errno, "%s: cannot open", src);
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return sp_fail_errno(err, errno, "%s: cannot read", src);
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		_cleanup_free_ char *s = sp_xasprintf("%s/%s", src, de->d_name);
		_cleanup_free_ char *t = sp_xasprintf("%s/%s", dst, de->d_name);
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return sp_fail_errno(err, errno, "%s: cannot stat", s);
		if (S_ISDIR(st.st_mode)) {
			if (copy_tree(s, t, depth + 1, err) < 0)
				return -1;
		} else if (S_ISREG(st.st_mode)) {
			int sfd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
			if (sfd < 0)
				return sp_fail_errno(err, errno, "%s: cannot open", s);
			int rc = copy_file(sfd, t, err);
			close(sfd);
			if (rc < 0)
				return -1;
		} else {
			char what[4200] = "sandprobe gate archive: this entry was a special file in the original bundle\n";
			if (S_ISLNK(st.st_mode)) {
				char target[4096];
				ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof target - 1);
				target[n < 0 ? 0 : n] = '\0';
				snprintf(what, sizeof what,
					 "sandprobe gate archive: this entry was a symbolic link to '%s' in the original bundle\n",
					 target);
			}
			if (write_file(t, what, strlen(what), err) < 0)
				return -1;
		}
	}
	return 0;
}

typedef int (*writer_fn)(FILE *f, const sp_gate_decision *d);

static int write_with(const char *path, const sp_gate_decision *d, writer_fn fn, const char *report_dir, sp_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return sp_fail_errno(err, errno, "%s: cannot create", path);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return sp_fail_errno(err, errno, "%s: fdopen", path);
	}
	int rc = fn ? fn(f, d) : sp_gate_write_html(f, d, report_dir);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc < 0)
		return sp_fail_errno(err, -rc, "%s: cannot write", path);
	return 0;
}

static int fill(const sp_gate_decision *d, const char *tmp, void *sign_key, sp_error *err)
{
	const sp_gate_plan *p = d->plan;
	_cleanup_free_ char *pp = sp_xasprintf("%s/" ARCHIVE_PLAN, tmp);
	if (write_file(pp, p->text, p->len, err) < 0)
		return -1;
	if (d->signature_required) {
		size_t len = 0;
		int e = 0;
		_cleanup_free_ char *key = sp_read_file_alloc(p->pubkey_path, 1 << 16, &len, &e);
		if (!key)
			return sp_fail_errno(err, e, "%s: cannot read the plan's signing key", p->pubkey_path);
		_cleanup_free_ char *kp = sp_xasprintf("%s/" ARCHIVE_KEY, tmp);
		if (write_file(kp, key, len, err) < 0)
			return -1;
	}
	_cleanup_free_ char *bd = sp_xasprintf("%s/bundles", tmp);
	if (mkdir(bd, 0755) < 0)
		return sp_fail_errno(err, errno, "%s: cannot create", bd);
	for (size_t i = 0; i < d->nb; i++) {
		_cleanup_free_ char *t = sp_xasprintf("%s/%s", bd, d->b[i].key);
		if (copy_tree(d->b[i].path, t, 0, err) < 0)
			return -1;
	}
	_cleanup_free_ char *jp = sp_xasprintf("%s/" ARCHIVE_DECISION, tmp);
	_cleanup_free_ char *tp = sp_xasprintf("%s/decision.txt", tmp);
	_cleanup_free_ char *up = sp_xasprintf("%s/junit.xml", tmp);
	_cleanup_free_ char *hp = sp_xasprintf("%s/matrix.html", tmp);
	_cleanup_free_ char *rd = sp_xasprintf("%s/reports", tmp);
	if (write_with(jp, d, sp_gate_write_json, NULL, err) < 0 || write_with(tp, d, sp_gate_write_text, NULL, err) < 0 ||
	    write_with(up, d, sp_gate_write_junit, NULL, err) < 0 || sp_gate_write_reports(d, rd, err) < 0 ||
	    write_with(hp, d, NULL, "reports", err) < 0)
		return -1;

	sp_error merr;
	_cleanup_free_ char *man = sp_ev_manifest_build(tmp, &merr);
	if (!man)
		return sp_fail_errno(err, 0, "%s: cannot build the MANIFEST: %s", tmp, merr.msg);
	_cleanup_free_ char *mp = sp_xasprintf("%s/MANIFEST", tmp);
	if (write_file(mp, man, strlen(man), err) < 0)
		return -1;
	if (sign_key) {
		char sig[90];
		size_t siglen = 0;
		if (sp_ev_sign(sign_key, man, strlen(man), sig, &siglen) < 0)
			return sp_fail_errno(err, 0, "cannot sign the archive's MANIFEST");
		_cleanup_free_ char *sp = sp_xasprintf("%s/MANIFEST.sig", tmp);
		if (write_file(sp, sig, siglen, err) < 0)
			return -1;
	}
	return 0;
}

int sp_gate_archive(const sp_gate_decision *d, const char *dir, void *sign_key, sp_error *err)
{
	struct stat st;
	if (lstat(dir, &st) == 0)
		return sp_usage(err, "--archive %s: exists (an archive is never overwritten)", dir);
	_cleanup_free_ char *c1 = sp_xstrdup(dir), *c2 = sp_xstrdup(dir);
	_cleanup_free_ char *tmp = sp_xasprintf("%s/.%s.partial-XXXXXX", dirname(c1), basename(c2));
	if (!mkdtemp(tmp))
		return errno == ENOENT ? sp_usage(err, "--archive %s: its directory does not exist", dir)
				       : sp_fail_errno(err, errno, "--archive %s: cannot create a directory beside it", dir);
	chmod(tmp, 0755);
	if (fill(d, tmp, sign_key, err) < 0) {
		sp_rm_rf(tmp);
		return -1;
	}
	/* prove it: the decision re-made from the archive alone is the same */
	sp_gate_plan plan;
	sp_gate_decision again;
	bool same = false;
	char diff[600] = "";
	sp_error aerr = {0};
	if (sp_gate_from_archive(tmp, NULL, false, &plan, &again, &same, diff, sizeof diff, &aerr) < 0) {
		sp_rm_rf(tmp);
		return sp_fail_errno(err, 0, "--archive %s: the archive cannot be re-decided: %s", dir, aerr.msg);
	}
	sp_decision_free(&again);
	sp_plan_free(&plan);
	if (!same) {
		sp_rm_rf(tmp);
		return sp_fail_errno(err, 0, "--archive %s: the decision re-made from the archive differs: %s", dir, diff);
	}
	if (rename(tmp, dir) < 0) {
		int e = errno;
		sp_rm_rf(tmp);
		return e == EEXIST || e == ENOTEMPTY ? sp_usage(err, "--archive %s: exists (an archive is never overwritten)", dir)
						     : sp_fail_errno(err, e, "--archive %s: cannot move the archive into place", dir);
	}
	return 0;
}

/* ---- re-deciding ---------------------------------------------------------- */
/* the archive's own integrity: every file listed with its digest, nothing else */
static int check_manifest(const char *dir, void *pubkey, sp_error *err)
{
	sp_error merr;
	_cleanup_free_ char *mp = sp_xasprintf("%s/MANIFEST", dir);
	size_t mlen = 0;
	int e = 0;
	_cleanup_free_ char *mbuf = sp_ev_read_all(mp, 64 << 20, &mlen, &e);
	if (!mbuf)
		return sp_usage(err, "MANIFEST: %s", sp_ev_strerror(e));
	sp_ev_manifest man = {0};
	if (sp_ev_manifest_parse(&man, mbuf, mlen, &merr) < 0)
		return sp_usage(err, "MANIFEST: %s", merr.msg);
	char **paths = NULL;
	size_t n = 0;
	int rc = 0;
	if (sp_bundle_list(dir, &paths, &n, &merr) < 0) {
		rc = sp_usage(err, "%s", merr.msg);
		goto out;
	}
	size_t i = 0, j = 0;
	while (rc == 0 && (i < man.n || j < n)) {
		int c = i == man.n ? 1 : j == n ? -1 : strcmp(man.v[i].path, paths[j]);
		if (c < 0) {
			rc = sp_usage(err, "%s: listed in MANIFEST but missing (removed)", man.v[i].path);
		} else if (c > 0) {
			rc = sp_usage(err, "%s: present but not listed in MANIFEST (added)", paths[j]);
		} else {
			unsigned char dg[32];
			_cleanup_free_ char *fp = sp_xasprintf("%s/%s", dir, paths[j]);
			sp_outcome o = {0};
			if (sp_ev_sha256_file(fp, dg, NULL, &o) < 0)
				rc = sp_usage(err, "%s: %s", paths[j], strerror(o.errnum));
			else if (memcmp(dg, man.v[i].digest, 32))
				rc = sp_usage(err, "%s: does not match its MANIFEST digest (edited)", paths[j]);
			i++;
			j++;
		}
	}
	if (rc == 0 && pubkey) {
		_cleanup_free_ char *sp = sp_xasprintf("%s/MANIFEST.sig", dir);
		size_t slen = 0;
		_cleanup_free_ char *sig = sp_ev_read_all(sp, 4096, &slen, &e);
		if (!sig)
			rc = sp_usage(err, "MANIFEST.sig: %s (a public key was given)", sp_ev_strerror(e));
		else if (sp_sig_verify(pubkey, mbuf, mlen, sig, slen, &merr) != 1)
			rc = sp_usage(err, "MANIFEST.sig: %s", merr.msg);
	}
out:
	sp_ev_manifest_free(&man);
	for (size_t k = 0; k < n; k++)
		free(paths[k]);
	free(paths);
	return rc;
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* every difference between the re-made decision and the archived document,
 * into d->diffs (at most this many) and d->celldiffs */
#define MAX_DIFFS 200

static void add_diff(sp_gate_decision *d, const char *f, ...) SP_PRINTF(2, 3);
static void add_diff(sp_gate_decision *d, const char *f, ...)
{
	if (d->ndiffs >= MAX_DIFFS)
		return;
	if (d->ndiffs == MAX_DIFFS - 1) {
		d->diffs[d->ndiffs++] = sp_xstrdup("... more differences not listed");
		return;
	}
	va_list ap;
	va_start(ap, f);
	char buf[700];
	vsnprintf(buf, sizeof buf, f, ap);
	va_end(ap);
	d->diffs[d->ndiffs++] = sp_xstrdup(buf);
}

static void add_celldiff(sp_gate_decision *d, const char *id, const char *archived, const char *remade)
{
	if (d->ncelldiffs >= MAX_DIFFS)
		return;
	sp_gate_celldiff *c = &d->celldiffs[d->ncelldiffs++];
	snprintf(c->id, sizeof c->id, "%s", id);
	snprintf(c->archived, sizeof c->archived, "%s", archived);
	snprintf(c->remade, sizeof c->remade, "%s", remade);
}

/* the archived cell of this id (the archived document's own order first) */
static json_t *archived_cell(json_t *cells, size_t hint, const char *id)
{
	json_t *c = json_array_get(cells, hint);
	if (c && jstr(c, "id") && !strcmp(jstr(c, "id"), id))
		return c;
	for (size_t i = 0; i < json_array_size(cells); i++) {
		c = json_array_get(cells, i);
		if (jstr(c, "id") && !strcmp(jstr(c, "id"), id))
			return c;
	}
	return NULL;
}

static bool remade_has_cell(const sp_gate_decision *d, const char *id)
{
	char buf[200];
	for (size_t i = 0; i < d->ncells; i++) {
		sp_gcell_id(d, &d->cells[i], buf, sizeof buf);
		if (!strcmp(buf, id))
			return true;
	}
	return false;
}

/* compare the re-made decision with the archived document: the result,
 * every cell's state, deciding run and claims, every bundle's verdict and
 * the problems */
static void compare_decision(sp_gate_decision *d, json_t *j)
{
	d->from_archive = true;
	d->diffs = sp_xcalloc(MAX_DIFFS, sizeof *d->diffs);
	d->celldiffs = sp_xcalloc(MAX_DIFFS, sizeof *d->celldiffs);
	const char *result = jstr(j, "result");
	snprintf(d->archived_result, sizeof d->archived_result, "%s", result ? result : "(none)");
	if (!result || strcmp(result, d->pass ? "pass" : "fail"))
		add_diff(d, "result: archived %s, re-made %s", result ? result : "(none)", d->pass ? "pass" : "fail");
	json_t *cells = json_object_get(j, "cells");
	if (!json_is_array(cells)) {
		add_diff(d, "cells: the archived decision has none");
		cells = NULL;
	}
	for (size_t i = 0; i < d->ncells; i++) {
		const sp_gate_cell *c = &d->cells[i];
		char id[200];
		sp_gcell_id(d, c, id, sizeof id);
		const char *st = sp_cell_state_name(c->state);
		json_t *ac = cells ? archived_cell(cells, i, id) : NULL;
		if (!ac) {
			add_diff(d, "cell %s: not in the archived decision, re-made %s", id, st);
			add_celldiff(d, id, "(absent)", st);
			continue;
		}
		const char *ast = jstr(ac, "state");
		if (!ast || strcmp(ast, st)) {
			add_diff(d, "cell %s: archived %s, re-made %s", id, ast ? ast : "?", st);
			add_celldiff(d, id, ast ? ast : "?", st);
			continue;
		}
		json_t *b = json_object_get(ac, "bundle");
		const char *arun = json_is_object(b) ? jstr(b, "run_id") : NULL;
		const char *amsha = json_is_object(b) ? jstr(b, "manifest_sha256") : NULL;
		const sp_gate_bundle *nb = c->decisive >= 0 ? &d->b[c->decisive] : NULL;
		const char *nrun = nb ? nb->run_id : NULL;
		if ((arun == NULL) != (nrun == NULL) || (arun && strcmp(arun, nrun)) ||
		    (nb && (!amsha || strcmp(amsha, nb->manifest_sha256)))) {
			add_diff(d, "cell %s: archived evidence %s, re-made %s", id, arun ? arun : "none", nrun ? nrun : "none");
			add_celldiff(d, id, ast, st);
			continue;
		}
		json_t *ev = json_object_get(ac, "evidence");
		if (!json_is_array(ev) || json_array_size(ev) != c->nclaims) {
			add_diff(d, "cell %s: archived %zu bundle(s) of evidence, re-made %zu", id,
				 json_is_array(ev) ? json_array_size(ev) : 0, c->nclaims);
			add_celldiff(d, id, ast, st);
			continue;
		}
		for (size_t k = 0; k < c->nclaims; k++) {
			const char *disp = jstr(json_array_get(ev, k), "disposition");
			const char *nd = sp_claim_disp_name(c->claims[k].disp);
			if (!disp || strcmp(disp, nd)) {
				add_diff(d, "cell %s: evidence %zu archived %s, re-made %s", id, k + 1, disp ? disp : "?", nd);
				add_celldiff(d, id, ast, st);
				break;
			}
		}
	}
	for (size_t i = 0; cells && i < json_array_size(cells); i++) {
		const char *aid = jstr(json_array_get(cells, i), "id");
		if (!aid || !remade_has_cell(d, aid)) {
			const char *ast = jstr(json_array_get(cells, i), "state");
			add_diff(d, "cell %s: archived %s, not in the re-made decision", aid ? aid : "?", ast ? ast : "?");
			add_celldiff(d, aid ? aid : "?", ast ? ast : "?", "(absent)");
		}
	}
	/* the evidence itself: the same bundles, each judged the same (a failed
	 * run dropped from the archive shows here even when no cell changes) */
	json_t *bundles = json_object_get(j, "bundles");
	size_t nab = json_is_array(bundles) ? json_array_size(bundles) : 0;
	if (nab != d->nb)
		add_diff(d, "bundles: archived %zu, re-made from %zu", nab, d->nb);
	for (size_t i = 0; i < d->nb && i < nab; i++) {
		json_t *b = json_array_get(bundles, i);
		const sp_gate_bundle *nb = &d->b[i];
		const char *run = jstr(b, "run_id"), *msha = jstr(b, "manifest_sha256"), *verdict = jstr(b, "verdict");
		const char *nverdict = nb->verified ? (nb->pass ? "pass" : "fail") : NULL;
		if ((run == NULL) != (nb->run_id == NULL) || (run && strcmp(run, nb->run_id)) ||
		    strcmp(msha ? msha : "", nb->manifest_sha256) || (verdict == NULL) != (nverdict == NULL) ||
		    (verdict && strcmp(verdict, nverdict)))
			add_diff(d, "bundle %zu: archived run %s (%s), re-made run %s (%s)", i + 1, run ? run : "?",
				 verdict ? verdict : "not verified", nb->run_id ? nb->run_id : "?",
				 nverdict ? nverdict : "not verified");
	}
	json_t *probs = json_object_get(j, "problems");
	size_t nap = json_is_array(probs) ? json_array_size(probs) : 0;
	if (nap != d->nprob)
		add_diff(d, "problems: archived %zu, re-made %zu", nap, d->nprob);
	for (size_t i = 0; i < d->nprob && i < nap; i++) {
		const char *k = jstr(json_array_get(probs, i), "kind");
		if (!k || strcmp(k, d->prob[i].kind))
			add_diff(d, "problem %zu: archived %s, re-made %s", i + 1, k ? k : "?", d->prob[i].kind);
	}
	d->reproduced = d->ndiffs == 0;
}

int sp_gate_from_archive(const char *dir, void *pubkey, bool keep_verdicts, sp_gate_plan *plan, sp_gate_decision *d, bool *same,
			 char *diff, size_t diffsz, sp_error *err)
{
	struct stat st;
	memset(plan, 0, sizeof *plan);
	memset(d, 0, sizeof *d);
	*same = false;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return sp_usage(err, "not a directory");
	if (check_manifest(dir, pubkey, err) < 0) {
		err->exit_code = SP_EXIT_FAIL; /* an archive that is not what was retained: the decision is not reproduced */
		return -1;
	}
	_cleanup_free_ char *jp = sp_xasprintf("%s/" ARCHIVE_DECISION, dir);
	json_error_t je;
	json_t *j = json_load_file(jp, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return sp_usage(err, ARCHIVE_DECISION ":%d: %s", je.line, je.text);
	int rc = -1;
	_cleanup_free_ char *pp = sp_xasprintf("%s/" ARCHIVE_PLAN, dir);
	_cleanup_free_ char *kp = NULL;
	_cleanup_free_ char *bd = sp_xasprintf("%s/bundles", dir);
	const char *schema = jstr(j, "schema"), *at_text = jstr(j, "decided_at");
	json_t *pl = json_object_get(j, "plan");
	const char *plan_sha = json_is_object(pl) ? jstr(pl, "sha256") : NULL;
	const char *key_sha = json_is_object(pl) ? jstr(pl, "pubkey_sha256") : NULL;
	time_t at;
	if (!schema || strcmp(schema, SP_GATE_SCHEMA) || !at_text || sp_gate_parse_time(at_text, &at) < 0 || !plan_sha) {
		sp_usage(err, ARCHIVE_DECISION ": not a %s decision with decided_at and plan.sha256", SP_GATE_SCHEMA);
		goto out;
	}
	if (sp_plan_load(plan, pp, err) < 0)
		goto out;
	if (strcmp(plan->sha256, plan_sha)) {
		sp_usage(err, ARCHIVE_PLAN ": sha256 %s, the decision names %s", plan->sha256, plan_sha);
		goto out;
	}
	if (plan->pubkey_path || key_sha) {
		kp = sp_xasprintf("%s/" ARCHIVE_KEY, dir);
		if (lstat(kp, &st) < 0) {
			sp_usage(err, ARCHIVE_KEY ": missing, but the plan names a signing key");
			goto out;
		}
	}
	char *args[] = {bd};
	char **dirs, **skipped;
	size_t ndirs, nskipped;
	if (sp_gate_collect(args, 1, &dirs, &ndirs, &skipped, &nskipped, err) < 0)
		goto out;
	sp_gate_opts o = {.at = at, .keep_verdicts = keep_verdicts, .skipped = skipped, .nskipped = nskipped};
	int r = sp_gate_decide(plan, dirs, ndirs, &o, kp, d, err);
	sp_gate_dirs_free(dirs, ndirs);
	sp_gate_dirs_free(skipped, nskipped);
	if (r < 0)
		goto out;
	if (key_sha && strcmp(key_sha, d->pubkey_sha256)) {
		sp_usage(err, ARCHIVE_KEY ": sha256 %s, the decision names %s", d->pubkey_sha256, key_sha);
		sp_decision_free(d);
		goto out;
	}
	compare_decision(d, j);
	*same = d->reproduced;
	snprintf(diff, diffsz, "%s", d->ndiffs ? d->diffs[0] : "");
	rc = 0;
out:
	json_decref(j);
	if (rc < 0)
		sp_plan_free(plan);
	return rc;
}
