/* Proxy-aware egress probes (net.proxy.*): HTTP requests through the
 * sandbox's declared HTTP proxy, or through a SOCKS5 tunnel when the proxy is
 * socks5:// (or socks5h://), each run in a forked child by the parallel
 * engine, judged from the client's view and, where the policy names an HTTP
 * proxy's access log, from the log. */
#ifndef SP_NET_PROXY_H
#define SP_NET_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "checks/net_probe.h"
#include "core/check.h"

/* What one proxied request saw (written by the child through a pipe). */
typedef enum sp_pverdict {
	SP_PV_NONE,      /* not run / no answer */
	SP_PV_REACHED,   /* the origin answered (or a tunnel opened and carried bytes) */
	SP_PV_DENIED,    /* the proxy refused (4xx it generated, or it closed the request) */
	SP_PV_UPSTREAM,  /* the proxy tried and could not reach the target (5xx) */
	SP_PV_PROXYDOWN, /* could not talk to the proxy at all */
	SP_PV_TIMEOUT,   /* no answer before the deadline */
	SP_PV_ERROR,
} sp_pverdict;

typedef struct sp_preq_out {
	sp_pverdict verdict;
	int status;            /* HTTP status, 0 if none */
	int err;               /* errno of a transport failure */
	unsigned long long body_sent;
	char note[200];        /* "403 X-Squid-Error: ERR_ACCESS_DENIED 0" */
} sp_preq_out;

typedef enum sp_pkind {
	SP_PK_GET,
	SP_PK_POST,
	SP_PK_PUT,
	SP_PK_POST_LARGE,      /* Content-Length body of body_bytes */
	SP_PK_POST_LATE,       /* chunked body of body_bytes sent after late_ms */
	SP_PK_CONNECT,         /* CONNECT target: 200 = tunnel opened */
	SP_PK_CONNECT_NONTLS,  /* CONNECT, then plain HTTP bytes through the tunnel */
} sp_pkind;

typedef struct sp_preq {
	const char *check;      /* check id that reports it */
	sp_pkind kind;
	char target[160];       /* host[:port] for the request line */
	char label[160];        /* shown in observed */
	char marker[64];        /* unique path segment, found again in the access log */
	char canon[80];         /* CONNECT target as a proxy logs it (dotted IPv4), or "" */
	bool positive;          /* a positive control: must be REACHED */
	bool socks;             /* through a SOCKS5 tunnel, the request in origin form */
	/* config copied in for the child */
	struct sockaddr_storage proxy;
	socklen_t proxylen;
	unsigned long long body_bytes;
	unsigned late_ms;
	unsigned timeout_ms;
	sp_preq_out out;
	/* access-log verdict: -1 not looked, 0 no entry, 1 deny entry, 2 allow entry */
	int log_seen;
	char log_line[160];
} sp_preq;

typedef struct sp_proxy_plan {
	bool configured;        /* a proxy is named (policy or environment) */
	char source[64];        /* "net.proxy" or "HTTPS_PROXY" */
	bool socks;             /* a SOCKS5 proxy: every request is a tunnel first */
	char url[160];
	char error[300];        /* config problem: every proxy check errors with it */
	struct sockaddr_storage proxy;
	socklen_t proxylen;
	sp_preq *req;
	size_t n;
	sp_netchild *child;
	const char *access_log;
	long long log_offset;   /* size of the log before the run, -1 unreadable */
	char log_error[200];
} sp_proxy_plan;

/* Build the requests from the policy (skipping checks that are off). */
/* the most hosts net.proxy.allowed_hosts and .readonly_hosts may name (each
 * read-only host is probed with POST and PUT) */
#define SP_PROXY_MAX_HOSTS 8
void sp_proxy_plan_build(const sp_ctx *ctx, sp_proxy_plan *pl, unsigned timeout_ms);
/* After the parallel run: read the access log and attach entries. */
void sp_proxy_plan_collect(sp_proxy_plan *pl);
/* Judge one net.proxy.* check from the plan. */
void sp_proxy_judge(const sp_ctx *ctx, const sp_proxy_plan *pl, const char *check, sp_result *r);
void sp_proxy_plan_free(sp_proxy_plan *pl);

/* Parse the head of an HTTP response; returns the status or -1. */
int sp_http_status(const char *head);

#endif
