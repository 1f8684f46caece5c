/* The network probe engine behind the net.* checks: address parsing (every
 * textual IPv4 form a resolver accepts), errno classification, a minimal DNS
 * client over UDP (the static doctor cannot rely on NSS), and one parallel
 * run of many non-blocking socket probes and forked helper probes, each with
 * its own deadline. Nothing here prints; results are data. */
#ifndef SP_NET_PROBE_H
#define SP_NET_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "core/netio.h" /* sockets with a deadline */
#include "core/outcome.h"

/* How a probe ended. A refusal (RST, ICMP port unreachable) means a packet
 * left and an answer came back: that is a leak, like a completed connect. */
typedef enum sp_netclass {
	SP_NC_PENDING,
	SP_NC_CONNECTED,   /* TCP handshake completed */
	SP_NC_REPLIED,     /* UDP answer received */
	SP_NC_REFUSED,     /* ECONNREFUSED/ECONNRESET: a packet went and came back */
	SP_NC_UNREACH,     /* ENETUNREACH/EHOSTUNREACH/EADDRNOTAVAIL: no path */
	SP_NC_TIMEOUT,     /* nothing came back before the probe's deadline */
	SP_NC_FILTERED,    /* EPERM/EACCES: a local filter (netfilter, seccomp, LSM) */
	SP_NC_NOFAMILY,    /* EAFNOSUPPORT/EPROTONOSUPPORT/ENOSYS: family or call unavailable */
	SP_NC_ERROR,       /* anything else: the probe itself could not run */
} sp_netclass;

const char *sp_netclass_name(sp_netclass c);
/* a packet reached something and an answer came back */
bool sp_netclass_leaked(sp_netclass c);
/* the probe proves the path is closed */
bool sp_netclass_blocked(sp_netclass c);
/* Classify an errno from socket/connect/send/recv. */
sp_netclass sp_net_classify_errno(int e);

/* Parse an IPv4 address in any form inet_aton(3) accepts (a.b.c.d, a.b.c,
 * a.b, a; each part decimal, 0octal or 0xhex). Returns 0 and the address in
 * host byte order, or -1. Written here so the doctor decodes exactly what a
 * permissive client would, independent of libc. */
int sp_net_parse_ipv4_any(const char *s, uint32_t *out);
/* The textual forms of an IPv4 address used for direct-IP probes. */
typedef enum sp_ipform {
	SP_IPF_DOTTED,  /* 10.203.0.1 */
	SP_IPF_OCTAL,   /* 012.0313.00.01 */
	SP_IPF_HEX,     /* 0x0a.0xcb.0x00.0x01 */
	SP_IPF_INTEGER, /* 181075969 */
	SP_IPF_HEXINT,  /* 0x0acb0001 */
	SP_IPF_MAPPED,  /* ::ffff:10.203.0.1 (IPv6 socket, IPv4 packets) */
	SP_IPF_COUNT,
} sp_ipform;
const char *sp_ipform_name(sp_ipform f);
void sp_ipv4_format(uint32_t addr, sp_ipform f, char *buf, size_t size);

/* Parse "a.b.c.d:port", "[v6]:port" (IP literals only; a bare host without
 * a port gets defport, or is an error when defport is 0). Returns 0 or -1
 * with o's reason. */
int sp_net_parse_hostport(const char *s, int defport, struct sockaddr_storage *sa, socklen_t *salen, sp_outcome *o);
/* A port, 1 to 65535 in decimal: 0 or -1. */
int sp_net_parse_port(const char *s, unsigned *port);
/* Parse "host[:port]" where host is a DNS name, an IPv4 literal or a
 * bracketed IPv6 literal ("[::1]:443"); a missing port is defport. The host
 * goes to host (without brackets). Returns 0, or -1 with o's reason. */
int sp_net_parse_name_port(const char *s, unsigned defport, char *host, size_t hsz, unsigned *port, sp_outcome *o);
/* A DNS name a query can carry: labels of 1 to 63 letters, digits, '-' or
 * '_', 253 characters at most (a final '.' allowed). 0, or -1 with o's reason. */
int sp_dns_name_check(const char *name, sp_outcome *o);
/* an IP literal (IPv4 dotted or IPv6) in its canonical text form (inet_ntop):
 * 0, or -1 with o's reason */
int sp_net_parse_ip(const char *s, char *canon, size_t size, sp_outcome *o);
/* "IP:PORT", or a bare "IP" / "[v6]" meaning every port (*anyport): 0, or
 * -1 with o's reason (net.transparent.allow) */
int sp_net_parse_endpoint(const char *s, struct sockaddr_storage *sa, socklen_t *salen, bool *anyport, sp_outcome *o);
/* the most names net.dns.unlisted is queried for */
#define SP_DNS_MAX_NAMES 4
/* the most addresses one egress list (deny, allow, dns, metadata, targets) is probed at */
#define SP_NET_MAX_TARGETS 16

/* Is the address one of this network namespace's own (loopback, or
 * assigned to an interface here)? Decided by bind(2) to it, which the
 * kernel allows only for a local address; nothing is sent. */
bool sp_net_addr_is_own(const struct sockaddr *sa);
/* "10.0.0.1:80" / "[::1]:80" */
void sp_net_format_sa(const struct sockaddr *sa, char *buf, size_t size);
/* Is the address loopback, private, link-local or otherwise not public? */
bool sp_net_addr_is_internal(const struct sockaddr *sa);

/* DNS over UDP. Build a query (RD set) for name and qtype (1 = A,
 * 28 = AAAA); returns its length or -1 when the name is invalid. */
int sp_dns_build_query(uint8_t *buf, size_t size, uint16_t id, const char *name, uint16_t qtype);
typedef struct sp_dns_answer {
	int rcode;          /* 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN, 5 REFUSED ... */
	unsigned nanswers;  /* A/AAAA records found */
	bool truncated;     /* TC: the answer did not fit (UDP): ask again over TCP */
	char addrs[4][64];  /* up to 4 addresses, text */
} sp_dns_answer;
/* Parse a reply to the query with this id; 0, or -1 when malformed. */
int sp_dns_parse_reply(const uint8_t *buf, size_t len, uint16_t id, sp_dns_answer *out);

/* One socket probe. TCP without a payload: connect only, nothing sent.
 * TCP with a payload (a DNS query with its 2-byte length prefix): connect,
 * send it, read one length-prefixed reply into reply (without the prefix;
 * REPLIED when whole, CONNECTED when the peer closed or went silent after
 * the connect). UDP (and ICMP echo on an unprivileged ping socket):
 * connect, send the payload, wait for one datagram. */
typedef struct sp_netprobe {
	const char *check;        /* id of the check that reports it */
	char label[112];          /* how it is shown: "tcp 10.0.0.1:80 (octal 012.0.0.01)" */
	struct sockaddr_storage sa;
	socklen_t salen;
	int socktype;             /* SOCK_STREAM or SOCK_DGRAM */
	int proto;                /* 0, or IPPROTO_ICMP/IPPROTO_ICMPV6 for a ping socket */
	uint8_t payload[300];
	size_t plen;
	unsigned timeout_ms;
	bool decided;             /* result set before the run: the engine skips it */
	/* results */
	sp_netclass cls;
	int err;                  /* errno behind cls (0 when connected/replied) */
	uint64_t elapsed_us;
	uint8_t reply[512];
	size_t rlen;
	size_t rwant;        /* TCP with a payload: the reply's length from its prefix (0 unknown); more than
			      * reply holds when the reply was cut (rlen < rwant with cls REPLIED) */
	bool own_dest;       /* the target is an address of this sandbox (loopback or its own): nothing left */
	char refused_by[64]; /* UDP refusal: the ICMP error's sender, when the kernel says ("" unknown) */
	bool local_refusal;  /* refused by this sandbox's own stack (own_dest, or refused_by is its own) */
	/* engine state */
	int fd;
	bool sent;      /* TCP with a payload: sent, now reading */
	uint8_t pfx[2]; /* TCP with a payload: the reply's length prefix */
	size_t pgot;
	uint64_t start_ns, deadline_ns;
} sp_netprobe;

/* a probe result that proves a packet left this sandbox and something
 * outside answered: connected, replied or refused, and neither the target
 * nor the refusal is the sandbox's own */
bool sp_netprobe_reached_outside(const sp_netprobe *p);

/* A forked probe: fn runs in a child and writes outsz bytes of result to
 * fd; the engine collects them into out (done = whole result read). */
typedef struct sp_netchild {
	int (*fn)(void *arg, int fd);
	void *arg;
	void *out;
	size_t outsz;
	unsigned timeout_ms;
	/* results */
	bool started, done, timed_out;
	int start_err;            /* fork/pipe errno, 0 when started */
	uint64_t elapsed_us;
	/* engine state */
	pid_t pid;
	int fd;
	size_t got;
	uint64_t start_ns, deadline_ns;
} sp_netchild;

/* Start every probe and child at once and wait until each has an answer or
 * has reached its own deadline. Every socket is closed and every child
 * reaped before it returns. */
void sp_net_run_parallel(sp_netprobe *p, size_t n, sp_netchild *c, size_t nc);

/* A route lookup: a UDP connect() to addr port 9, which sends nothing.
 * 0 when the address is routable, else -1 with o (o->errnum: why not). */
int sp_net_route_lookup(int af, const char *addr, sp_outcome *o);

#endif
