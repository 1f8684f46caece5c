/* Fleet plan parser: YAML tree -> sp_fleet_plan, validated (see fleet.h
 * and sandprobe-fleet(1)). Everything the renderer writes into a manifest
 * passes a character check here, so the manifests need no YAML escaping
 * beyond double quotes. */
#include "fleet/fleet.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "yaml/ytree.h"

struct pctx {
	const char *origin;
	sp_error *err;
};

#define BAD(n, ...) sp_usage_at(p->err, p->origin, (n)->line, __VA_ARGS__)

static int want(struct pctx *p, const sp_ynode *n, sp_ynode_kind k, const char *key)
{
	return sp_ynode_want(n, k, key, p->origin, p->err);
}

/* printable ASCII without space, quotes or backslash (safe in a
 * double-quoted YAML scalar as it is) */
static int get_word(struct pctx *p, const sp_ynode *n, const char *key, size_t max, char **out)
{
	char pr[80];
	if (want(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	if (!n->str[0])
		return BAD(n, "'%s' must not be empty", key);
	if (strlen(n->str) > max)
		return BAD(n, "'%s' is longer than %zu characters", key, max);
	for (const unsigned char *c = (const unsigned char *)n->str; *c; c++)
		if (*c <= 0x20 || *c >= 0x7f || *c == '"' || *c == '\\' || *c == '\'') {
			sp_yaml_printable(n->str, pr, sizeof pr);
			return BAD(n, "'%s' may not contain spaces, quotes, backslashes or non-ASCII (got '%s')", key, pr);
		}
	free(*out);
	*out = sp_xstrdup(n->str);
	return 0;
}

/* a DNS-1123 label: lowercase letters, digits and '-', alphanumeric at both ends */
static bool dns_label(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
			return false;
	return true;
}

static int get_label(struct pctx *p, const sp_ynode *n, const char *key, size_t max, char **out)
{
	if (get_word(p, n, key, max, out) < 0)
		return -1;
	if (!dns_label(*out, max))
		return BAD(n, "'%s' must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit (got '%.64s')",
			   key, *out);
	return 0;
}

static int get_bool(struct pctx *p, const sp_ynode *n, const char *key, bool *out)
{
	if (want(p, n, SP_YN_SCALAR, key) < 0)
		return -1;
	if (!n->quoted && !strcmp(n->str, "true"))
		*out = true;
	else if (!n->quoted && !strcmp(n->str, "false"))
		*out = false;
	else
		return BAD(n, "'%s' must be true or false (got '%.40s')", key, n->str);
	return 0;
}

static int get_int(struct pctx *p, const sp_ynode *n, const char *key, int lo, int hi, int *out)
{
	return sp_ynode_int(n, key, lo, hi, out, p->origin, p->err);
}

/* a Kubernetes quantity: digits, an optional fraction, an optional suffix */
static int get_quantity(struct pctx *p, const sp_ynode *n, const char *key, char **out)
{
	static const char *const sfx[] = {"", "m", "k", "M", "G", "T", "Ki", "Mi", "Gi", "Ti"};
	if (get_word(p, n, key, 32, out) < 0)
		return -1;
	const char *s = *out;
	size_t i = 0;
	while (isdigit((unsigned char)s[i]))
		i++;
	bool ok = i > 0;
	if (ok && s[i] == '.') {
		size_t j = ++i;
		while (isdigit((unsigned char)s[i]))
			i++;
		ok = i > j;
	}
	bool known = false;
	for (size_t k = 0; k < SP_ARRAY_SIZE(sfx); k++)
		known |= !strcmp(s + i, sfx[k]);
	if (!ok || !known)
		return BAD(n, "'%s' must be a Kubernetes quantity like 100m, 0.5, 128Mi or 1Gi (got '%.40s')", key, s);
	return 0;
}

static int check_keys(struct pctx *p, const sp_ynode *map, const char *where, const char *const *allowed)
{
	const sp_ynode *k = sp_ynode_unknown_key(map, allowed);
	char pr[64];
	if (!k)
		return 0;
	sp_yaml_printable(k->str, pr, sizeof pr);
	return BAD(k, "unknown key '%s' in %s", pr, where);
}

static int need(struct pctx *p, const sp_ynode *map, const char *key, const char *where, const sp_ynode **out)
{
	*out = sp_ynode_get(map, key);
	if (!*out)
		return BAD(map, "%s has no '%s'", where, key);
	return 0;
}

/* label keys: [prefix/]name, name up to 63 of [A-Za-z0-9._-]; values up to 63 of the same */
static bool label_part(const char *s, size_t n, bool empty_ok)
{
	if (n == 0)
		return empty_ok;
	if (n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

static bool label_key(const char *s)
{
	const char *slash = strchr(s, '/');
	if (!slash)
		return label_part(s, strlen(s), false);
	size_t pn = (size_t)(slash - s);
	if (pn == 0 || pn > 253 || strchr(slash + 1, '/'))
		return false;
	for (size_t i = 0; i < pn; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || isdigit((unsigned char)s[i]) || s[i] == '.' || s[i] == '-'))
			return false;
	return label_part(slash + 1, strlen(slash + 1), false);
}

static int parse_node(struct pctx *p, sp_fleet_plan *pl, const sp_ynode *n)
{
	static const char *const keys[] = {"id", "node_name", "node_selector", NULL};
	const sp_ynode *v;
	sp_fleet_node *nd = &pl->nodes[pl->nnodes++];
	nd->line = n->line;
	if (want(p, n, SP_YN_MAP, "nodes item") < 0 || check_keys(p, n, "a nodes item", keys) < 0)
		return -1;
	if (need(p, n, "id", "a nodes item", &v) < 0 || get_label(p, v, "nodes.id", 63, &nd->id) < 0)
		return -1;
	for (size_t i = 0; i + 1 < pl->nnodes; i++)
		if (!strcmp(pl->nodes[i].id, nd->id))
			return BAD(v, "node '%s' is listed twice (first at line %d)", nd->id, pl->nodes[i].line);
	const sp_ynode *name = sp_ynode_get(n, "node_name"), *sel = sp_ynode_get(n, "node_selector");
	if (!name == !sel)
		return BAD(n, "node %s: give exactly one of 'node_name' and 'node_selector'", nd->id);
	if (name) {
		if (get_word(p, name, "nodes.node_name", 253, &nd->node_name) < 0)
			return -1;
		for (const char *c = nd->node_name; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || isdigit((unsigned char)*c) || *c == '-' || *c == '.'))
				return BAD(name, "node %s: 'node_name' must be a DNS name (lowercase letters, digits, '-' and '.'; got '%.64s')",
					   nd->id, nd->node_name);
		return 0;
	}
	if (want(p, sel, SP_YN_MAP, "nodes.node_selector") < 0)
		return -1;
	if (sel->n == 0 || sel->n > SP_FLEET_MAX_SELECTOR)
		return BAD(sel, "node %s: 'node_selector' must have 1 to %d labels", nd->id, SP_FLEET_MAX_SELECTOR);
	nd->sel_key = sp_xcalloc(sel->n, sizeof *nd->sel_key);
	nd->sel_val = sp_xcalloc(sel->n, sizeof *nd->sel_val);
	for (size_t i = 0; i < sel->n; i++) {
		const sp_ynode *k = sel->items[2 * i], *val = sel->items[2 * i + 1];
		nd->nsel++;
		if (get_word(p, k, "node_selector key", 317, &nd->sel_key[i]) < 0)
			return -1;
		if (!label_key(nd->sel_key[i]))
			return BAD(k, "node %s: '%.80s' is not a label key ([prefix/]name)", nd->id, nd->sel_key[i]);
		if (want(p, val, SP_YN_SCALAR, "node_selector value") < 0)
			return -1;
		if (!label_part(val->str, strlen(val->str), true))
			return BAD(val, "node %s: node_selector.%s: '%.80s' is not a label value (up to 63 of letters, digits, '.', '_', '-')",
				   nd->id, nd->sel_key[i], val->str);
		nd->sel_val[i] = sp_xstrdup(val->str);
	}
	return 0;
}

static int parse_resources(struct pctx *p, sp_fleet_plan *pl, const sp_ynode *n)
{
	static const char *const keys[] = {"requests", "limits", NULL};
	static const char *const sub[] = {"cpu", "memory", NULL};
	if (want(p, n, SP_YN_MAP, "resources") < 0 || check_keys(p, n, "resources", keys) < 0)
		return -1;
	const sp_ynode *r = sp_ynode_get(n, "requests"), *l = sp_ynode_get(n, "limits"), *v;
	if (r) {
		if (want(p, r, SP_YN_MAP, "resources.requests") < 0 || check_keys(p, r, "resources.requests", sub) < 0)
			return -1;
		if ((v = sp_ynode_get(r, "cpu")) && get_quantity(p, v, "resources.requests.cpu", &pl->req_cpu) < 0)
			return -1;
		if ((v = sp_ynode_get(r, "memory")) && get_quantity(p, v, "resources.requests.memory", &pl->req_mem) < 0)
			return -1;
	}
	if (l) {
		if (want(p, l, SP_YN_MAP, "resources.limits") < 0 || check_keys(p, l, "resources.limits", sub) < 0)
			return -1;
		if ((v = sp_ynode_get(l, "cpu")) && get_quantity(p, v, "resources.limits.cpu", &pl->lim_cpu) < 0)
			return -1;
		if ((v = sp_ynode_get(l, "memory")) && get_quantity(p, v, "resources.limits.memory", &pl->lim_mem) < 0)
			return -1;
	}
	return 0;
}

int sp_fleet_plan_parse(sp_fleet_plan *pl, const char *text, size_t len, const char *origin, sp_error *err)
{
	static const char *const keys[] = {"name", "namespace", "image", "profile", "set", "run_as_non_root",
					   "run_as_user", "host_users", "apparmor", "ttl_seconds_after_finished",
					   "active_deadline_seconds", "resources", "runtime_classes", "nodes", NULL};
	struct pctx pc = {origin, err}, *p = &pc;
	memset(pl, 0, sizeof *pl);
	pl->run_as_non_root = true;
	pl->run_as_user = 65534;
	pl->apparmor = true;
	pl->ttl = 3600;
	pl->active_deadline = 600;
	int rc = -1;
	const sp_ynode *v;
	sp_ydoc *doc = sp_yaml_parse(text, len, origin, err);
	if (!doc)
		return -1;
	const sp_ynode *root = doc->root;
	if (want(p, root, SP_YN_MAP, "the plan") < 0 || check_keys(p, root, "the plan", keys) < 0)
		goto out;
	if (need(p, root, "name", "the plan", &v) < 0 || get_label(p, v, "name", 20, &pl->name) < 0)
		goto out;
	if (need(p, root, "namespace", "the plan", &v) < 0 || get_label(p, v, "namespace", 63, &pl->namespace) < 0)
		goto out;
	if (need(p, root, "image", "the plan", &v) < 0 || get_word(p, v, "image", 512, &pl->image) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "profile"))) {
		if (get_label(p, v, "profile", 63, &pl->profile) < 0)
			goto out;
	} else {
		pl->profile = sp_xstrdup("container");
	}
	if ((v = sp_ynode_get(root, "set"))) {
		if (want(p, v, SP_YN_SEQ, "set") < 0)
			goto out;
		if (v->n > SP_FLEET_MAX_SET) {
			BAD(v, "'set' lists more than %d items", SP_FLEET_MAX_SET);
			goto out;
		}
		pl->set = sp_xcalloc(v->n ? v->n : 1, sizeof *pl->set);
		for (size_t i = 0; i < v->n; i++) {
			pl->nset++;
			if (get_word(p, v->items[i], "set item", 1024, &pl->set[i]) < 0)
				goto out;
			const char *eq = strchr(pl->set[i], '=');
			if (!eq || eq == pl->set[i]) {
				BAD(v->items[i], "'set' items are CHECK.FIELD=VALUE as the doctor's --set takes them (got '%.64s')",
				    pl->set[i]);
				goto out;
			}
		}
	}
	if ((v = sp_ynode_get(root, "run_as_non_root")) && get_bool(p, v, "run_as_non_root", &pl->run_as_non_root) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "run_as_user"))) {
		if (!pl->run_as_non_root) {
			BAD(v, "'run_as_user' goes with run_as_non_root: true (a root pod runs as uid 0)");
			goto out;
		}
		if (get_int(p, v, "run_as_user", 1, 2147483647, &pl->run_as_user) < 0)
			goto out;
	}
	if ((v = sp_ynode_get(root, "host_users")) && get_bool(p, v, "host_users", &pl->host_users) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "apparmor")) && get_bool(p, v, "apparmor", &pl->apparmor) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "ttl_seconds_after_finished")) &&
	    get_int(p, v, "ttl_seconds_after_finished", 0, 30 * 86400, &pl->ttl) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "active_deadline_seconds")) &&
	    get_int(p, v, "active_deadline_seconds", 10, 86400, &pl->active_deadline) < 0)
		goto out;
	if ((v = sp_ynode_get(root, "resources")) && parse_resources(p, pl, v) < 0)
		goto out;
	if (!pl->req_cpu)
		pl->req_cpu = sp_xstrdup("100m");
	if (!pl->req_mem)
		pl->req_mem = sp_xstrdup("32Mi");
	if (!pl->lim_cpu)
		pl->lim_cpu = sp_xstrdup("500m");
	if (!pl->lim_mem)
		pl->lim_mem = sp_xstrdup("128Mi");

	if (need(p, root, "runtime_classes", "the plan", &v) < 0 || want(p, v, SP_YN_SEQ, "runtime_classes") < 0)
		goto out;
	if (v->n == 0 || v->n > SP_FLEET_MAX_CLASSES) {
		BAD(v, "'runtime_classes' must list 1 to %d RuntimeClass names", SP_FLEET_MAX_CLASSES);
		goto out;
	}
	pl->classes = sp_xcalloc(v->n, sizeof *pl->classes);
	for (size_t i = 0; i < v->n; i++) {
		pl->nclasses++;
		if (get_label(p, v->items[i], "runtime_classes item", 63, &pl->classes[i]) < 0)
			goto out;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(pl->classes[k], pl->classes[i])) {
				BAD(v->items[i], "'runtime_classes' lists '%s' twice", pl->classes[i]);
				goto out;
			}
	}
	const sp_ynode *nodes;
	if (need(p, root, "nodes", "the plan", &nodes) < 0 || want(p, nodes, SP_YN_SEQ, "nodes") < 0)
		goto out;
	if (nodes->n == 0 || nodes->n > SP_FLEET_MAX_NODES) {
		BAD(nodes, "'nodes' must list 1 to %d nodes", SP_FLEET_MAX_NODES);
		goto out;
	}
	pl->nodes = sp_xcalloc(nodes->n, sizeof *pl->nodes);
	for (size_t i = 0; i < nodes->n; i++)
		if (parse_node(p, pl, nodes->items[i]) < 0)
			goto out;
	/* every Job name fits a Kubernetes name (63) */
	for (size_t n = 0; n < pl->nnodes; n++)
		for (size_t c = 0; c < pl->nclasses; c++) {
			size_t jl = strlen("sp--") + strlen(pl->name) + 1 + strlen(pl->nodes[n].id) + 1 + strlen(pl->classes[c]);
			if (jl > 63) {
				BAD(nodes->items[n], "cell %s/%s: the Job name sp-%s-%s-%s is %zu characters, more than 63 (shorten the node id, the class or the plan's name)",
				    pl->nodes[n].id, pl->classes[c], pl->name, pl->nodes[n].id, pl->classes[c], jl);
				goto out;
			}
			/* two cells must not share a Job name (node a-b + class c vs node a + class b-c) */
			char a[80], b[80];
			sp_fleet_job_name(pl, n, c, a, sizeof a);
			for (size_t n2 = 0; n2 <= n; n2++)
				for (size_t c2 = 0; c2 < pl->nclasses && (n2 < n || c2 < c); c2++) {
					sp_fleet_job_name(pl, n2, c2, b, sizeof b);
					if (!strcmp(a, b)) {
						BAD(nodes->items[n], "cells %s/%s and %s/%s would both be Job %s (rename a node id)",
						    pl->nodes[n2].id, pl->classes[c2], pl->nodes[n].id, pl->classes[c], a);
						goto out;
					}
				}
		}
	rc = 0;
out:
	sp_ydoc_free(doc);
	if (rc < 0)
		sp_fleet_plan_free(pl);
	return rc;
}

int sp_fleet_plan_load(sp_fleet_plan *p, const char *path, sp_error *err)
{
	int errnum = 0;
	size_t len = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, SP_FLEET_MAX_BYTES, &len, &errnum);
	if (!text) {
		memset(p, 0, sizeof *p);
		return errnum == EFBIG ? sp_usage(err, "%s: plan file too large (at most %d bytes)", path, SP_FLEET_MAX_BYTES)
				       : sp_usage(err, "%s: cannot read the plan: %s", path, strerror(errnum));
	}
	return sp_fleet_plan_parse(p, text, len, path, err);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sp_fleet_plan_free(sp_fleet_plan *p)
{
	free(p->name);
	free(p->namespace);
	free(p->image);
	free(p->profile);
	strv_free(p->set, p->nset);
	free(p->req_cpu);
	free(p->req_mem);
	free(p->lim_cpu);
	free(p->lim_mem);
	strv_free(p->classes, p->nclasses);
	for (size_t i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].id);
		free(p->nodes[i].node_name);
		strv_free(p->nodes[i].sel_key, p->nodes[i].nsel);
		strv_free(p->nodes[i].sel_val, p->nodes[i].nsel);
	}
	free(p->nodes);
	memset(p, 0, sizeof *p);
}
