/* JSON writers (jansson): the doctor report (sandprobe.doctor.v1) and the
 * machine-readable catalogue (sandprobe.checks.v1). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/output.h"
#include "core/runner.h"
#include "core/util.h"
#include "core/version.h"

/* the document and its newline in one piece: written in a few large writes, not one per 4 KiB of
 * stdio buffer (each write is a system call the sandbox's kernel mediates: under gVisor, ~0.3 ms) */
static int dump_whole(json_t *root, FILE *f)
{
	char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!s)
		return -1;
	size_t n = strlen(s);
	s[n] = '\n'; /* replaces the terminator: written by length */
	int r = fwrite(s, 1, n + 1, f) == n + 1 ? 0 : -1;
	free(s);
	return r;
}

int sp_write_json(FILE *f, const sp_ctx *ctx, const sp_report *rep, bool strict)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("sandprobe.doctor.v1"));
	json_object_set_new(root, "tool", json_pack("{s:s,s:s}", "name", "sandprobe", "version", SP_VERSION));
	json_object_set_new(root, "profile", sp_json_str(ctx->profile));
	json_object_set_new(root, "strict", json_boolean(strict));
	json_object_set_new(root, "started_at", json_string(rep->started_at));
	json_object_set_new(root, "duration_ms", json_real(rep->duration_ms));
	const sp_boundary *b = &rep->env.boundary;
	json_t *kb = json_pack("{s:s,s:o,s:o,s:o,s:b}", "kind", sp_kernel_kind_name(b->kind), "kernel",
			       sp_json_str(b->kernel), "signals", sp_json_csv_array(b->signals), "doubt",
			       sp_json_str(b->doubt), "accepted", rep->env.boundary_accepted);
	json_object_set_new(root, "environment",
			    json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:I,s:o}", "runtime_guess", sp_json_str(rep->env.runtime_guess),
				      "engine", sp_json_str(rep->env.engine), "runtime", sp_json_str(rep->env.runtime),
				      "runtime_signals", sp_json_str(rep->env.runtime_signals), "kernel", sp_json_str(rep->env.kernel),
				      "arch", sp_json_str(rep->env.arch), "uid", (json_int_t)rep->env.uid, "kernel_boundary", kb));
	/* a Job of `sandprobe fleet render` names its cell (SP_FLEET_CELL, NODE/CLASS) and the node the
	 * kubelet ran it on (SP_FLEET_NODE_NAME, from spec.nodeName): `fleet collect` places the report by them */
	const char *cell = getenv("SP_FLEET_CELL");
	if (cell) {
		const char *node = getenv("SP_FLEET_NODE_NAME");
		json_object_set_new(json_object_get(root, "environment"), "fleet",
				    json_pack("{s:o,s:o}", "cell", sp_json_str(cell), "node_name", node ? sp_json_str(node) : json_null()));
	}
	json_t *results = json_array();
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(r->check->id));
		json_object_set_new(o, "category", json_string(r->check->category));
		json_object_set_new(o, "title", json_string(r->check->title));
		json_object_set_new(o, "status", json_string(sp_status_name(r->status)));
		json_object_set_new(o, "expect", json_string(sp_expect_name(r->expect)));
		json_object_set_new(o, "method", json_string(r->check->method ? r->check->method : "read"));
		json_object_set_new(o, "expected", sp_json_str(r->expected));
		json_object_set_new(o, "observed", sp_json_str(r->observed));
		json_object_set_new(o, "detail", sp_json_str(r->detail));
		json_object_set_new(o, "duration_us", json_integer((json_int_t)r->duration_us));
		json_object_set_new(o, "techniques", sp_json_csv_array(r->check->techniques));
		if (r->check->flags & SP_CHECK_KERNEL)
			json_object_set_new(o, "kernel", json_string(sp_kernel_kind_name(b->kind)));
		json_array_append_new(results, o);
	}
	json_object_set_new(root, "results", results);
	json_object_set_new(root, "summary",
			    json_pack("{s:I,s:I,s:I,s:I,s:I}", "pass", (json_int_t)rep->sum.pass, "fail",
				      (json_int_t)rep->sum.fail, "skip", (json_int_t)rep->sum.skip, "warn",
				      (json_int_t)rep->sum.warn, "error", (json_int_t)rep->sum.error));
	json_object_set_new(root, "stopped_early", json_boolean(rep->stopped_early));
	json_object_set_new(root, "result", json_string(sp_report_result(rep)));
	int r = dump_whole(root, f);
	json_decref(root);
	return r;
}

int sp_write_list_json(FILE *f, const sp_ctx *ctx, const sp_check *const *checks, size_t n)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("sandprobe.checks.v1"));
	json_object_set_new(root, "profile", sp_json_str(ctx->profile));
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		const sp_check *c = checks[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(c->id));
		json_object_set_new(o, "category", json_string(c->category));
		json_object_set_new(o, "title", json_string(c->title));
		json_object_set_new(o, "rationale", json_string(c->rationale));
		json_object_set_new(o, "techniques", sp_json_csv_array(c->techniques));
		json_object_set_new(o, "method", json_string(c->method ? c->method : "read"));
		json_object_set_new(o, "expect", json_string(sp_expect_name(sp_policy_expect(ctx->policy, c->id))));
		json_t *pol = json_object();
		sp_strv keys;
		sp_strv_split(&keys, c->policy_keys, ",");
		for (size_t k = 0; k < keys.n; k++) {
			char *colon = strchr(keys.v[k], ':');
			if (colon)
				*colon = '\0';
			const char *v = sp_policy_get(ctx->policy, keys.v[k]);
			json_object_set_new(pol, keys.v[k], v ? sp_json_str(v) : json_null());
		}
		sp_strv_free(&keys);
		json_object_set_new(o, "policy", pol);
		json_object_set_new(o, "timeout_ms", json_integer(c->batch ? sp_batch_timeout(ctx, c->batch, false)
								   : c->timeout_ms ? c->timeout_ms : ctx->timeout_ms));
		json_object_set_new(o, "isolated", json_boolean(!(c->flags & SP_CHECK_INPROCESS)));
		json_object_set_new(o, "batch", c->batch ? json_string(c->batch->id) : json_null());
		json_t *ks = json_array();
		if (c->flags & SP_CHECK_KERNEL_USERSPACE)
			json_array_append_new(ks, json_string("user-space"));
		if (c->flags & SP_CHECK_KERNEL_GUEST)
			json_array_append_new(ks, json_string("guest"));
		json_object_set_new(o, "separate_kernel_satisfies", ks);
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "checks", arr);
	json_object_set_new(root, "count", json_integer((json_int_t)n));
	int r = dump_whole(root, f);
	json_decref(root);
	return r;
}
