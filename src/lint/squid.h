/* squid.conf as far as egress policy goes: acl, http_access, http_port,
 * ssl_bump, include. The evaluator answers "would squid forward METHOD to
 * HOST?" by walking http_access in order as squid does. Client-side ACLs
 * (src, localhost, proxy_auth, ...) are assumed to match the sandbox; ACL
 * types that depend on what a static reader cannot know (dst needs DNS) never
 * match. */
#ifndef SP_LINT_SQUID_H
#define SP_LINT_SQUID_H

#include <regex.h>

#include "lint/lint.h"
#include "lint/strmap.h"

struct squid_acl {
	char *name;
	char *type;
	bool icase;
	sp_strv vals;
	unsigned line;
	regex_t *re; /* dstdom_regex, url_regex: compiled once */
	size_t nre;
};

struct squid_term {
	char *acl;
	bool neg;
};

struct squid_access {
	bool allow;
	struct squid_term *t;
	size_t nt;
	unsigned line;
	char *text;
};

struct squid_port {
	char *addr; /* "" when listening on every address */
	unsigned port;
	unsigned line;
};

struct sp_squid {
	struct squid_acl *acls;
	size_t nacls;
	struct squid_access *acc;
	size_t nacc;
	struct squid_port *ports;
	size_t nports;
	bool ssl_bump;
	sp_lint_strmap dom; /* dstdomain value (".example.com" or "host") -> acl indexes */
	/* the dstdomain acls of the last host looked up (a host is evaluated
	 * for several methods in a row) */
	char *memo_host;
	int *memo_acls;
	size_t memo_n;
};

/* Would squid forward method to host:port? *line gets the deciding
 * http_access line (0: the implicit default). */
bool sp_squid_allows(const struct sp_squid *s, const char *host, const char *method, unsigned port, unsigned *line);
/* the first dstdomain ACL that names host (NULL when none) */
const struct squid_acl *sp_squid_dstdomain_for(const struct sp_squid *s, const char *host);

#endif
