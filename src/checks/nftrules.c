/* Judging an nftables JSON ruleset (see nftrules.h). The schema is the one
 * libnftables writes (json_schema_version 1): a top-level {"nftables": [..]}
 * of {"table"}, {"chain"} and {"rule"} objects; a rule is a list of
 * statements, {"match": {"op", "left", "right"}} among them, ending (or not)
 * in a verdict. A match this judge does not know only narrows a rule, so
 * ignoring it makes an accept look wider, never narrower, and a drop after
 * any match (known or not) is never taken for the default drop: the verdict
 * errs towards FAIL. Rules iptables-nft wrote carry xt expressions with no
 * parameters in the JSON; their meaning (redirect to :PORT, dnat to
 * ADDR:PORT, ct state, reject) is read from nft's own text listing. */
#include "checks/nftrules.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define MAXV 32

/* what one rule (plus the rules that jumped to its chain) demands */
typedef struct cond {
	bool lo;                 /* oif/oifname "lo" */
	bool replies;            /* ct state limited to established/related */
	size_t nd;
	char daddr[MAXV][64];    /* positive destination addresses */
	bool wide;               /* a destination prefix or range wider than one address */
	size_t np;
	unsigned dport[MAXV];    /* positive destination ports */
	bool anyport;            /* a port range too wide to list */
	int proto;
	bool anymatch; /* the rule (or a rule that jumped here) matches on something: not unconditional */
} cond;

typedef struct judge {
	json_t *items;
	sp_nft_policy *pol;
	sp_nft_report *rep;
} judge;

static void problem(sp_nft_report *rep, const char *fmt, ...) SP_PRINTF(2, 3);
static void problem(sp_nft_report *rep, const char *fmt, ...)
{
	if (rep->nproblem < SP_ARRAY_SIZE(rep->problem)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rep->problem[rep->nproblem], sizeof rep->problem[0], fmt, ap);
		va_end(ap);
	}
	rep->nproblem++;
}

static void unknown(sp_nft_report *rep, const char *fmt, ...) SP_PRINTF(2, 3);
static void unknown(sp_nft_report *rep, const char *fmt, ...)
{
	if (!rep->nunknown) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rep->unknown, sizeof rep->unknown, fmt, ap);
		va_end(ap);
	}
	rep->nunknown++;
}

static bool addr_eq(const char *a, const char *b)
{
	unsigned char x[16], y[16];
	if (inet_pton(AF_INET, a, x) == 1 && inet_pton(AF_INET, b, y) == 1)
		return !memcmp(x, y, 4);
	if (inet_pton(AF_INET6, a, x) == 1 && inet_pton(AF_INET6, b, y) == 1)
		return !memcmp(x, y, 16);
	return false;
}

static bool is_loopback(const char *a)
{
	unsigned char x[16];
	if (inet_pton(AF_INET, a, x) == 1)
		return x[0] == 127;
	static const unsigned char one[16] = {[15] = 1};
	return inet_pton(AF_INET6, a, x) == 1 && !memcmp(x, one, 16);
}

static int proto_of(const char *s)
{
	return !strcmp(s, "tcp") ? SP_NFT_TCP : !strcmp(s, "udp") ? SP_NFT_UDP : -1;
}

int sp_nft_parse_redirect(const char *s, int *proto, unsigned *port)
{
	const char *p = s;
	*proto = SP_NFT_TCP;
	if (!strncmp(s, "tcp/", 4))
		p = s + 4;
	else if (!strncmp(s, "udp/", 4))
		p = s + 4, *proto = SP_NFT_UDP;
	unsigned long long v;
	if (sp_parse_u64(p, &v) < 0 || v == 0 || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

/* one right-hand value of a destination-address match */
static void add_addr(cond *c, json_t *v)
{
	if (json_is_string(v)) {
		if (c->nd < MAXV)
			snprintf(c->daddr[c->nd++], sizeof c->daddr[0], "%s", json_string_value(v));
		else
			c->wide = true;
		return;
	}
	json_t *pf = json_object_get(v, "prefix");
	if (pf) {
		json_t *a = json_object_get(pf, "addr"), *l = json_object_get(pf, "len");
		long long len = json_is_integer(l) ? json_integer_value(l) : -1;
		const char *as = json_is_string(a) ? json_string_value(a) : "";
		bool v6 = strchr(as, ':') != NULL;
		if ((len == 32 && !v6) || (len == 128 && v6)) {
			add_addr(c, a);
			return;
		}
	}
	c->wide = true; /* a prefix, a range, or a form we do not know */
}

static void add_port(cond *c, json_t *v)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 65535) {
		if (c->np < MAXV)
			c->dport[c->np++] = (unsigned)json_integer_value(v);
		else
			c->anyport = true;
		return;
	}
	json_t *r = json_object_get(v, "range");
	if (json_is_array(r) && json_array_size(r) == 2 && json_is_integer(json_array_get(r, 0)) &&
	    json_is_integer(json_array_get(r, 1))) {
		long long lo = json_integer_value(json_array_get(r, 0)), hi = json_integer_value(json_array_get(r, 1));
		if (lo >= 0 && hi <= 65535 && hi >= lo && hi - lo < MAXV) {
			for (long long p = lo; p <= hi && c->np < MAXV; p++)
				c->dport[c->np++] = (unsigned)p;
			return;
		}
	}
	c->anyport = true;
}

/* each element of a value that may be a set */
static void each_value(json_t *right, cond *c, void (*fn)(cond *, json_t *))
{
	json_t *set = json_is_object(right) ? json_object_get(right, "set") : NULL;
	if (json_is_array(set)) {
		size_t i;
		json_t *e;
		json_array_foreach(set, i, e) fn(c, e);
	} else if (json_is_array(right)) {
		size_t i;
		json_t *e;
		json_array_foreach(right, i, e) fn(c, e);
	} else {
		fn(c, right);
	}
}

static bool all_strings_in(json_t *right, const char *const *ok, size_t nok)
{
	json_t *set = json_is_object(right) ? json_object_get(right, "set") : NULL;
	json_t *arr = json_is_array(set) ? set : right;
	if (json_is_string(arr)) {
		for (size_t k = 0; k < nok; k++)
			if (!strcmp(json_string_value(arr), ok[k]))
				return true;
		return false;
	}
	if (!json_is_array(arr) || json_array_size(arr) == 0)
		return false;
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
	{
		bool in = false;
		for (size_t k = 0; k < nok && json_is_string(e); k++)
			in |= !strcmp(json_string_value(e), ok[k]);
		if (!in)
			return false;
	}
	return true;
}

static void add_match(cond *c, json_t *m)
{
	const char *op = json_string_value(json_object_get(m, "op"));
	json_t *left = json_object_get(m, "left"), *right = json_object_get(m, "right");
	if (!op || !left || !right)
		return;
	bool eq = !strcmp(op, "==") || !strcmp(op, "in");
	if (!eq)
		return; /* a negation narrows nothing we could list */
	json_t *meta = json_object_get(left, "meta"), *ct = json_object_get(left, "ct"),
	       *pl = json_object_get(left, "payload");
	const char *key = meta ? json_string_value(json_object_get(meta, "key")) : NULL;
	if (key && (!strcmp(key, "oifname") || !strcmp(key, "oif"))) {
		static const char *const lo[] = {"lo"};
		c->lo = all_strings_in(right, lo, 1);
		return;
	}
	if (key && !strcmp(key, "l4proto") && json_is_string(right)) {
		c->proto = proto_of(json_string_value(right)) > 0 ? proto_of(json_string_value(right)) : c->proto;
		return;
	}
	if (ct && json_string_value(json_object_get(ct, "key")) && !strcmp(json_string_value(json_object_get(ct, "key")), "state")) {
		static const char *const rep[] = {"established", "related"};
		c->replies = all_strings_in(right, rep, 2);
		return;
	}
	if (!pl)
		return;
	const char *proto = json_string_value(json_object_get(pl, "protocol"));
	const char *field = json_string_value(json_object_get(pl, "field"));
	if (!proto || !field)
		return;
	if ((!strcmp(proto, "ip") || !strcmp(proto, "ip6")) && !strcmp(field, "daddr")) {
		each_value(right, c, add_addr);
	} else if (!strcmp(field, "dport") &&
		   (!strcmp(proto, "tcp") || !strcmp(proto, "udp") || !strcmp(proto, "th") || !strcmp(proto, "sctp"))) {
		if (proto_of(proto) > 0)
			c->proto = proto_of(proto);
		each_value(right, c, add_port);
	} else if ((!strcmp(proto, "ip") && !strcmp(field, "protocol")) ||
		   (!strcmp(proto, "ip6") && !strcmp(field, "nexthdr"))) {
		if (json_is_string(right) && proto_of(json_string_value(right)) > 0)
			c->proto = proto_of(json_string_value(right));
	}
}

/* a rule's own conditions on top of the ones it inherits */
static void rule_cond(json_t *expr, const cond *inherited, cond *c)
{
	*c = *inherited;
	/* a rule's own address list replaces (narrows) the inherited one */
	cond own;
	memset(&own, 0, sizeof own);
	size_t i;
	json_t *st;
	json_array_foreach(expr, i, st)
	{
		json_t *m = json_object_get(st, "match");
		if (m)
			add_match(&own, m);
		/* any condition, understood or not (a negation, an xt match), means
		 * a drop after it is no default drop */
		if (m || json_object_get(st, "xt") || json_object_get(st, "limit") || json_object_get(st, "quota"))
			c->anymatch = true;
	}
	c->lo |= own.lo;
	c->replies |= own.replies;
	if (own.nd || own.wide) {
		memcpy(c->daddr, own.daddr, sizeof own.daddr);
		c->nd = own.nd;
		c->wide = own.wide;
	}
	if (own.np || own.anyport) {
		memcpy(c->dport, own.dport, sizeof own.dport);
		c->np = own.np;
		c->anyport = own.anyport;
	}
	if (own.proto)
		c->proto = own.proto;
}

/* the verdict of a rule: "accept", "drop", "reject", "jump", "goto",
 * "return", "vmap" (unjudgeable), or NULL (none: the next rule runs) */
static const char *verdict(json_t *expr, const char **target)
{
	const char *v = NULL;
	*target = NULL;
	size_t i;
	json_t *st;
	json_array_foreach(expr, i, st)
	{
		static const char *const kinds[] = {"accept", "drop", "reject", "jump", "goto", "return", "queue"};
		for (size_t k = 0; k < SP_ARRAY_SIZE(kinds); k++)
			if (json_object_get(st, kinds[k])) {
				v = kinds[k];
				json_t *t = json_object_get(json_object_get(st, kinds[k]), "target");
				*target = json_string_value(t);
			}
		if (json_object_get(st, "vmap"))
			v = "vmap";
	}
	return v;
}

static bool endpoint_allows(const sp_nft_policy *pol, const char *addr, const cond *c)
{
	if (is_loopback(addr))
		return true;
	bool any_entry = false;
	for (size_t k = 0; k < pol->nallow; k++) {
		const sp_nft_endpoint *e = &pol->allow[k];
		if (!addr_eq(e->addr, addr))
			continue;
		any_entry = true;
		if (e->port == 0)
			return true;
	}
	if (!any_entry)
		return false;
	/* the address is allowed on some ports only: the rule must name ports, each allowed */
	if (c->np == 0 || c->anyport)
		return false;
	for (size_t p = 0; p < c->np; p++) {
		bool ok = false;
		for (size_t k = 0; k < pol->nallow && !ok; k++) {
			const sp_nft_endpoint *e = &pol->allow[k];
			ok = addr_eq(e->addr, addr) && e->port == c->dport[p] &&
			     (e->proto == SP_NFT_ANY || c->proto == SP_NFT_ANY || e->proto == c->proto);
		}
		if (!ok)
			return false;
	}
	return true;
}

static void describe_cond(const cond *c, char *out, size_t size)
{
	size_t l = 0;
	out[0] = '\0';
	if (c->wide)
		l += (size_t)snprintf(out + l, size - l, "a destination range");
	for (size_t i = 0; i < c->nd && i < 3 && l < size; i++)
		l += (size_t)snprintf(out + l, size - l, "%s%s", l ? "," : "to ", c->daddr[i]);
	if (!c->wide && c->nd == 0 && l < size)
		l += (size_t)snprintf(out + l, size - l, "any destination");
	if (c->np && l < size)
		l += (size_t)snprintf(out + l, size - l, " %s dport %u%s", c->proto == SP_NFT_UDP ? "udp" : c->proto == SP_NFT_TCP ? "tcp" : "th",
				      c->dport[0], c->np > 1 ? ",..." : "");
	else if (c->anyport && l < size)
		snprintf(out + l, size - l, " a wide port range");
}

/* one line of the listing, [*at, eol), into buf without leading blanks */
static const char *next_line(const char *at, const char *end, char *buf, size_t size)
{
	const char *eol = memchr(at, '\n', (size_t)(end - at));
	if (!eol)
		eol = end;
	while (at < eol && (*at == ' ' || *at == '\t'))
		at++;
	size_t n = (size_t)(eol - at) < size - 1 ? (size_t)(eol - at) : size - 1;
	memcpy(buf, at, n);
	buf[n] = '\0';
	return eol < end ? eol + 1 : end;
}

int sp_nft_listing_rule(const char *listing, size_t len, const char *family, const char *table, const char *chain,
			long long handle, char *out, size_t size)
{
	if (!listing || size == 0)
		return -1;
	const char *at = listing, *end = listing + len;
	char line[1024], fam[32] = "", tab[128] = "", ch[128] = "";
	while (at < end) {
		at = next_line(at, end, line, sizeof line);
		char a[32], b[128];
		if (sscanf(line, "table %31s %127s {", a, b) == 2) {
			snprintf(fam, sizeof fam, "%s", a);
			snprintf(tab, sizeof tab, "%s", b);
			ch[0] = '\0';
			continue;
		}
		if (sscanf(line, "chain %127s {", b) == 1) {
			snprintf(ch, sizeof ch, "%s", b);
			continue;
		}
		char *h = strstr(line, " # handle ");
		if (!h || strcmp(fam, family) || strcmp(tab, table) || strcmp(ch, chain))
			continue;
		char *e;
		long long v = strtoll(h + 10, &e, 10);
		if (e == h + 10 || *e || v != handle)
			continue;
		*h = '\0';
		snprintf(out, size, "%s", line);
		return 0;
	}
	return -1;
}

/* the rule's xt expression of this type ("target", "match"): its name, or NULL */
static const char *xt_name(json_t *expr, const char *type)
{
	size_t i;
	json_t *st;
	json_array_foreach(expr, i, st) {
		json_t *xt = json_object_get(st, "xt");
		const char *t = json_string_value(json_object_get(xt, "type"));
		const char *n = json_string_value(json_object_get(xt, "name"));
		if (t && n && !strcmp(t, type))
			return n;
	}
	return NULL;
}

/* the listing's line for this rule, "" when there is none */
static void rule_text(judge *j, json_t *r, char *out, size_t size)
{
	out[0] = '\0';
	const char *f = json_string_value(json_object_get(r, "family"));
	const char *t = json_string_value(json_object_get(r, "table"));
	const char *c = json_string_value(json_object_get(r, "chain"));
	json_t *h = json_object_get(r, "handle");
	if (f && t && c && json_is_integer(h) &&
	    sp_nft_listing_rule(j->pol->listing, j->pol->listing_len, f, t, c, json_integer_value(h), out, size) < 0)
		out[0] = '\0';
}

/* "ct state related,established" in a rule's text: limited to replies? */
static bool text_replies_only(const char *text)
{
	const char *s = strstr(text, "ct state ");
	if (!s)
		return false;
	char states[200];
	if (sscanf(s + 9, "%199s", states) != 1 || !strncmp(states, "!=", 2))
		return false;
	char *save = NULL;
	for (char *w = strtok_r(states, ",{}", &save); w; w = strtok_r(NULL, ",{}", &save))
		if (strcmp(w, "established") && strcmp(w, "related"))
			return false;
	return true;
}

static json_t *find_chain_rules(judge *j, const char *family, const char *table, const char *chain)
{
	json_t *rules = json_array();
	size_t i;
	json_t *it;
	json_array_foreach(j->items, i, it)
	{
		json_t *r = json_object_get(it, "rule");
		if (!r)
			continue;
		const char *f = json_string_value(json_object_get(r, "family"));
		const char *t = json_string_value(json_object_get(r, "table"));
		const char *c = json_string_value(json_object_get(r, "chain"));
		if (f && t && c && !strcmp(f, family) && !strcmp(t, table) && !strcmp(c, chain))
			json_array_append(rules, r);
	}
	return rules;
}

/* Walk a chain of a default-drop output path: judge every accept. Returns
 * true when the chain ends in an unconditional drop/reject (for a chain
 * whose policy is accept, that makes it default-drop). */
static bool walk_filter(judge *j, const char *family, const char *table, const char *chain, const cond *inherited,
			int depth)
{
	if (depth > 8) {
		unknown(j->rep, "jumps nested deeper than 8 chains in %s %s", family, table);
		return false;
	}
	json_t *rules = find_chain_rules(j, family, table, chain);
	bool final_drop = false;
	size_t i;
	json_t *r;
	json_array_foreach(rules, i, r)
	{
		json_t *expr = json_object_get(r, "expr");
		if (!json_is_array(expr))
			continue;
		long long handle = json_integer_value(json_object_get(r, "handle"));
		const char *target = NULL, *v = verdict(expr, &target);
		cond c;
		rule_cond(expr, inherited, &c);
		/* iptables-nft: a conntrack/state match and a REJECT target are xt
		 * expressions; their meaning is in the listing's text */
		const char *xm = xt_name(expr, "match"), *xtg = xt_name(expr, "target");
		if ((xm && (!strcmp(xm, "conntrack") || !strcmp(xm, "state"))) || (xtg && !v)) {
			char text[1024];
			rule_text(j, r, text, sizeof text);
			if (xm && text_replies_only(text))
				c.replies = true;
			if (xtg && !v && !strcmp(xtg, "REJECT"))
				v = "reject";
		}
		bool unconditional = c.nd == 0 && !c.wide && c.np == 0 && !c.anyport && !c.lo && !c.replies && !c.proto &&
				     !c.anymatch;
		if (!v)
			continue;
		if (!strcmp(v, "vmap") || !strcmp(v, "queue")) {
			unknown(j->rep, "rule %lld in %s %s %s uses a %s verdict", handle, family, table, chain,
				!strcmp(v, "vmap") ? "verdict map" : "queue");
			continue;
		}
		if ((!strcmp(v, "jump") || !strcmp(v, "goto")) && target) {
			bool ends = walk_filter(j, family, table, target, &c, depth + 1);
			if (!strcmp(v, "goto") && ends && unconditional)
				final_drop = true;
			continue;
		}
		if ((!strcmp(v, "drop") || !strcmp(v, "reject")) && unconditional) {
			final_drop = true;
			break; /* nothing after it runs */
		}
		if (!strcmp(v, "return") && unconditional)
			break;
		if (strcmp(v, "accept"))
			continue;
		j->rep->accepts++;
		bool ok = c.lo || c.replies;
		if (!ok && !c.wide && c.nd > 0) {
			ok = true;
			for (size_t k = 0; k < c.nd && ok; k++)
				ok = endpoint_allows(j->pol, c.daddr[k], &c);
		}
		if (ok) {
			j->rep->accepts_ok++;
		} else {
			char d[160];
			describe_cond(&c, d, sizeof d);
			problem(j->rep, "rule %lld in %s %s %s accepts %s, which is not the proxy or the resolver", handle,
				family, table, chain, d);
		}
	}
	json_decref(rules);
	return final_drop;
}

/* does a redirect to local port `port` (0: the packet's own) land on an
 * allowed endpoint of the sandbox itself? */
static bool local_port_allowed(const sp_nft_policy *pol, unsigned port, int proto)
{
	for (size_t k = 0; k < pol->nallow; k++) {
		const sp_nft_endpoint *e = &pol->allow[k];
		if (e->local && e->port == port && (e->proto == SP_NFT_ANY || proto == SP_NFT_ANY || e->proto == proto))
			return true;
	}
	return false;
}

/* where a nat rule sends its packets */
typedef struct nat_to {
	bool found;    /* the rule is a redirect or dnat */
	bool local;    /* redirect: to a local port */
	char addr[64]; /* dnat: the address */
	unsigned port; /* 0: the packet's own port */
	char unknown[160];
} nat_to;

/* "redirect to :8443", "redirect", "dnat to 10.0.0.1:3128", "dnat ip to
 * 10.0.0.1", "dnat to [fd00::1]:443": what nft's listing says an xt target does */
static void nat_from_text(const char *text, nat_to *t)
{
	const char *r = strstr(text, "redirect");
	const char *d = strstr(text, "dnat ");
	if (r && (r[8] == '\0' || r[8] == ' ')) {
		t->local = true;
		const char *to = strstr(r, "to :");
		unsigned long v = to ? strtoul(to + 4, NULL, 10) : 0;
		t->port = v <= 65535 ? (unsigned)v : 0;
		t->found = true;
		return;
	}
	if (!d)
		return;
	const char *to = strstr(d, " to ");
	if (!to)
		return;
	char a[80];
	if (sscanf(to + 4, "%79s", a) != 1)
		return;
	char *port = NULL;
	if (a[0] == '[') {
		char *close = strchr(a, ']');
		if (!close)
			return;
		*close = '\0';
		port = close[1] == ':' ? close + 2 : NULL;
		memmove(a, a + 1, strlen(a + 1) + 1);
	} else if (strchr(a, ':') == strrchr(a, ':') && strchr(a, ':')) {
		port = strchr(a, ':');
		*port++ = '\0';
	}
	unsigned long v = port ? strtoul(port, NULL, 10) : 0;
	snprintf(t->addr, sizeof t->addr, "%s", a);
	t->port = v <= 65535 ? (unsigned)v : 0;
	t->found = true;
}

static void nat_target(judge *j, json_t *r, json_t *expr, nat_to *t)
{
	memset(t, 0, sizeof *t);
	size_t k;
	json_t *st;
	json_array_foreach(expr, k, st) {
		json_t *red = json_object_get(st, "redirect"), *dn = json_object_get(st, "dnat");
		if (red) {
			json_t *port = json_object_get(red, "port");
			long long v = json_is_integer(port) ? json_integer_value(port) : 0;
			t->found = t->local = true;
			t->port = v > 0 && v <= 65535 ? (unsigned)v : 0;
			if (port && !json_is_integer(port))
				snprintf(t->unknown, sizeof t->unknown, "a redirect to a port range or map");
		} else if (dn) {
			const char *a = json_string_value(json_object_get(dn, "addr"));
			json_t *port = json_object_get(dn, "port");
			long long v = json_is_integer(port) ? json_integer_value(port) : 0;
			t->found = true;
			snprintf(t->addr, sizeof t->addr, "%s", a ? a : "");
			t->port = v > 0 && v <= 65535 ? (unsigned)v : 0;
			if (!a || (port && !json_is_integer(port)))
				snprintf(t->unknown, sizeof t->unknown, "a dnat to an address or port range or map");
		}
	}
	const char *xtg = xt_name(expr, "target");
	if (t->found || !xtg || (strcmp(xtg, "REDIRECT") && strcmp(xtg, "DNAT")))
		return;
	char text[1024];
	rule_text(j, r, text, sizeof text);
	nat_from_text(text, t);
	if (!t->found) {
		t->found = true;
		snprintf(t->unknown, sizeof t->unknown, "an iptables-nft %s target whose destination %s", xtg,
			 j->pol->listing ? "nft's listing does not show" : "only nft's text listing shows (not read)");
	}
}

static void judge_redirects(judge *j, const char *family, const char *table, const char *chain)
{
	json_t *rules = find_chain_rules(j, family, table, chain);
	size_t i;
	json_t *r;
	json_array_foreach(rules, i, r)
	{
		json_t *expr = json_object_get(r, "expr");
		if (!json_is_array(expr))
			continue;
		cond none, c;
		memset(&none, 0, sizeof none);
		rule_cond(expr, &none, &c);
		nat_to t;
		nat_target(j, r, expr, &t);
		if (!t.found)
			continue;
		/* a redirect limited to some destinations is no catch-all */
		if (c.nd || c.wide)
			continue;
		long long handle = json_integer_value(json_object_get(r, "handle"));
		for (size_t q = 0; q < j->pol->nredirect; q++) {
			sp_nft_redirect *want = &j->pol->redirect[q];
			if (want->covered)
				continue;
			if (c.proto && c.proto != want->proto)
				continue;
			bool port_in = c.np == 0 && !c.anyport;
			for (size_t p = 0; p < c.np && !port_in; p++)
				port_in = c.dport[p] == want->port;
			if (!port_in)
				continue;
			want->covered = true;
			if (t.unknown[0]) {
				unknown(j->rep, "rule %lld in %s %s %s: %s", handle, family, table, chain, t.unknown);
				snprintf(want->to, sizeof want->to, "unknown");
				continue;
			}
			unsigned port = t.port ? t.port : want->port;
			want->to_port = port;
			snprintf(want->to_addr, sizeof want->to_addr, "%s", t.local ? "" : t.addr);
			if (t.local) {
				snprintf(want->to, sizeof want->to, "local port %u", port);
				want->target_ok = local_port_allowed(j->pol, port, want->proto);
			} else {
				snprintf(want->to, sizeof want->to, strchr(t.addr, ':') ? "[%s]:%u" : "%s:%u", t.addr, port);
				cond tc;
				memset(&tc, 0, sizeof tc);
				tc.np = 1;
				tc.dport[0] = port;
				tc.proto = want->proto;
				/* a dnat to loopback is a redirect to a local port */
				want->target_ok = is_loopback(t.addr) ? local_port_allowed(j->pol, port, want->proto)
								      : endpoint_allows(j->pol, t.addr, &tc);
			}
		}
	}
	json_decref(rules);
}

int sp_nft_judge(const char *text, size_t len, sp_nft_policy *pol, sp_nft_report *rep, sp_outcome *o)
{
	memset(rep, 0, sizeof *rep);
	for (size_t q = 0; q < pol->nredirect; q++) {
		pol->redirect[q].covered = pol->redirect[q].target_ok = false;
		pol->redirect[q].to[0] = pol->redirect[q].to_addr[0] = '\0';
		pol->redirect[q].to_port = 0;
	}
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		return sp_why(o, "not JSON (line %d: %s)", je.line, je.text);
	}
	json_t *items = json_object_get(root, "nftables");
	if (!json_is_array(items)) {
		json_decref(root);
		return sp_why(o, "not an nftables ruleset (no \"nftables\" array)");
	}
	judge j = {.items = items, .pol = pol, .rep = rep};
	size_t i;
	json_t *it;
	json_array_foreach(items, i, it)
	{
		rep->tables += json_object_get(it, "table") != NULL;
		rep->rules += json_object_get(it, "rule") != NULL;
		json_t *ch = json_object_get(it, "chain");
		if (!ch)
			continue;
		rep->chains++;
		const char *family = json_string_value(json_object_get(ch, "family"));
		const char *table = json_string_value(json_object_get(ch, "table"));
		const char *name = json_string_value(json_object_get(ch, "name"));
		const char *type = json_string_value(json_object_get(ch, "type"));
		const char *hook = json_string_value(json_object_get(ch, "hook"));
		const char *policy = json_string_value(json_object_get(ch, "policy"));
		if (!family || !table || !name || !type || !hook || strcmp(hook, "output"))
			continue;
		bool v4 = !strcmp(family, "ip") || !strcmp(family, "inet");
		bool v6 = !strcmp(family, "ip6") || !strcmp(family, "inet");
		if (!strcmp(type, "nat")) {
			if (v4 || v6)
				judge_redirects(&j, family, table, name);
			continue;
		}
		if (strcmp(type, "filter") || (!v4 && !v6))
			continue;
		cond none;
		memset(&none, 0, sizeof none);
		bool drop = policy && !strcmp(policy, "drop");
		/* a default-accept chain matters only when it ends in a drop */
		size_t before_acc = rep->accepts, before_ok = rep->accepts_ok, before_pr = rep->nproblem,
		       before_unk = rep->nunknown;
		bool ends = walk_filter(&j, family, table, name, &none, 0);
		if (!drop && !ends) {
			/* its accepts widen nothing: another chain must drop */
			rep->accepts = before_acc;
			rep->accepts_ok = before_ok;
			rep->nproblem = before_pr;
			rep->nunknown = before_unk;
			continue;
		}
		rep->drop_v4 |= v4;
		rep->drop_v6 |= v6;
		if (!rep->drop_chain[0])
			snprintf(rep->drop_chain, sizeof rep->drop_chain, "%s %s %s", family, table, name);
	}
	if (!rep->drop_v4)
		problem(rep, "no output filter chain for IPv4 drops by default: anything not redirected leaves");
	if (pol->need_v6 && !rep->drop_v6)
		problem(rep, "no output filter chain for IPv6 drops by default (the sandbox has IPv6 addresses)");
	for (size_t q = 0; q < pol->nredirect; q++) {
		const sp_nft_redirect *w = &pol->redirect[q];
		if (!w->covered)
			problem(rep, "no redirect (dnat or redirect in an output nat chain) for %s/%u",
				w->proto == SP_NFT_UDP ? "udp" : "tcp", w->port);
		else if (!w->target_ok)
			problem(rep, "the redirect for %s/%u goes to %s, which is not the proxy or the resolver",
				w->proto == SP_NFT_UDP ? "udp" : "tcp", w->port, w->to);
	}
	json_decref(root);
	return 0;
}
