#include "report/verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/spawn.h"
#include "core/util.h"

#define MAX_OUT (16u << 20)
#define MAX_ERR 4096u

static char *json_text(json_t *v)
{
	if (!v || json_is_null(v))
		return sp_xstrdup("");
	if (json_is_string(v))
		return sp_xstrdup(json_string_value(v));
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	char *r = sp_xstrdup(s ? s : "");
	free(s);
	return r;
}

int rp_verdict_parse(const char *text, size_t len, rp_verdict *v)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);
	if (!root) {
		snprintf(v->reason, sizeof v->reason, "output is not JSON (line %d: %s)", je.line, je.text);
		return -1;
	}
	int rc = -1;
	json_t *schema = json_object_get(root, "schema"), *gates = json_object_get(root, "gates"),
	       *result = json_object_get(root, "result");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), "sandprobe.verify.v1"))
		snprintf(v->reason, sizeof v->reason, "output is not sandprobe.verify.v1 (schema field)");
	else if (!json_is_array(gates))
		snprintf(v->reason, sizeof v->reason, "output has no gates array");
	else if (!json_is_string(result))
		snprintf(v->reason, sizeof v->reason, "output has no result");
	else {
		rc = 0;
		size_t n = json_array_size(gates);
		v->gates = sp_xcalloc(n ? n : 1, sizeof(rp_gate));
		for (size_t i = 0; i < n; i++) {
			json_t *g = json_array_get(gates, i);
			json_t *id = json_object_get(g, "id"), *st = json_object_get(g, "status");
			if (!json_is_object(g) || !json_is_string(id) || !json_is_string(st)) {
				snprintf(v->reason, sizeof v->reason, "gate %zu has no id or status", i + 1);
				rc = -1;
				break;
			}
			rp_gate *o = &v->gates[v->ngates++];
			o->id = sp_xstrdup(json_string_value(id));
			o->status = sp_xstrdup(json_string_value(st));
			o->measured = json_text(json_object_get(g, "measured"));
			o->threshold = json_text(json_object_get(g, "threshold"));
			o->message = json_text(json_object_get(g, "message"));
			if (!strcmp(o->status, "pass"))
				v->npass++;
			else
				v->nfail++;
		}
		if (rc == 0) {
			v->result = sp_xstrdup(json_string_value(result));
			v->available = 1;
		}
	}
	json_decref(root);
	return rc;
}

void rp_verdict_free(rp_verdict *v)
{
	for (size_t i = 0; i < v->ngates; i++) {
		free(v->gates[i].id);
		free(v->gates[i].status);
		free(v->gates[i].measured);
		free(v->gates[i].threshold);
		free(v->gates[i].message);
	}
	free(v->gates);
	free(v->result);
	*v = (rp_verdict){0};
}

/* first line of s, trimmed, into out */
static void first_line(const char *s, char *out, size_t size)
{
	while (*s == ' ' || *s == '\n')
		s++;
	size_t n = strcspn(s, "\n");
	snprintf(out, size, "%.*s", (int)n, s);
}

void rp_verify_run(const char *dir, unsigned timeout_s, rp_verdict *v)
{
	*v = (rp_verdict){0};
	v->exit_code = -1;
	const char *prog = getenv("SANDPROBE_VERIFY");
	if (!prog || !*prog)
		prog = "/proc/self/exe";
	char *const argv[] = {(char *)"sandprobe", (char *)"verify", (char *)dir, (char *)"--format", (char *)"json", NULL};
	sp_spawn_opts o = {.path = prog, .capture_out = true, .capture_err = true, .out_max = MAX_OUT,
			   .err_max = MAX_ERR, .overflow_kills = true};
	sp_child c;
	sp_error serr;
	if (sp_spawn(&c, argv, &o, &serr) < 0) {
		snprintf(v->reason, sizeof v->reason, "%s", serr.msg);
		return;
	}
	bool timed_out = sp_child_wait(&c, sp_now_ns() + (uint64_t)timeout_s * SP_NS_PER_S) == -ETIMEDOUT;
	bool too_big = c.overflowed;
	int status = c.status;
	const char *obuf = c.out_buf.data ? c.out_buf.data : "";
	size_t olen = c.out_buf.len;
	const char *ebuf = c.err_buf.data ? c.err_buf.data : "";
	char line[256];
	first_line(ebuf, line, sizeof line);
	if (timed_out)
		snprintf(v->reason, sizeof v->reason, "verifier timed out after %u s", timeout_s);
	else if (!c.reaped || status < 0)
		snprintf(v->reason, sizeof v->reason, "verifier could not be reaped");
	else if (too_big)
		snprintf(v->reason, sizeof v->reason, "verifier output larger than %u bytes", MAX_OUT);
	else if (WIFSIGNALED(status))
		snprintf(v->reason, sizeof v->reason, "verifier killed by signal %d%s%s", WTERMSIG(status),
			 *line ? ": " : "", line);
	else {
		v->exit_code = WEXITSTATUS(status);
		if (v->exit_code != 0 && v->exit_code != 1)
			snprintf(v->reason, sizeof v->reason, "verifier exited with status %d%s%s", v->exit_code,
				 *line ? ": " : "", line);
		else if (rp_verdict_parse(obuf, olen, v) < 0) {
			char why[sizeof v->reason];
			snprintf(why, sizeof why, "%s", v->reason);
			rp_verdict_free(v);
			v->exit_code = WEXITSTATUS(status);
			snprintf(v->reason, sizeof v->reason, "verifier %s", why);
		}
	}
	sp_child_free(&c);
}
