/* TLS client probes (see tls_probe.h). Every socket is non-blocking and
 * every wait bounded by the request's absolute deadline. */
#include "checks/tls_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/net_probe.h"
#include "checks/net_proxy.h"

/* ---- certificates ------------------------------------------------------------ */

static STACK_OF(X509) *parse_certs(const char *buf, size_t len)
{
	STACK_OF(X509) *sk = sk_X509_new_null();
	if (!sk)
		return NULL;
	BIO *b = BIO_new_mem_buf(buf, (int)len);
	if (!b)
		return sk;
	if (memmem(buf, len, "-----BEGIN", 10)) {
		X509 *x;
		while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)))
			if (!sk_X509_push(sk, x))
				X509_free(x);
	} else {
		/* one DER certificate (.cer, .der) */
		X509 *x = d2i_X509_bio(b, NULL);
		if (x && !sk_X509_push(sk, x))
			X509_free(x);
	}
	BIO_free(b);
	ERR_clear_error();
	return sk;
}

void *sp_tls_load_certs(const char *path, int *err)
{
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc(path, 16u << 20, &len, &e);
	if (!buf) {
		*err = e;
		return NULL;
	}
	STACK_OF(X509) *sk = parse_certs(buf, len);
	if (!sk) {
		*err = ENOMEM;
		return NULL;
	}
	if (sk_X509_num(sk) == 0) {
		sk_X509_free(sk);
		*err = EBADMSG;
		return NULL;
	}
	return sk;
}

void sp_tls_free_certs(void *certs)
{
	if (certs)
		sk_X509_pop_free((STACK_OF(X509) *)certs, X509_free);
}

size_t sp_tls_count(const void *certs)
{
	return certs ? (size_t)sk_X509_num((const STACK_OF(X509) *)certs) : 0;
}

static void fpr_of(const X509 *x, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	out[0] = '\0';
	if (X509_digest(x, EVP_sha256(), md, &n) != 1 || n != 32)
		return;
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

void sp_tls_fingerprint(const void *certs, size_t i, char out[65])
{
	fpr_of(sk_X509_value((const STACK_OF(X509) *)certs, (int)i), out);
}

static void name_of(const X509_NAME *n, char *out, size_t size)
{
	out[0] = '\0';
	if (!n)
		return;
	int idx = X509_NAME_get_index_by_NID(n, NID_commonName, -1);
	if (idx >= 0) {
		const ASN1_STRING *s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(n, idx));
		unsigned char *u = NULL;
		int l = ASN1_STRING_to_UTF8(&u, s);
		if (l >= 0) {
			snprintf(out, size, "CN=%.*s", l, (const char *)u);
			OPENSSL_free(u);
			return;
		}
	}
	X509_NAME_oneline(n, out, (int)size);
}

int sp_tls_fpr_normalise(const char *in, char out[65])
{
	size_t n = 0;
	const char *p = in;
	if (!strncasecmp(p, "sha256:", 7))
		p += 7;
	for (; *p; p++) {
		if (*p == ':' || *p == ' ')
			continue;
		char c = *p;
		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) || n == 64)
			return -1;
		out[n++] = c;
	}
	out[n] = '\0';
	return n == 64 ? 0 : -1;
}

/* SHA-256 of each certificate of a PEM bundle, from the DER in each block
 * (no X.509 parsing: a 150-certificate bundle costs well under a
 * millisecond); for a file without PEM, the certificate parsed as DER */
int sp_tls_bundle_has(const char *path, const sp_strv *fpr, size_t *ncerts)
{
	*ncerts = 0;
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc(path, 16u << 20, &len, &e);
	if (!buf)
		return -e;
	if (!memmem(buf, len, "-----BEGIN", 10)) {
		STACK_OF(X509) *sk = parse_certs(buf, len);
		int found = 0;
		for (int i = 0; sk && i < sk_X509_num(sk); i++) {
			char f[65];
			fpr_of(sk_X509_value(sk, i), f);
			found += sp_strv_contains(fpr, f);
			(*ncerts)++;
		}
		sp_tls_free_certs(sk);
		return *ncerts ? found : -EBADMSG;
	}
	BIO *b = BIO_new_mem_buf(buf, (int)len);
	if (!b)
		return -ENOMEM;
	int found = 0;
	char *name = NULL, *header = NULL;
	unsigned char *der = NULL;
	long dlen = 0;
	while (PEM_read_bio(b, &name, &header, &der, &dlen) == 1) {
		if (!strcmp(name, "CERTIFICATE") || !strcmp(name, "TRUSTED CERTIFICATE")) {
			unsigned char md[EVP_MAX_MD_SIZE];
			unsigned n = 0;
			/* a TRUSTED CERTIFICATE carries trust settings after the
			 * certificate: hash the certificate's own DER only */
			const unsigned char *p = der;
			X509 *x = !strcmp(name, "TRUSTED CERTIFICATE") ? d2i_X509_AUX(NULL, &p, dlen) : NULL;
			char f[65] = "";
			if (x) {
				fpr_of(x, f);
				X509_free(x);
			} else if (EVP_Digest(der, (size_t)dlen, md, &n, EVP_sha256(), NULL) == 1 && n == 32) {
				for (unsigned k = 0; k < 32; k++)
					snprintf(f + 2 * k, 3, "%02x", md[k]);
			}
			found += f[0] && sp_strv_contains(fpr, f);
			(*ncerts)++;
		}
		OPENSSL_free(name);
		OPENSSL_free(header);
		OPENSSL_free(der);
		name = header = NULL;
		der = NULL;
	}
	BIO_free(b);
	ERR_clear_error();
	return *ncerts ? found : -EBADMSG;
}

int sp_tls_dir_has(const char *dir, const void *ca_certs)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	const STACK_OF(X509) *ca = ca_certs;
	for (int i = 0; ca && i < sk_X509_num(ca); i++) {
		X509 *want = sk_X509_value(ca, i);
		char wf[65];
		fpr_of(want, wf);
		unsigned long h = X509_subject_name_hash(want);
		for (int k = 0; k < 10; k++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%08lx.%d", dir, h, k);
			int e = 0;
			STACK_OF(X509) *sk = sp_tls_load_certs(path, &e);
			if (!sk)
				break;
			bool same = false;
			for (int j = 0; j < sk_X509_num(sk) && !same; j++) {
				char f[65];
				fpr_of(sk_X509_value(sk, j), f);
				same = !strcmp(f, wf);
			}
			sp_tls_free_certs(sk);
			if (same)
				return 1;
		}
	}
	return 0;
}

void sp_tls_trust_free(sp_tls_trust *t)
{
	sp_strv_free(&t->store);
	sp_strv_free(&t->fpr);
	sp_tls_free_certs(t->ca);
	t->ca = NULL;
}

const char *sp_tls_verify_text(long v)
{
	return v < 0 ? "no handshake" : X509_verify_cert_error_string(v);
}

/* ---- the probe ---------------------------------------------------------------- */


/* read a response head, byte by byte so nothing past it is consumed (the
 * TLS stream starts right after a CONNECT's answer); bytes, or -errno */
static ssize_t read_head(int fd, char *buf, size_t size, uint64_t deadline)
{
	size_t got = 0;
	buf[0] = '\0';
	while (got + 1 < size) {
		int ev = sp_net_wait(fd, POLLIN, deadline);
		if (ev < 0)
			return got ? (ssize_t)got : ev;
		ssize_t n = recv(fd, buf + got, 1, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return got ? (ssize_t)got : -errno;
		if (n == 0)
			break;
		got++;
		buf[got] = '\0';
		if (got >= 4 && !memcmp(buf + got - 4, "\r\n\r\n", 4))
			break;
	}
	return (ssize_t)got;
}

/* "HTTP/1.1 403 Forbidden; Server: x; Via: y" */
static void summarise_head(const char *head, char *out, size_t size)
{
	size_t l = strcspn(head, "\r\n");
	snprintf(out, size, "%.*s", (int)(l > 60 ? 60 : l), head);
	static const char *const keep[] = {"Server:", "Via:"};
	for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n"))
		for (size_t k = 0; k < SP_ARRAY_SIZE(keep); k++)
			if (!strncasecmp(p + 2, keep[k], strlen(keep[k]))) {
				size_t hl = strcspn(p + 2, "\r\n"), ol = strlen(out);
				snprintf(out + ol, size - ol, "; %.*s", (int)(hl > 50 ? 50 : hl), p + 2);
			}
}

static void fail(sp_tls_out *o, const char *fmt, ...) SP_PRINTF(2, 3);
static void fail(sp_tls_out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->fail, sizeof o->fail, fmt, ap);
	va_end(ap);
}

static const char *ename(int e)
{
	const char *n = e > 0 ? strerrorname_np(e) : NULL;
	return n ? n : "error";
}

static void ssl_fail(sp_tls_out *o, SSL *ssl, int rc, const char *stage, int sys_errno)
{
	int se = SSL_get_error(ssl, rc);
	unsigned long e = ERR_peek_last_error();
	char buf[160] = "";
	if (e)
		ERR_error_string_n(e, buf, sizeof buf);
	ERR_clear_error();
	if (se == SSL_ERROR_ZERO_RETURN || (se == SSL_ERROR_SYSCALL && !e)) {
		o->closed = true;
		fail(o, "%s: the peer closed the connection (%s)", stage, sys_errno ? ename(sys_errno) : "EOF");
	} else {
		fail(o, "%s: %s", stage, buf[0] ? buf : "TLS error");
	}
}

/* drive one SSL call until done, the deadline, or an error; 1 or <= 0 */
static int ssl_drive(SSL *ssl, int fd, uint64_t deadline, int (*op)(SSL *, void *, int), void *buf, int len, int *sys_errno)
{
	for (;;) {
		errno = 0;
		int rc = op(ssl, buf, len);
		if (rc > 0)
			return rc;
		int se = SSL_get_error(ssl, rc);
		*sys_errno = errno;
		short ev = se == SSL_ERROR_WANT_READ ? POLLIN : se == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
		if (!ev)
			return rc;
		int w = sp_net_wait(fd, ev, deadline);
		if (w < 0) {
			*sys_errno = -w;
			return -2; /* timed out */
		}
	}
}

static int op_connect(SSL *ssl, void *buf, int len)
{
	(void)buf;
	(void)len;
	return SSL_connect(ssl);
}

static int op_write(SSL *ssl, void *buf, int len)
{
	return SSL_write(ssl, buf, len);
}

static int op_read(SSL *ssl, void *buf, int len)
{
	return SSL_read(ssl, buf, len);
}

static bool in_fpr(const sp_tls_trust *t, const X509 *x)
{
	char f[65];
	fpr_of(x, f);
	return f[0] && sp_strv_contains(&t->fpr, f);
}

static void judge_chain(const sp_tls_req *q, SSL *ssl, sp_tls_out *o)
{
	const STACK_OF(X509) *ca = q->trust ? q->trust->ca : NULL;
	X509 *leaf = SSL_get0_peer_certificate(ssl);
	o->verify = SSL_get_verify_result(ssl);
	if (leaf) {
		char s[96], i[96];
		name_of(X509_get_subject_name(leaf), s, sizeof s);
		name_of(X509_get_issuer_name(leaf), i, sizeof i);
		snprintf(o->leaf, sizeof o->leaf, "%s, issued by %s", s, i);
	}
	/* who signed what the server sent: checked with the CA's own key */
	STACK_OF(X509) *sent = SSL_get_peer_cert_chain(ssl);
	for (int k = 0; sent && k < sk_X509_num(sent) && !o->issued_by_ca; k++) {
		X509 *x = sk_X509_value(sent, k);
		for (int c = 0; ca && c < sk_X509_num(ca) && !o->issued_by_ca; c++) {
			X509 *a = sk_X509_value(ca, c);
			if (X509_check_issued(a, x) == X509_V_OK && X509_verify(x, X509_get0_pubkey(a)) == 1)
				o->issued_by_ca = true;
		}
		if (q->trust && in_fpr(q->trust, x))
			o->issued_by_ca = true; /* the server sent the CA itself in its chain */
	}
	STACK_OF(X509) *vc = o->verify == X509_V_OK ? SSL_get0_verified_chain(ssl) : NULL;
	if (vc && sk_X509_num(vc) > 0) {
		X509 *anchor = sk_X509_value(vc, sk_X509_num(vc) - 1);
		char f[65];
		fpr_of(anchor, f);
		snprintf(o->anchor, sizeof o->anchor, "%.16s", f);
		o->anchor_is_ca = q->trust && in_fpr(q->trust, anchor);
	}
	ERR_clear_error();
}

static bool is_ip(const char *h)
{
	struct in_addr a4;
	struct in6_addr a6;
	return inet_pton(AF_INET, h, &a4) == 1 || inet_pton(AF_INET6, h, &a6) == 1;
}

static void host_header(const sp_tls_req *q, char *out, size_t size)
{
	char a[80] = "";
	if (q->host[0]) {
		snprintf(out, size, "%s", q->host);
		return;
	}
	sp_net_format_sa((const struct sockaddr *)&q->addr, a, sizeof a);
	snprintf(out, size, "%s", a);
}

static void tls_exchange(sp_tls_req *q, int fd, uint64_t deadline)
{
	sp_tls_out *o = &q->out;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx) {
		fail(o, "cannot create a TLS context");
		return;
	}
	for (size_t i = 0; q->trust && i < q->trust->store.n; i++)
		SSL_CTX_load_verify_file(ctx, q->trust->store.v[i]);
	ERR_clear_error();
	/* finish the handshake whatever the verdict, then read it */
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	SSL *ssl = SSL_new(ctx);
	if (!ssl) {
		SSL_CTX_free(ctx);
		fail(o, "cannot create a TLS session");
		return;
	}
	SSL_set_fd(ssl, fd);
	if (q->host[0] && !is_ip(q->host)) {
		SSL_set_tlsext_host_name(ssl, q->host);
		SSL_set1_host(ssl, q->host);
	} else if (q->host[0]) {
		X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), q->host);
	}
	int se = 0;
	int rc = ssl_drive(ssl, fd, deadline, op_connect, NULL, 0, &se);
	if (rc == -2) {
		o->err = ETIMEDOUT;
		fail(o, "TLS handshake: no answer before the deadline");
		goto out;
	}
	if (rc != 1) {
		ssl_fail(o, ssl, rc, "TLS handshake", se);
		goto out;
	}
	o->stage = SP_TS_HANDSHAKE;
	judge_chain(q, ssl, o);
	char host[160], req[400];
	host_header(q, host, sizeof host);
	snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\nAccept: */*\r\n"
				  "Connection: close\r\n\r\n", host);
	rc = ssl_drive(ssl, fd, deadline, op_write, req, (int)strlen(req), &se);
	if (rc <= 0) {
		if (rc == -2)
			o->err = ETIMEDOUT;
		ssl_fail(o, ssl, rc, "sending the request", se);
		goto out;
	}
	char head[2048];
	size_t got = 0;
	while (got + 1 < sizeof head) {
		rc = ssl_drive(ssl, fd, deadline, op_read, head + got, (int)(sizeof head - 1 - got), &se);
		if (rc <= 0)
			break;
		got += (size_t)rc;
		head[got] = '\0';
		if (strstr(head, "\r\n\r\n"))
			break;
	}
	head[got] = '\0';
	if (got == 0) {
		if (rc == -2) {
			o->err = ETIMEDOUT;
			fail(o, "no HTTP answer inside TLS before the deadline");
		} else {
			ssl_fail(o, ssl, rc, "reading the answer", se);
		}
		goto out;
	}
	o->http_status = sp_http_status(head);
	summarise_head(head, o->head, sizeof o->head);
	if (o->http_status > 0)
		o->stage = SP_TS_HTTP;
	else
		fail(o, "the answer inside TLS is not HTTP");
out:
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	ERR_clear_error();
}

/* SOCKS5 (RFC 1928, no authentication) CONNECT to host:port; 0 when the
 * tunnel is open, -1 with o filled */
static int socks_connect(sp_tls_req *q, int fd, uint64_t deadline)
{
	sp_tls_out *o = &q->out;
	static const unsigned char hello[] = {5, 1, 0};
	unsigned char b[4 + 256 + 2];
	int s = sp_net_send_all(fd, hello, sizeof hello, deadline, false);
	ssize_t n = s < 0 ? s : sp_net_read_exact(fd, b, 2, deadline);
	if (n <= 0 || b[0] != 5 || b[1] != 0) {
		o->err = n < 0 ? (int)-n : 0;
		fail(o, "SOCKS5 greeting: %s", n <= 0 ? (n == 0 ? "EOF" : ename((int)-n))
					   : b[0] != 5 ? "not a SOCKS5 proxy" : "the proxy demands authentication");
		return -1;
	}
	size_t hl = strlen(q->host), len = 0;
	if (hl == 0 || hl > 255) {
		fail(o, "SOCKS5: the host name cannot be sent");
		return -1;
	}
	b[len++] = 5;
	b[len++] = 1;
	b[len++] = 0;
	b[len++] = 3; /* a name: the proxy resolves it, as socks5h does */
	b[len++] = (unsigned char)hl;
	memcpy(b + len, q->host, hl);
	len += hl;
	b[len++] = (unsigned char)(q->port >> 8);
	b[len++] = (unsigned char)(q->port & 0xff);
	s = sp_net_send_all(fd, b, len, deadline, false);
	n = s < 0 ? s : sp_net_read_exact(fd, b, 4, deadline);
	if (n <= 0) {
		o->err = n < 0 ? (int)-n : 0;
		o->closed = n == 0 || n == -ECONNRESET || n == -EPIPE;
		fail(o, "SOCKS5 CONNECT: %s", n == 0 ? "the proxy closed the connection" : ename((int)-n));
		return -1;
	}
	int rep = b[0] == 5 ? b[1] : -1;
	if (rep != 0) {
		o->connect_status = rep == 2 ? 403 : rep >= 3 && rep <= 6 ? 502 : 500;
		fail(o, "the SOCKS5 proxy answered CONNECT with reply %d", rep);
		return -1;
	}
	size_t alen = b[3] == 1 ? 4 : b[3] == 4 ? 16 : 0;
	if (b[3] == 3) {
		n = sp_net_read_exact(fd, b, 1, deadline);
		alen = n == 1 ? b[0] : 0;
	}
	n = sp_net_read_exact(fd, b, alen + 2, deadline);
	if (n <= 0) {
		fail(o, "SOCKS5: truncated reply");
		return -1;
	}
	o->connect_status = 200;
	return 0;
}

void sp_tls_run(sp_tls_req *q)
{
	sp_tls_out *o = &q->out;
	memset(o, 0, sizeof *o);
	o->verify = -1;
	uint64_t deadline = sp_now_ns() + (uint64_t)(q->timeout_ms ? q->timeout_ms : 3000) * 1000000ull;
	int fd = sp_net_connect_deadline((const struct sockaddr *)&q->addr, q->addrlen, deadline);
	if (fd < 0) {
		o->err = -fd;
		fail(o, "cannot connect to %s: %s", q->via_proxy ? "the proxy" : "the address", ename(-fd));
		return;
	}
	o->stage = SP_TS_TCP;
	if (q->via_proxy && q->socks) {
		if (socks_connect(q, fd, deadline) < 0) {
			close(fd);
			return;
		}
		o->stage = SP_TS_TUNNEL;
	} else if (q->via_proxy) {
		char req[400], head[2048];
		snprintf(req, sizeof req, "CONNECT %s:%u HTTP/1.1\r\nHost: %s:%u\r\nUser-Agent: sandprobe-doctor\r\n\r\n",
			 q->host, q->port, q->host, q->port);
		int s = sp_net_send_all(fd, req, strlen(req), deadline, false);
		ssize_t n = s < 0 ? s : read_head(fd, head, sizeof head, deadline);
		if (n <= 0) {
			o->err = n < 0 ? (int)-n : 0;
			o->closed = n == 0 || n == -ECONNRESET || n == -EPIPE;
			fail(o, "CONNECT: %s", n == 0 ? "the proxy closed the connection without an answer" : ename((int)-n));
			close(fd);
			return;
		}
		o->connect_status = sp_http_status(head);
		if (o->connect_status != 200) {
			summarise_head(head, o->head, sizeof o->head);
			fail(o, "the proxy answered CONNECT with %d", o->connect_status);
			close(fd);
			return;
		}
		o->stage = SP_TS_TUNNEL;
	}
	if (q->tls) {
		tls_exchange(q, fd, deadline);
	} else {
		char host[160], req[400], head[2048];
		host_header(q, host, sizeof host);
		snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\nAccept: */*\r\n"
					  "Connection: close\r\n\r\n", host);
		int s = sp_net_send_all(fd, req, strlen(req), deadline, false);
		ssize_t n = s < 0 ? s : read_head(fd, head, sizeof head, deadline);
		if (n <= 0) {
			o->err = n < 0 ? (int)-n : 0;
			o->closed = n == 0 || n == -ECONNRESET || n == -EPIPE;
			fail(o, "HTTP: %s", n == 0 ? "the peer closed the connection without an answer" : ename((int)-n));
		} else {
			o->http_status = sp_http_status(head);
			summarise_head(head, o->head, sizeof o->head);
			if (o->http_status > 0)
				o->stage = SP_TS_HTTP;
			else
				fail(o, "the answer is not HTTP");
		}
	}
	close(fd);
}

int sp_tls_child(void *arg, int fd)
{
	sp_tls_req *q = arg;
	OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	sp_tls_run(q);
	return sp_write_all(fd, &q->out, sizeof q->out) == 0 ? 0 : 3;
}
