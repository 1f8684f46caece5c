/* Judging an nftables ruleset (the JSON of `nft -j list ruleset`) against
 * what a transparent-egress sandbox must have: output default-drop, every
 * accept limited to loopback, replies, or the addresses the policy allows
 * (the proxy, the resolver), and a redirect (dnat or redirect) for each
 * protocol/port the policy names. Unreadable or unknown constructs count
 * against the ruleset (never a pass by omission). A pure function, fuzzed
 * (tests/fuzz/fuzz_nft.c). */
#ifndef SP_NFTRULES_H
#define SP_NFTRULES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/outcome.h"

enum { SP_NFT_ANY = 0, SP_NFT_TCP = 6, SP_NFT_UDP = 17 };

typedef struct sp_nft_endpoint {
	char addr[64];   /* an IPv4 or IPv6 address as text (inet_pton form) */
	unsigned port;   /* 0: any port */
	int proto;       /* SP_NFT_ANY, SP_NFT_TCP, SP_NFT_UDP */
	char what[24];   /* "proxy", "resolver", "net.transparent.allow" */
	bool local;      /* an address of the sandbox itself: a redirect (to a local port) may land there */
} sp_nft_endpoint;

typedef struct sp_nft_redirect {
	int proto;       /* SP_NFT_TCP or SP_NFT_UDP */
	unsigned port;
	/* results */
	bool covered;
	char to[80];     /* "10.0.0.1:3128", "local port 3129" */
	char to_addr[64]; /* dnat: the address ("" for a redirect to a local port) */
	unsigned to_port; /* the port the packets land on */
	bool target_ok;  /* goes to an allowed endpoint (or a local port) */
} sp_nft_redirect;

/* the most redirects a policy may demand (net.transparent.redirect) */
#define SP_NFT_MAX_REDIRECTS 16

typedef struct sp_nft_policy {
	sp_nft_endpoint allow[32];
	size_t nallow;
	sp_nft_redirect redirect[SP_NFT_MAX_REDIRECTS];
	size_t nredirect;
	bool need_v6;    /* the sandbox has IPv6 beyond loopback: ip6 output must drop too */
	/* `nft -a list ruleset` (text, rules end in "# handle N"), or NULL: how
	 * rules written by iptables-nft read (their xt targets and matches carry
	 * no parameters in the JSON; nft translates them in the text) */
	const char *listing;
	size_t listing_len;
} sp_nft_policy;

typedef struct sp_nft_report {
	size_t tables, chains, rules;
	bool drop_v4, drop_v6;      /* an output filter chain drops by default (or ends in a drop) */
	char drop_chain[96];        /* "inet sp out" */
	size_t accepts, accepts_ok;
	size_t nproblem;
	char problem[8][220];       /* each way the ruleset is wider than the policy */
	size_t nunknown;
	char unknown[220];          /* a construct that cannot be judged (first one) */
} sp_nft_report;

/* Parse and judge. Returns 0 (the report says what it found), or -1 when
 * the text is not an nftables JSON ruleset (o says what is wrong). */
int sp_nft_judge(const char *text, size_t len, sp_nft_policy *pol, sp_nft_report *rep, sp_outcome *o);
/* The line of rule HANDLE in chain CHAIN of table FAMILY TABLE in a
 * `nft -a list ruleset` listing, without its "# handle N": 0, or -1 when
 * the listing has no such rule. */
int sp_nft_listing_rule(const char *listing, size_t len, const char *family, const char *table, const char *chain,
			long long handle, char *out, size_t size);
/* "tcp/443", "udp/53" or "443" (tcp) -> proto and port; 0 or -1 */
int sp_nft_parse_redirect(const char *s, int *proto, unsigned *port);

#endif
