/* Unit tests of the shared YAML tree (src/yaml/ytree.c): positions of
 * nodes, the plain-data limits and refusals (workloads, plans), and lint's
 * stream mode: documents one at a time, aliases that share nodes, anchors
 * per document, libyaml's composer errors, merge keys, the duplicate key a
 * document reports, and Kubernetes JSON Lists item by item. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "yaml/ytree.h"
#include "tap.h"

static sp_error err;

static sp_ydoc *plain(const char *text)
{
	memset(&err, 0, sizeof err);
	return sp_yaml_parse(text, strlen(text), "w.yaml", &err);
}

static const sp_ynode *get(const sp_ynode *map, const char *key)
{
	for (size_t i = 0; map && map->kind == SP_YN_MAP && i < map->n; i++)
		if (map->items[2 * i]->kind == SP_YN_SCALAR && !strcmp(map->items[2 * i]->str, key))
			return map->items[2 * i + 1];
	return NULL;
}

struct src {
	const char *s;
	size_t n, i;
};

static int rd(void *ctx, unsigned char *buf, size_t size, size_t *got)
{
	struct src *r = ctx;
	size_t k = r->n - r->i < size ? r->n - r->i : size;
	memcpy(buf, r->s + r->i, k);
	r->i += k;
	*got = k;
	return 1;
}

struct items {
	size_t n;
	char names[8][32];
	int lines[8];
};

static int on_item(void *ctx, sp_ydoc *d, sp_ynode *root, size_t index, sp_error *e)
{
	struct items *it = ctx;
	(void)e;
	const sp_ynode *name = get(root, "name");
	if (index < 8) {
		snprintf(it->names[index], sizeof it->names[index], "%s", name ? name->str : "?");
		it->lines[index] = root->line;
	}
	ok(d->root == root && d->nnodes >= 1, "item %zu comes in a document of its own", index);
	it->n++;
	return 0;
}

/* every document of text in mode (documents kept in docs, at most 4) */
static int stream(sp_ymode mode, const char *text, sp_ydoc **docs, size_t *ndocs, struct items *it)
{
	struct src r = {.s = text, .n = strlen(text)};
	memset(&err, 0, sizeof err);
	sp_ystream *s = sp_ystream_new(mode, "k.yaml", rd, &r, mode == SP_YM_JSON ? on_item : NULL, it, &err);
	*ndocs = 0;
	int rc = 0;
	for (;;) {
		sp_ydoc *d;
		if ((rc = sp_ystream_next(s, &d, &err)) < 0 || !d)
			break;
		if (*ndocs < 4)
			docs[(*ndocs)++] = d;
		else
			sp_ydoc_free(d);
	}
	sp_ystream_free(s);
	return rc;
}

static void free_docs(sp_ydoc **docs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sp_ydoc_free(docs[i]);
}

int main(void)
{
	/* plain data: positions, quoting, the empty document */
	sp_ydoc *d = plain("name: x\nlist:\n  - a\n  - 'b'\nmap: {k: v}\n");
	ok(d != NULL, "plain data parses");
	const sp_ynode *l = get(d->root, "list"), *m = get(d->root, "map");
	is_int(l->kind, SP_YN_SEQ, "a sequence");
	is_int(l->line, 3, "the sequence starts on line 3");
	is_int(l->items[1]->line, 4, "its second item is on line 4");
	is_int(l->items[1]->col, 5, "at column 5");
	ok(!l->items[0]->quoted && l->items[1]->quoted, "quoted scalars are told from plain ones");
	is_int(m->items[1]->col, 10, "a flow mapping's value has its column");
	sp_ydoc_free(d);
	d = plain("# nothing\n");
	ok(d && d->root->kind == SP_YN_MAP && d->root->n == 0, "an empty document is an empty mapping");
	sp_ydoc_free(d);

	/* plain data: refusals, each a usage error naming the line */
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"a: &x 1\n", "w.yaml:1: anchors are not allowed in a workload"},
		{"a: 1\nb: *x\n", "w.yaml:2: aliases are not allowed in a workload"},
		{"a: 1\nb: 2\na: 3\n", "w.yaml:3: duplicate key 'a'"},
		{"? [a]\n: 1\n", "w.yaml:1: mapping keys must be plain scalars"},
		{"a: \"x\\0y\"\n", "w.yaml:1: NUL byte in a value"},
		{"a: 1\n---\nb: 2\n", "w.yaml:2: only one YAML document is allowed"},
		{"a: [1, 2\n", "w.yaml:2: did not find expected ',' or ']'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		d = plain(bad[i].text);
		ok(!d && err.exit_code == SP_EXIT_USAGE, "plain data refuses %s", bad[i].msg);
		is_str(err.msg, bad[i].msg, "with the message");
		sp_ydoc_free(d);
	}
	/* plain data: 32 levels, not 33; 200,000 nodes, not more */
	char deep[512] = "a: ";
	for (int i = 0; i < 32; i++)
		strcat(deep, "[");
	for (int i = 0; i < 32; i++)
		strcat(deep, "]");
	d = plain(deep);
	ok(d != NULL, "32 levels of nesting are plain data");
	sp_ydoc_free(d);
	memmove(deep + 4, deep + 3, strlen(deep + 3) + 1);
	deep[3] = '[';
	strcat(deep, "]");
	d = plain(deep);
	ok(!d, "33 levels are refused");
	is_str(err.msg, "w.yaml:1: nesting too deep", "as too deep");
	size_t cap = 200001 * 5 + 16, len = 0;
	char *many = malloc(cap);
	for (int i = 0; i < 200001; i++)
		len += (size_t)snprintf(many + len, cap - len, "- %d\n", i % 10);
	d = plain(many);
	ok(!d, "a sequence of 200,001 nodes (with the root) is refused");
	is_str(err.msg, "w.yaml:200000: document too large", "as too large, at the node past the limit");
	/* duplicate keys are found with a hash set: the CPU time of one mapping
	 * of 60,000 keys is about that of ten of 6,000 (a scan per key makes it
	 * ten times more), and a key repeated at the end is found */
	clock_t t0 = clock();
	for (int rep = 0; rep < 10; rep++) {
		len = 0;
		for (int i = 0; i < 6000; i++)
			len += (size_t)snprintf(many + len, cap - len, "k%d: 1\n", i);
		sp_ydoc_free(plain(many));
	}
	double small = (double)(clock() - t0) / CLOCKS_PER_SEC;
	len = 0;
	for (int i = 0; i < 60000; i++)
		len += (size_t)snprintf(many + len, cap - len, "k%d: 1\n", i);
	t0 = clock();
	d = plain(many);
	double big = (double)(clock() - t0) / CLOCKS_PER_SEC;
	ok(d && d->root->n == 60000, "60,000 distinct keys parse");
	sp_ydoc_free(d);
	ok(big < 4 * small + 0.05, "in %.3f s of CPU time against %.3f s for ten mappings of 6,000", big, small);
	snprintf(many + len, cap - len, "k37777: 2\n");
	d = plain(many);
	ok(!d, "a key repeated after 60,000 others is found");
	is_str(err.msg, "w.yaml:60001: duplicate key 'k37777'", "with its line");
	free(many);

	/* lint's stream: documents one at a time, each with its start */
	sp_ydoc *docs[4];
	size_t nd;
	ok(stream(SP_YM_YAML, "a: 1\n---\nb: &x [1, 2]\nc: *x\n---\n", docs, &nd, NULL) == 0, "a stream of documents");
	is_int(nd, 3, "three documents (the last one empty)");
	is_int(docs[1]->line, 2, "the second starts on line 2");
	ok(get(docs[1]->root, "b") == get(docs[1]->root, "c"), "an alias shares the anchored node");
	is_int(docs[2]->root->kind, SP_YN_SCALAR, "an empty document is a null scalar");
	free_docs(docs, nd);
	/* anchors are per document, as libyaml's loader has them */
	ok(stream(SP_YM_YAML, "a: &x 1\n---\nb: *x\n", docs, &nd, NULL) < 0, "an alias to the previous document's anchor");
	is_str(err.msg, "k.yaml:3:4: invalid YAML: found undefined alias", "is an undefined alias");
	free_docs(docs, nd);
	ok(stream(SP_YM_YAML, "a: &x 1\nb: &x 2\n", docs, &nd, NULL) < 0, "an anchor given twice");
	is_str(err.msg, "k.yaml:2:4: invalid YAML: second occurrence found duplicate anchor; first occurrence",
	       "is libyaml's composer error");
	free_docs(docs, nd);
	/* billion laughs: shared nodes, no copies */
	ok(stream(SP_YM_YAML,
		  "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
		  "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
		  docs, &nd, NULL) == 0,
	   "nested aliases load");
	ok(docs[0]->nnodes < 60, "as %zu nodes, not 1,000 copies", docs[0]->nnodes);
	free_docs(docs, nd);
	ok(stream(SP_YM_YAML, "a: &r [1, *r]\n", docs, &nd, NULL) == 0, "a recursive alias loads");
	const sp_ynode *r = get(docs[0]->root, "a");
	ok(r->n == 2 && r->items[1] == r, "and contains itself");
	free_docs(docs, nd);

	/* merge keys: own keys win, then earlier sources over later ones */
	ok(stream(SP_YM_YAML,
		  "b1: &b1 {x: 1, y: 1}\nb2: &b2 {y: 2, z: 2, w: 2}\nm:\n  <<: [*b1, *b2]\n  w: own\n", docs, &nd,
		  NULL) == 0,
	   "merge keys load");
	ok(sp_ydoc_expand_merges(docs[0], "k.yaml", &err) == 0, "and expand");
	m = get(docs[0]->root, "m");
	ok(get(m, "x") && !strcmp(get(m, "x")->str, "1"), "a key only the first source has");
	ok(get(m, "y") && !strcmp(get(m, "y")->str, "1"), "the first source wins over the second");
	ok(get(m, "z") && !strcmp(get(m, "z")->str, "2"), "a key only the second source has");
	ok(get(m, "w") && !strcmp(get(m, "w")->str, "own"), "the mapping's own key wins");
	is_int(m->n, 5, "five pairs: <<, w and the three merged");
	ok(get(m, "x") == get(get(docs[0]->root, "b1"), "x"), "merged values are the source's nodes");
	free_docs(docs, nd);
	/* a merge bomb: every level merges the one before twice */
	char bomb[4096] = "l0: &l0 {a: 1}\n";
	for (int i = 1; i < 24; i++) {
		char line[128];
		snprintf(line, sizeof line, "l%d: &l%d [{<<: *l%d, k%d: 1}, {<<: *l%d}]\n", i, i, i - 1, i, i - 1);
		strcat(bomb, line);
	}
	ok(stream(SP_YM_YAML, bomb, docs, &nd, NULL) == 0 && sp_ydoc_expand_merges(docs[0], "k.yaml", &err) == 0,
	   "merges of sequences (not mappings) are ignored, within the budget");
	free_docs(docs, nd);

	/* the duplicate key a document reports: the first mapping (in start
	 * order) that has one, its least key, at the second node holding it */
	ok(stream(SP_YM_YAML, "outer:\n  z: 1\n  inner: {q: 1, q: 2}\n  b: 1\n  z: 2\n  b: 2\n", docs, &nd, NULL) == 0,
	   "a document with duplicate keys loads");
	ok(sp_ydoc_check_dups(docs[0], "k.yaml", &err) < 0, "and has a duplicate");
	is_str(err.msg, "k.yaml:6:3: duplicate key 'b' (first at line 4)", "the outer mapping's least key");
	free_docs(docs, nd);
	ok(stream(SP_YM_YAML, "a: &k x\nm: {x: 1, *k : 2}\n", docs, &nd, NULL) == 0 &&
		   sp_ydoc_check_dups(docs[0], "k.yaml", &err) < 0,
	   "an alias key repeats the text of another key");
	is_str(err.msg, "k.yaml:2:5: duplicate key 'x' (first at line 1)", "named at the key that is not the anchor");
	free_docs(docs, nd);
	ok(stream(SP_YM_YAML, "a: &k x\nm: {*k : 1, *k : 2}\n", docs, &nd, NULL) == 0 &&
		   sp_ydoc_check_dups(docs[0], "k.yaml", &err) == 0,
	   "one node used twice as a key is not a duplicate (as before)");
	free_docs(docs, nd);
	ok(stream(SP_YM_YAML, "m:\n  <<: {a: 1}\n  <<: {b: 1}\n", docs, &nd, NULL) == 0 &&
		   sp_ydoc_check_dups(docs[0], "k.yaml", &err) == 0,
	   "merge keys are not duplicates");
	free_docs(docs, nd);

	/* Kubernetes JSON: the items of a List one document each */
	struct items it = {0};
	ok(stream(SP_YM_JSON,
		  "{\"kind\": \"List\", \"items\": [\n{\"name\": \"one\"},\n{\"name\": \"two\"}\n], \"apiVersion\": \"v1\"}\n",
		  docs, &nd, &it) == 0,
	   "a JSON List streams");
	is_int(it.n, 2, "two items passed on");
	is_str(it.names[1], "two", "in order");
	is_int(it.lines[1], 3, "with their lines");
	is_int(nd, 1, "one document");
	ok(get(docs[0]->root, "items") && get(docs[0]->root, "items")->n == 0 && get(docs[0]->root, "apiVersion"),
	   "the List keeps its other members and an empty items sequence");
	free_docs(docs, nd);
	memset(&it, 0, sizeof it);
	ok(stream(SP_YM_JSON, "{\"a\": {\"items\": [{\"name\": \"x\"}]}}\n", docs, &nd, &it) == 0 && it.n == 0,
	   "only the root's items are streamed");
	free_docs(docs, nd);
	ok(stream(SP_YM_JSON, "{\"a\": &x 1}\n", docs, &nd, &it) < 0, "an anchor in JSON");
	is_str(err.msg, "k.yaml:1:7: anchors are not JSON", "is refused");
	free_docs(docs, nd);
	char jdeep[2100] = "";
	for (int i = 0; i < 1002; i++)
		strcat(jdeep, "[");
	ok(stream(SP_YM_JSON, jdeep, docs, &nd, &it) < 0, "JSON deeper than 1000 levels");
	is_str(err.msg, "k.yaml:1:1002: YAML nested deeper than 1000 levels", "is refused");
	free_docs(docs, nd);
	return done_testing();
}
