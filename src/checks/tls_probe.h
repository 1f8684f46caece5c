/* TLS client probes (mbedTLS, linked statically into the doctor): a
 * handshake to a host, through an HTTP proxy's CONNECT tunnel or straight to
 * an address, verified against the trust store the sandbox's clients read,
 * with the chain checked against the CA the policy names; then one HTTP
 * request inside. Also plain HTTP to an address (for transparent-proxy
 * probes) and the certificate helpers the tls.* checks share. A probe runs
 * in a child of the parallel network engine (net_probe.h) and hands back one
 * fixed-size sp_tls_out. Nothing here prints. */
#ifndef SP_TLS_PROBE_H
#define SP_TLS_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "core/outcome.h"
#include "core/util.h"

/* How far a probe got. */
typedef enum sp_tls_stage {
	SP_TS_NONE,      /* could not connect (to the proxy, or to the address) */
	SP_TS_TCP,       /* TCP connected */
	SP_TS_TUNNEL,    /* the proxy answered CONNECT with 200 */
	SP_TS_HANDSHAKE, /* TLS handshake completed (verified or not: see verify) */
	SP_TS_HTTP,      /* an HTTP answer came back (inside TLS, or plain) */
} sp_tls_stage;

typedef struct sp_tls_out {
	sp_tls_stage stage;
	int err;               /* errno of a transport failure, 0 otherwise */
	int connect_status;    /* the proxy's answer to CONNECT (0: no proxy, or none); for
	                        * SOCKS5: 200 opened, 403 refused by its rules (reply 2),
	                        * 502 it tried the host and failed (replies 3-6), 500 other */
	int http_status;       /* status of the answer to the request, 0 if none */
	long verify;           /* mbedTLS verify flags (0: verified), -1 no handshake */
	bool issued_by_ca;     /* a certificate the server sent is signed by the policy's CA */
	bool anchor_is_ca;     /* the verified chain ends at the policy's CA */
	bool closed;           /* the peer closed (or reset) the connection without an answer */
	char fail[200];        /* what stopped the probe, for observed */
	char leaf[200];        /* "CN=x, issued by CN=y" */
	char anchor[24];       /* first 16 hex digits of the verified chain's anchor's SHA-256 */
	char head[160];        /* first line and Server/Via of the HTTP answer */
} sp_tls_out;

/* The trust configuration probes verify against (built once, read by the
 * forked children). */
typedef struct sp_tls_trust {
	sp_strv store;         /* bundle files the verification loads */
	void *ca;              /* mbedtls_x509_crt *: the policy's CA certificates (may be empty) */
	sp_strv fpr;           /* the CA's SHA-256 fingerprints, 64 lowercase hex digits */
} sp_tls_trust;

typedef struct sp_tls_req {
	const char *check;     /* id of the check that reports it */
	char label[160];       /* "CONNECT api.test:443 via proxy" */
	char host[128];        /* name for SNI, verification, Host: ("" = address only) */
	unsigned port;
	bool tls;              /* false: plain HTTP (GET / with Host:) */
	bool via_proxy;        /* CONNECT host:port through the proxy at addr */
	bool socks;            /* the proxy speaks SOCKS5 (the name sent as a name), not HTTP */
	bool positive;         /* positive control */
	struct sockaddr_storage addr; /* the proxy, or the target itself */
	socklen_t addrlen;
	unsigned timeout_ms;
	const sp_tls_trust *trust;
	sp_tls_out out;
} sp_tls_req;

/* The child body for sp_netchild.fn: arg is an sp_tls_req *, its out is
 * written to fd. */
int sp_tls_child(void *arg, int fd);
/* Run one request here (what the child does), filling q->out. */
void sp_tls_run(sp_tls_req *q);

/* Load the certificates of a PEM file (a bundle or one CA). Returns a
 * chain (mbedtls_x509_crt *, at least one) or NULL with *err set (errno, or
 * EBADMSG for a file with no certificate that parses). */
void *sp_tls_load_certs(const char *path, int *err);
void sp_tls_free_certs(void *certs);
size_t sp_tls_count(const void *certs);
/* SHA-256 of certificate i's DER, 64 lowercase hex digits */
void sp_tls_fingerprint(const void *certs, size_t i, char out[65]);
/* OpenSSL's subject name hash of certificate i (the HASH of a hashed
 * directory's HASH.N, `openssl x509 -hash`), 0 when it does not parse */
unsigned long sp_tls_subject_hash(const void *certs, size_t i);
/* Normalise a fingerprint as a user writes it (colons, upper case) to 64
 * lowercase hex digits; 0, or -1 when it is not a SHA-256 fingerprint. */
int sp_tls_fpr_normalise(const char *in, char out[65]);
/* Does the bundle hold a certificate with one of the fingerprints? Returns
 * the number found, or -1 with o: the file unreadable (o->why the error's
 * text) or holding no certificate (o->errnum EBADMSG). */
int sp_tls_bundle_has(const char *path, const sp_strv *fpr, size_t *ncerts, sp_outcome *o);
/* In an OpenSSL hashed directory (SSL_CERT_DIR, /etc/ssl/certs), is one of
 * the CA certificates present under its subject hash (HASH.N)? 1, 0, or -1
 * with o (o->why the error's text) when the directory is unreadable. */
int sp_tls_dir_has(const char *dir, const void *ca_certs, sp_outcome *o);

/* Build the trust configuration from the policy (tls.ca, tls.ca_fingerprint,
 * tls.store; src/checks/tls_trust.c). Returns 1 when a CA is named, 0 when
 * none is, -1 with o's reason on a bad policy or an unreadable CA file. The
 * store list is left empty when no bundle exists. */
struct sp_ctx;
struct sp_outcome;
int sp_tls_trust_from_policy(const struct sp_ctx *ctx, sp_tls_trust *t, struct sp_outcome *o);
void sp_tls_trust_free(sp_tls_trust *t);
/* the text for a verify result ("The certificate is not correctly signed by the
 * trusted CA"; reasons joined with "; ") */
const char *sp_tls_verify_text(long v);

#endif
