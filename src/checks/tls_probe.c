/* TLS client probes (see tls_probe.h), on mbedTLS: a library made for small
 * static binaries, so the doctor carries no OpenSSL. Every socket is
 * non-blocking and every wait bounded by the request's absolute deadline. */
#include "checks/tls_probe.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mbedtls/asn1.h>
#include <mbedtls/base64.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/md.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/oid.h>
#include <mbedtls/sha1.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/net_probe.h"
#include "checks/net_proxy.h"
#include "core/sha256.h"

/* ---- certificates ------------------------------------------------------------ */

/* the length of the DER element at der (a certificate's own SEQUENCE: a
 * TRUSTED CERTIFICATE carries trust settings after it), 0 if none */
static size_t der_element_len(const unsigned char *der, size_t len)
{
	unsigned char *p = (unsigned char *)der;
	size_t body = 0;
	if (mbedtls_asn1_get_tag(&p, der + len, &body, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE) != 0)
		return 0;
	return (size_t)(p - der) + body;
}

typedef void (*der_fn)(const unsigned char *der, size_t len, void *arg);

/* Calls fn with the DER of each certificate block (CERTIFICATE, TRUSTED
 * CERTIFICATE, X509 CERTIFICATE: what OpenSSL's readers take) of a PEM
 * text; the number of blocks that decoded. */
static size_t each_pem_cert(const char *buf, size_t len, der_fn fn, void *arg)
{
	static const char *const labels[] = {"CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE"};
	const char *p = buf, *end = buf + len;
	size_t n = 0;
	while ((p = memmem(p, (size_t)(end - p), "-----BEGIN ", 11))) {
		const char *label = p + 11;
		const char *le = memmem(label, (size_t)(end - label), "-----", 5);
		if (!le || le - label > 40)
			break;
		char foot[64];
		int fl = snprintf(foot, sizeof foot, "-----END %.*s-----", (int)(le - label), label);
		const char *body = le + 5;
		const char *fe = memmem(body, (size_t)(end - body), foot, (size_t)fl);
		if (!fe)
			break;
		p = fe + fl;
		bool cert = false;
		for (size_t k = 0; k < SP_ARRAY_SIZE(labels); k++)
			cert = cert || ((size_t)(le - label) == strlen(labels[k]) && !memcmp(label, labels[k], strlen(labels[k])));
		if (!cert)
			continue;
		/* the base64 without its line breaks */
		size_t blen = 0;
		_cleanup_free_ unsigned char *b64 = sp_xmalloc((size_t)(fe - body) + 1);
		for (const char *c = body; c < fe; c++)
			if (*c != '\n' && *c != '\r' && *c != ' ' && *c != '\t')
				b64[blen++] = (unsigned char)*c;
		size_t dlen = 0;
		_cleanup_free_ unsigned char *der = sp_xmalloc(blen / 4 * 3 + 3);
		if (mbedtls_base64_decode(der, blen / 4 * 3 + 3, &dlen, b64, blen) != 0)
			continue;
		size_t el = der_element_len(der, dlen);
		if (!el)
			continue;
		fn(der, el, arg);
		n++;
	}
	return n;
}

static void add_der(const unsigned char *der, size_t len, void *arg)
{
	mbedtls_x509_crt_parse_der(arg, der, len);
}

static bool crt_present(const mbedtls_x509_crt *c)
{
	return c && c->raw.len > 0;
}

/* add the certificates of a PEM or DER text to a chain */
static void parse_into(mbedtls_x509_crt *chain, const char *buf, size_t len)
{
	if (memmem(buf, len, "-----BEGIN", 10)) {
		each_pem_cert(buf, len, add_der, chain);
	} else {
		/* one DER certificate (.cer, .der) */
		size_t el = der_element_len((const unsigned char *)buf, len);
		if (el)
			mbedtls_x509_crt_parse_der(chain, (const unsigned char *)buf, el);
	}
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
	mbedtls_x509_crt *chain = sp_xmalloc(sizeof *chain);
	mbedtls_x509_crt_init(chain);
	parse_into(chain, buf, len);
	if (!crt_present(chain)) {
		sp_tls_free_certs(chain);
		*err = EBADMSG;
		return NULL;
	}
	return chain;
}

void sp_tls_free_certs(void *certs)
{
	if (certs) {
		mbedtls_x509_crt_free(certs);
		free(certs);
	}
}

size_t sp_tls_count(const void *certs)
{
	size_t n = 0;
	for (const mbedtls_x509_crt *c = certs; crt_present(c); c = c->next)
		n++;
	return n;
}

static const mbedtls_x509_crt *nth(const void *certs, size_t i)
{
	const mbedtls_x509_crt *c = certs;
	while (i-- && crt_present(c))
		c = c->next;
	return crt_present(c) ? c : NULL;
}

static void fpr_of(const mbedtls_x509_crt *x, char out[65])
{
	out[0] = '\0';
	if (crt_present(x))
		sp_sha256_hex(x->raw.p, x->raw.len, out);
}

void sp_tls_fingerprint(const void *certs, size_t i, char out[65])
{
	fpr_of(nth(certs, i), out);
}

/* "CN=x" (the first common name), else the whole name */
static void name_of(const mbedtls_x509_name *n, char *out, size_t size)
{
	out[0] = '\0';
	for (const mbedtls_x509_name *e = n; e; e = e->next)
		if (e->oid.p && !MBEDTLS_OID_CMP(MBEDTLS_OID_AT_CN, &e->oid)) {
			snprintf(out, size, "CN=%.*s", (int)e->val.len, (const char *)e->val.p);
			return;
		}
	if (mbedtls_x509_dn_gets(out, size, n) < 0)
		out[0] = '\0';
}

/* ---- OpenSSL's canonical name: what its hashed directories (HASH.N) and
 * its issuer match use. Each RDN's SET re-encoded with its text values as
 * UTF8String, ASCII lowercased, inner whitespace runs collapsed to one
 * space and outer whitespace removed; the RDN SETs concatenated without the
 * outer SEQUENCE; the hash is SHA-1's first four bytes, little-endian. -- */

typedef struct canon_buf {
	unsigned char *p;
	size_t len, cap;
} canon_buf;

static void cb_put(canon_buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = sp_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void cb_tlv(canon_buf *b, unsigned char tag, const void *d, size_t n)
{
	unsigned char h[6];
	size_t hl = 0;
	h[hl++] = tag;
	if (n < 0x80) {
		h[hl++] = (unsigned char)n;
	} else if (n < 0x100) {
		h[hl++] = 0x81;
		h[hl++] = (unsigned char)n;
	} else if (n < 0x10000) {
		h[hl++] = 0x82;
		h[hl++] = (unsigned char)(n >> 8);
		h[hl++] = (unsigned char)n;
	} else {
		h[hl++] = 0x83;
		h[hl++] = (unsigned char)(n >> 16);
		h[hl++] = (unsigned char)(n >> 8);
		h[hl++] = (unsigned char)n;
	}
	cb_put(b, h, hl);
	cb_put(b, d, n);
}

static void put_utf8(canon_buf *b, uint32_t c)
{
	unsigned char u[4];
	size_t n;
	if (c < 0x80) {
		u[0] = (unsigned char)c, n = 1;
	} else if (c < 0x800) {
		u[0] = (unsigned char)(0xc0 | c >> 6), u[1] = (unsigned char)(0x80 | (c & 0x3f)), n = 2;
	} else if (c < 0x10000) {
		u[0] = (unsigned char)(0xe0 | c >> 12), u[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (c & 0x3f)), n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | c >> 18), u[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f)), u[3] = (unsigned char)(0x80 | (c & 0x3f)), n = 4;
	}
	cb_put(b, u, n);
}

static bool canon_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* one attribute value (tag, bytes) in canonical form, appended as a TLV */
static void canon_value(canon_buf *out, int tag, const unsigned char *v, size_t n)
{
	canon_buf u = {0};
	switch (tag) {
	case MBEDTLS_ASN1_UTF8_STRING:
	case MBEDTLS_ASN1_PRINTABLE_STRING:
	case MBEDTLS_ASN1_IA5_STRING:
	case 26: /* VisibleString */
		cb_put(&u, v, n);
		break;
	case MBEDTLS_ASN1_T61_STRING: /* read as Latin-1, as OpenSSL does */
		for (size_t i = 0; i < n; i++)
			put_utf8(&u, v[i]);
		break;
	case MBEDTLS_ASN1_BMP_STRING:
		for (size_t i = 0; i + 1 < n; i += 2)
			put_utf8(&u, (uint32_t)v[i] << 8 | v[i + 1]);
		break;
	case MBEDTLS_ASN1_UNIVERSAL_STRING:
		for (size_t i = 0; i + 3 < n; i += 4)
			put_utf8(&u, (uint32_t)v[i] << 24 | (uint32_t)v[i + 1] << 16 | (uint32_t)v[i + 2] << 8 | v[i + 3]);
		break;
	default: /* not text: kept as it is */
		cb_tlv(out, (unsigned char)tag, v, n);
		return;
	}
	canon_buf c = {0};
	size_t a = 0, z = u.len;
	while (a < z && canon_space(u.p[a]))
		a++;
	while (z > a && canon_space(u.p[z - 1]))
		z--;
	for (size_t i = a; i < z; i++) {
		unsigned char ch = u.p[i];
		if (canon_space(ch)) {
			while (i + 1 < z && canon_space(u.p[i + 1]))
				i++;
			ch = ' ';
		} else if (ch >= 'A' && ch <= 'Z') {
			ch = (unsigned char)(ch - 'A' + 'a');
		}
		cb_put(&c, &ch, 1);
	}
	cb_tlv(out, MBEDTLS_ASN1_UTF8_STRING, c.p ? c.p : (const unsigned char *)"", c.len);
	free(u.p);
	free(c.p);
}

static int der_cmp(const void *a, const void *b)
{
	const canon_buf *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->p, y->p, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* the canonical encoding of a DER Name; -1 when it does not parse */
static int canon_name(const unsigned char *der, size_t len, canon_buf *out)
{
	unsigned char *p = (unsigned char *)der, *end = p + len;
	size_t l = 0;
	if (mbedtls_asn1_get_tag(&p, end, &l, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE))
		return -1;
	end = p + l;
	while (p < end) {
		if (mbedtls_asn1_get_tag(&p, end, &l, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SET))
			return -1;
		unsigned char *set_end = p + l;
		canon_buf ent[16];
		size_t ne = 0;
		int rc = 0;
		while (p < set_end && rc == 0) {
			unsigned char *oid, *val;
			size_t ol, vl;
			if (mbedtls_asn1_get_tag(&p, set_end, &l, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE) ||
			    mbedtls_asn1_get_tag(&p, set_end, &ol, MBEDTLS_ASN1_OID)) {
				rc = -1;
				break;
			}
			oid = p;
			p += ol;
			int tag = p < set_end ? *p : -1;
			if (tag < 0 || mbedtls_asn1_get_tag(&p, set_end, &vl, tag)) {
				rc = -1;
				break;
			}
			val = p;
			p += vl;
			if (ne == SP_ARRAY_SIZE(ent)) {
				rc = -1;
				break;
			}
			canon_buf body = {0};
			cb_tlv(&body, MBEDTLS_ASN1_OID, oid, ol);
			canon_value(&body, tag, val, vl);
			ent[ne] = (canon_buf){0};
			cb_tlv(&ent[ne], MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE, body.p, body.len);
			free(body.p);
			ne++;
		}
		if (rc == 0) {
			/* DER orders a SET's members by their encodings */
			qsort(ent, ne, sizeof *ent, der_cmp);
			canon_buf set = {0};
			for (size_t i = 0; i < ne; i++)
				cb_put(&set, ent[i].p, ent[i].len);
			cb_tlv(out, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SET, set.p ? set.p : (const unsigned char *)"",
			       set.len);
			free(set.p);
		}
		for (size_t i = 0; i < ne; i++)
			free(ent[i].p);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static unsigned long name_hash(const mbedtls_x509_buf *raw)
{
	canon_buf c = {0};
	unsigned char md[20];
	if (canon_name(raw->p, raw->len, &c) < 0 ||
	    mbedtls_sha1_ret(c.p ? c.p : (const unsigned char *)"", c.len, md) != 0) {
		free(c.p);
		return 0;
	}
	free(c.p);
	return ((unsigned long)md[0] | (unsigned long)md[1] << 8 | (unsigned long)md[2] << 16 |
		(unsigned long)md[3] << 24) &
	       0xffffffffUL;
}

unsigned long sp_tls_subject_hash(const void *certs, size_t i)
{
	const mbedtls_x509_crt *c = nth(certs, i);
	return c ? name_hash(&c->subject_raw) : 0;
}

/* the same name, compared as OpenSSL compares names */
static bool same_name(const mbedtls_x509_buf *a, const mbedtls_x509_buf *b)
{
	canon_buf x = {0}, y = {0};
	bool same = canon_name(a->p, a->len, &x) == 0 && canon_name(b->p, b->len, &y) == 0 && x.len == y.len &&
		    (x.len == 0 || !memcmp(x.p, y.p, x.len));
	free(x.p);
	free(y.p);
	return same;
}

/* was x issued by a: a's name is x's issuer and a's key verifies x's signature */
static bool issued_by(const mbedtls_x509_crt *a, const mbedtls_x509_crt *x)
{
	if (!same_name(&a->subject_raw, &x->issuer_raw))
		return false;
	const mbedtls_md_info_t *mi = mbedtls_md_info_from_type(x->sig_md);
	unsigned char h[MBEDTLS_MD_MAX_SIZE];
	if (!mi || mbedtls_md(mi, x->tbs.p, x->tbs.len, h) != 0)
		return false;
	return mbedtls_pk_verify_ext(x->sig_pk, x->sig_opts, (mbedtls_pk_context *)&a->pk, x->sig_md, h,
				     mbedtls_md_get_size(mi), x->sig.p, x->sig.len) == 0;
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

struct fpr_count {
	const sp_strv *fpr;
	int found;
};

static void count_fpr(const unsigned char *der, size_t len, void *arg)
{
	struct fpr_count *fc = arg;
	char f[65];
	sp_sha256_hex(der, len, f);
	fc->found += sp_strv_contains(fc->fpr, f);
}

/* SHA-256 of each certificate of a PEM bundle, from the DER in each block
 * (no X.509 parsing: a 150-certificate bundle costs well under a
 * millisecond); for a file without PEM, the certificate parsed as DER */
int sp_tls_bundle_has(const char *path, const sp_strv *fpr, size_t *ncerts, sp_outcome *o)
{
	*ncerts = 0;
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc(path, 16u << 20, &len, &e);
	if (!buf)
		return sp_why_errno(o, e, "%s", strerror(e));
	struct fpr_count fc = {.fpr = fpr};
	if (!memmem(buf, len, "-----BEGIN", 10)) {
		size_t el = der_element_len((const unsigned char *)buf, len);
		mbedtls_x509_crt one;
		mbedtls_x509_crt_init(&one);
		if (el && mbedtls_x509_crt_parse_der(&one, (const unsigned char *)buf, el) == 0) {
			count_fpr(one.raw.p, one.raw.len, &fc);
			*ncerts = 1;
		}
		mbedtls_x509_crt_free(&one);
		return *ncerts ? fc.found : sp_why_errno(o, EBADMSG, "no certificate in it");
	}
	*ncerts = each_pem_cert(buf, len, count_fpr, &fc);
	return *ncerts ? fc.found : sp_why_errno(o, EBADMSG, "no certificate in it");
}

int sp_tls_dir_has(const char *dir, const void *ca_certs, sp_outcome *o)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sp_why_errno(o, ENOTDIR, "%s", strerror(ENOTDIR));
	for (const mbedtls_x509_crt *want = ca_certs; crt_present(want); want = want->next) {
		char wf[65];
		fpr_of(want, wf);
		unsigned long h = name_hash(&want->subject_raw);
		for (int k = 0; k < 10; k++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%08lx.%d", dir, h, k);
			int e = 0;
			void *sk = sp_tls_load_certs(path, &e);
			if (!sk)
				break;
			bool same = false;
			for (const mbedtls_x509_crt *c = sk; crt_present(c) && !same; c = c->next) {
				char f[65];
				fpr_of(c, f);
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
	static char text[240];
	if (v < 0)
		return "no handshake";
	if (v == 0)
		return "ok";
	char buf[600];
	if (mbedtls_x509_crt_verify_info(buf, sizeof buf, "", (uint32_t)v) < 0)
		snprintf(buf, sizeof buf, "verification failed (flags %#lx)", (unsigned long)v);
	/* one line per reason: joined with "; " */
	size_t o = 0;
	for (const char *p = buf; *p && o + 1 < sizeof text; p++) {
		if (*p == '\n') {
			if (p[1] && o + 2 < sizeof text) {
				text[o++] = ';';
				text[o++] = ' ';
			}
			continue;
		}
		text[o++] = *p;
	}
	text[o] = '\0';
	return text;
}

/* ---- the probe ---------------------------------------------------------------- */

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

/* the socket under a TLS session: non-blocking, its errno kept */
typedef struct tls_bio {
	int fd;
	int err;
} tls_bio;

static int bio_send(void *ctx, const unsigned char *buf, size_t len)
{
	tls_bio *b = ctx;
	ssize_t n = send(b->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n >= 0)
		return (int)n;
	if (errno == EAGAIN || errno == EINTR)
		return MBEDTLS_ERR_SSL_WANT_WRITE;
	b->err = errno;
	return errno == EPIPE || errno == ECONNRESET ? MBEDTLS_ERR_NET_CONN_RESET : MBEDTLS_ERR_NET_SEND_FAILED;
}

static int bio_recv(void *ctx, unsigned char *buf, size_t len)
{
	tls_bio *b = ctx;
	ssize_t n = recv(b->fd, buf, len, MSG_DONTWAIT);
	if (n >= 0)
		return (int)n; /* 0: the peer closed (MBEDTLS_ERR_SSL_CONN_EOF) */
	if (errno == EAGAIN || errno == EINTR)
		return MBEDTLS_ERR_SSL_WANT_READ;
	b->err = errno;
	return errno == ECONNRESET ? MBEDTLS_ERR_NET_CONN_RESET : MBEDTLS_ERR_NET_RECV_FAILED;
}

static void ssl_fail(sp_tls_out *o, int rc, const char *stage, int sys_errno)
{
	if (rc == MBEDTLS_ERR_SSL_CONN_EOF || rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || rc == MBEDTLS_ERR_NET_CONN_RESET ||
	    rc == 0) {
		o->closed = true;
		fail(o, "%s: the peer closed the connection (%s)", stage, sys_errno ? ename(sys_errno) : "EOF");
	} else {
		char buf[160];
		mbedtls_strerror(rc, buf, sizeof buf);
		fail(o, "%s: %s", stage, buf[0] ? buf : "TLS error");
	}
}

enum { TLS_TIMED_OUT = -0x7ffe };

/* drive one TLS call until done, the deadline, or an error: > 0 (or 0 for
 * the handshake) when done, TLS_TIMED_OUT, or mbedTLS's error */
static int ssl_drive(mbedtls_ssl_context *ssl, int fd, uint64_t deadline, int (*op)(mbedtls_ssl_context *, void *, int),
		     void *buf, int len)
{
	for (;;) {
		int rc = op(ssl, buf, len);
		short ev = rc == MBEDTLS_ERR_SSL_WANT_READ ? POLLIN : rc == MBEDTLS_ERR_SSL_WANT_WRITE ? POLLOUT
												       : 0;
		if (!ev)
			return rc;
		if (sp_net_wait(fd, ev, deadline) < 0)
			return TLS_TIMED_OUT;
	}
}

static int op_connect(mbedtls_ssl_context *ssl, void *buf, int len)
{
	(void)buf;
	(void)len;
	return mbedtls_ssl_handshake(ssl);
}

static int op_write(mbedtls_ssl_context *ssl, void *buf, int len)
{
	return mbedtls_ssl_write(ssl, buf, (size_t)len);
}

static int op_read(mbedtls_ssl_context *ssl, void *buf, int len)
{
	return mbedtls_ssl_read(ssl, buf, (size_t)len);
}

static bool in_fpr(const sp_tls_trust *t, const mbedtls_x509_crt *x)
{
	char f[65];
	fpr_of(x, f);
	return f[0] && sp_strv_contains(&t->fpr, f);
}

/* what verification saw: the top of the chain it built (the trust anchor
 * when it verified), and an address the leaf must name */
typedef struct verify_seen {
	int top;
	char anchor[65];
	unsigned char ip[16];
	size_t iplen;
} verify_seen;

static bool names_ip(const mbedtls_x509_crt *c, const unsigned char *ip, size_t iplen)
{
	for (const mbedtls_x509_sequence *s = &c->subject_alt_names; s && s->buf.p; s = s->next)
		if ((s->buf.tag & 0xdf) == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 7) && s->buf.len == iplen &&
		    !memcmp(s->buf.p, ip, iplen))
			return true;
	return false;
}

static int on_verify(void *arg, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
	verify_seen *v = arg;
	if (depth >= v->top) {
		v->top = depth;
		fpr_of(crt, v->anchor);
	}
	if (depth == 0 && v->iplen && !names_ip(crt, v->ip, v->iplen))
		*flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
	return 0;
}

static void judge_chain(const sp_tls_req *q, mbedtls_ssl_context *ssl, const verify_seen *seen, sp_tls_out *o)
{
	const mbedtls_x509_crt *ca = q->trust ? q->trust->ca : NULL;
	const mbedtls_x509_crt *leaf = mbedtls_ssl_get_peer_cert(ssl);
	o->verify = (long)mbedtls_ssl_get_verify_result(ssl);
	if (crt_present(leaf)) {
		char s[96], i[96];
		name_of(&leaf->subject, s, sizeof s);
		name_of(&leaf->issuer, i, sizeof i);
		snprintf(o->leaf, sizeof o->leaf, "%s, issued by %s", s, i);
	}
	/* who signed what the server sent: checked with the CA's own key */
	for (const mbedtls_x509_crt *x = leaf; crt_present(x) && !o->issued_by_ca; x = x->next) {
		for (const mbedtls_x509_crt *a = ca; crt_present(a) && !o->issued_by_ca; a = a->next)
			if (issued_by(a, x))
				o->issued_by_ca = true;
		if (q->trust && in_fpr(q->trust, x))
			o->issued_by_ca = true; /* the server sent the CA itself in its chain */
	}
	if (o->verify == 0 && seen->top >= 0 && seen->anchor[0]) {
		snprintf(o->anchor, sizeof o->anchor, "%.16s", seen->anchor);
		o->anchor_is_ca = q->trust && sp_strv_contains(&q->trust->fpr, seen->anchor);
	}
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

/* the store the handshake verifies against: every certificate of every
 * tls.store file in one chain (NULL when none loads) */
static mbedtls_x509_crt *load_store(const sp_tls_req *q)
{
	mbedtls_x509_crt *chain = sp_xmalloc(sizeof *chain);
	mbedtls_x509_crt_init(chain);
	for (size_t i = 0; q->trust && i < q->trust->store.n; i++) {
		size_t len = 0;
		int e = 0;
		_cleanup_free_ char *buf = sp_read_file_alloc(q->trust->store.v[i], 16u << 20, &len, &e);
		if (buf)
			parse_into(chain, buf, len);
	}
	if (!crt_present(chain)) {
		sp_tls_free_certs(chain);
		return NULL;
	}
	return chain;
}

static void tls_exchange(sp_tls_req *q, int fd, uint64_t deadline)
{
	sp_tls_out *o = &q->out;
	mbedtls_entropy_context entropy;
	mbedtls_ctr_drbg_context drbg;
	mbedtls_ssl_config conf;
	mbedtls_ssl_context ssl;
	mbedtls_entropy_init(&entropy);
	mbedtls_ctr_drbg_init(&drbg);
	mbedtls_ssl_config_init(&conf);
	mbedtls_ssl_init(&ssl);
	mbedtls_x509_crt *store = load_store(q);
	tls_bio bio = {.fd = fd};
	verify_seen seen = {.top = -1};
	static const unsigned char pers[] = "sandprobe-doctor tls";
	int rc = mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, pers, sizeof pers - 1);
	if (rc == 0)
		rc = mbedtls_ssl_config_defaults(&conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
						 MBEDTLS_SSL_PRESET_DEFAULT);
	if (rc != 0) {
		fail(o, "cannot create a TLS context");
		goto out;
	}
	mbedtls_ssl_conf_rng(&conf, mbedtls_ctr_drbg_random, &drbg);
	/* finish the handshake whatever the verdict, then read it */
	mbedtls_ssl_conf_authmode(&conf, MBEDTLS_SSL_VERIFY_OPTIONAL);
	mbedtls_ssl_conf_ca_chain(&conf, store, NULL);
	mbedtls_ssl_conf_verify(&conf, on_verify, &seen);
	if (mbedtls_ssl_setup(&ssl, &conf) != 0) {
		fail(o, "cannot create a TLS session");
		goto out;
	}
	mbedtls_ssl_set_bio(&ssl, &bio, bio_send, bio_recv, NULL);
	if (q->host[0] && !is_ip(q->host)) {
		/* SNI and the name the certificate must carry */
		mbedtls_ssl_set_hostname(&ssl, q->host);
	} else if (q->host[0]) {
		/* an address: no SNI; the leaf must name it (iPAddress) */
		seen.iplen = inet_pton(AF_INET, q->host, seen.ip) == 1 ? 4 : inet_pton(AF_INET6, q->host, seen.ip) == 1 ? 16
															: 0;
	}
	rc = ssl_drive(&ssl, fd, deadline, op_connect, NULL, 0);
	if (rc == TLS_TIMED_OUT) {
		o->err = ETIMEDOUT;
		fail(o, "TLS handshake: no answer before the deadline");
		goto out;
	}
	if (rc != 0) {
		ssl_fail(o, rc, "TLS handshake", bio.err);
		goto out;
	}
	if (!store)
		seen.top = -1; /* nothing to verify against: no anchor */
	o->stage = SP_TS_HANDSHAKE;
	judge_chain(q, &ssl, &seen, o);
	char host[160], req[400];
	host_header(q, host, sizeof host);
	snprintf(req, sizeof req, "GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\nAccept: */*\r\n"
				  "Connection: close\r\n\r\n", host);
	rc = ssl_drive(&ssl, fd, deadline, op_write, req, (int)strlen(req));
	if (rc <= 0) {
		if (rc == TLS_TIMED_OUT)
			o->err = ETIMEDOUT;
		ssl_fail(o, rc, "sending the request", bio.err);
		goto out;
	}
	char head[2048];
	size_t got = 0;
	while (got + 1 < sizeof head) {
		rc = ssl_drive(&ssl, fd, deadline, op_read, head + got, (int)(sizeof head - 1 - got));
		if (rc <= 0)
			break;
		got += (size_t)rc;
		head[got] = '\0';
		if (strstr(head, "\r\n\r\n"))
			break;
	}
	head[got] = '\0';
	if (got == 0) {
		if (rc == TLS_TIMED_OUT) {
			o->err = ETIMEDOUT;
			fail(o, "no HTTP answer inside TLS before the deadline");
		} else {
			ssl_fail(o, rc, "reading the answer", bio.err);
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
	mbedtls_ssl_free(&ssl);
	mbedtls_ssl_config_free(&conf);
	mbedtls_ctr_drbg_free(&drbg);
	mbedtls_entropy_free(&entropy);
	sp_tls_free_certs(store);
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
		ssize_t n = s < 0 ? s : sp_net_read_head(fd, head, sizeof head, deadline, true);
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
		ssize_t n = s < 0 ? s : sp_net_read_head(fd, head, sizeof head, deadline, true);
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
	sp_tls_run(q);
	return sp_write_all(fd, &q->out, sizeof q->out) == 0 ? 0 : 3;
}
