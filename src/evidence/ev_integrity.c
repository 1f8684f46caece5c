/* Integrity of a bundle: SHA-256 (OpenSSL EVP, chunked), the MANIFEST in
 * sha256sum format, the list of files a bundle holds, Ed25519 signatures. */
#include "evidence/evidence.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

/* ---- MANIFEST ---------------------------------------------------------- */
void sp_ev_manifest_free(sp_ev_manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool path_ok(const char *p, size_t n)
{
	if (!n || p[0] == '/' || p[n - 1] == '/')
		return false;
	size_t s = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || p[i] == '/') {
			size_t l = i - s;
			if (l == 0 || (l == 1 && p[s] == '.') || (l == 2 && p[s] == '.' && p[s + 1] == '.'))
				return false;
			s = i + 1;
		} else if (p[i] == '\\') {
			return false; /* sha256sum escapes such names: not in a bundle */
		}
	}
	return sp_ev_is_text(p, n);
}

int sp_ev_manifest_parse(sp_ev_manifest *m, const char *buf, size_t len, sp_error *err)
{
	m->v = NULL;
	m->n = 0;
	size_t pos = 0, cap = 0;
	unsigned line = 0;
	if (len == 0)
		return sp_usage(err, "MANIFEST is empty");
	while (pos < len) {
		line++;
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		if (!nl) {
			sp_ev_manifest_free(m);
			return sp_usage(err, "MANIFEST line %u: truncated (no newline)", line);
		}
		size_t l = (size_t)(nl - s);
		pos += l + 1;
		if (l < 67 || s[64] != ' ' || s[65] != ' ' || !sp_ev_is_hex(s, 64, 64)) {
			sp_ev_manifest_free(m);
			return sp_usage(err, "MANIFEST line %u: not '<64 lowercase hex>  <path>'", line);
		}
		const char *p = s + 66;
		size_t pl = l - 66;
		if (!path_ok(p, pl) || memchr(p, '\0', pl)) {
			sp_ev_manifest_free(m);
			return sp_usage(err, "MANIFEST line %u: path is not a plain relative path", line);
		}
		char *path = sp_xstrndup(p, pl);
		if (!strcmp(path, "MANIFEST") || !strcmp(path, "MANIFEST.sig") || !strcmp(path, "verify.out")) {
			int r = sp_usage(err, "MANIFEST line %u: %s must not be listed", line, path);
			free(path);
			sp_ev_manifest_free(m);
			return r;
		}
		if (m->n && strcmp(m->v[m->n - 1].path, path) >= 0) {
			int r = sp_usage(err, "MANIFEST line %u: %s %s", line, path,
					 strcmp(m->v[m->n - 1].path, path) ? "is out of order (not sorted by path)"
									   : "is listed twice");
			free(path);
			sp_ev_manifest_free(m);
			return r;
		}
		if (m->n == cap) {
			cap = cap ? 2 * cap : 16;
			m->v = sp_xrealloc(m->v, cap * sizeof *m->v);
		}
		m->v[m->n].path = path;
		for (int i = 0; i < 32; i++)
			m->v[m->n].digest[i] = (unsigned char)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
		m->n++;
	}
	return 0;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(const char *root, const char *rel, char ***paths, size_t *n, size_t *cap, int depth, sp_error *err)
{
	_cleanup_free_ char *dpath = rel ? sp_xasprintf("%s/%s", root, rel) : sp_xstrdup(root);
	if (depth > 8)
		return sp_usage(err, "%s: directories nested too deep", rel ? rel : ".");
	int fd = open(dpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return sp_fail_errno(err, errno, "%s", rel ? rel : dpath);
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return sp_fail_errno(err, errno, "%s", dpath);
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		_cleanup_free_ char *r = rel ? sp_xasprintf("%s/%s", rel, de->d_name) : sp_xstrdup(de->d_name);
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return sp_fail_errno(err, errno, "%s", r);
		/* the three files the MANIFEST does not list: skipped only as what
		 * they are (a directory of that name would hide files) */
		if (!rel && (!strcmp(de->d_name, "MANIFEST") || !strcmp(de->d_name, "MANIFEST.sig") ||
			     !strcmp(de->d_name, "verify.out"))) {
			if (S_ISREG(st.st_mode))
				continue;
			return sp_usage(err, "%s: not a regular file (%s)", r,
					S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a symlink"
												  : "special file");
		}
		if (S_ISDIR(st.st_mode)) {
			if (walk(root, r, paths, n, cap, depth + 1, err) < 0)
				return -1;
		} else if (S_ISREG(st.st_mode)) {
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 32;
				*paths = sp_xrealloc(*paths, *cap * sizeof **paths);
			}
			(*paths)[(*n)++] = steal_pointer(&r);
		} else {
			return sp_usage(err, "%s: not a regular file or directory (%s)", r,
					S_ISLNK(st.st_mode) ? "symlink" : "special file");
		}
	}
	return 0;
}

int sp_bundle_list(const char *dir, char ***paths, size_t *n, sp_error *err)
{
	size_t cap = 0;
	*paths = NULL;
	*n = 0;
	if (walk(dir, NULL, paths, n, &cap, 0, err) < 0) {
		for (size_t i = 0; i < *n; i++)
			free((*paths)[i]);
		free(*paths);
		*paths = NULL;
		*n = 0;
		return -1;
	}
	qsort(*paths, *n, sizeof **paths, cmpstr);
	return 0;
}

char *sp_ev_manifest_build(const char *dir, sp_error *err)
{
	char **paths;
	size_t n;
	if (sp_bundle_list(dir, &paths, &n, err) < 0)
		return NULL;
	size_t cap = 4096, len = 0;
	char *out = sp_xmalloc(cap);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (strchr(paths[i], '\n') || strchr(paths[i], '\\')) {
			sp_usage(err, "%s: file name not representable in MANIFEST", paths[i]);
			free(out);
			out = NULL;
			break;
		}
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", dir, paths[i]);
		char hex[65];
		sp_outcome o = {0};
		if (sp_ev_sha256_file_hex(p, hex, &o) < 0) {
			sp_fail_errno(err, o.errnum, "%s", paths[i]);
			free(out);
			out = NULL;
			break;
		}
		size_t need = 64 + 2 + strlen(paths[i]) + 2;
		while (len + need >= cap) {
			cap *= 2;
			out = sp_xrealloc(out, cap);
		}
		len += (size_t)snprintf(out + len, cap - len, "%s  %s\n", hex, paths[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return out;
}

/* ---- Ed25519 ----------------------------------------------------------- */
/* an Ed25519 key from a PEM file, named by the flag that gave it */
static int load_ed25519(void **pkey, const char *path, bool private_key, sp_error *err)
{
	const char *flag = private_key ? "--sign-key" : "--pubkey";
	*pkey = NULL;
	FILE *f = fopen(path, "re");
	if (!f)
		return sp_usage(err, "%s %s: %s", flag, path, strerror(errno));
	EVP_PKEY *k = private_key ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
	if (!k)
		return sp_usage(err, "%s %s: not a PEM %s key", flag, path, private_key ? "private" : "public");
	if (EVP_PKEY_get_id(k) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(k);
		return sp_usage(err, "%s %s: not an Ed25519 key%s", flag, path,
				private_key ? " (make one with 'sandprobe keygen')" : "");
	}
	*pkey = k;
	return 0;
}

int sp_pubkey_load(void **pkey, const char *path, sp_error *err)
{
	return load_ed25519(pkey, path, false, err);
}

int sp_privkey_load(void **pkey, const char *path, sp_error *err)
{
	return load_ed25519(pkey, path, true, err);
}

void sp_pubkey_free(void *pkey)
{
	EVP_PKEY_free(pkey);
}

int sp_sig_verify(void *pkey, const void *data, size_t len, const char *sig_b64, size_t siglen, sp_error *err)
{
	/* one line: base64 of exactly 64 bytes (88 characters), then a newline */
	if (siglen && sig_b64[siglen - 1] == '\n')
		siglen--;
	if (siglen != 88) {
		sp_usage(err, "MANIFEST.sig is not one line of base64 of a 64-byte signature");
		return 0;
	}
	for (size_t i = 0; i < siglen; i++) {
		char c = sig_b64[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
		      c == '/' || (c == '=' && i >= 86))) {
			sp_usage(err, "MANIFEST.sig: invalid base64 character at offset %zu", i);
			return 0;
		}
	}
	unsigned char raw[72];
	int n = EVP_DecodeBlock(raw, (const unsigned char *)sig_b64, (int)siglen);
	/* EVP_DecodeBlock counts padding bytes: 88 chars with "==" -> 66 */
	if (n != 66 || sig_b64[86] != '=' || sig_b64[87] != '=') {
		sp_usage(err, "MANIFEST.sig does not decode to 64 bytes");
		return 0;
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx)
		return sp_fail_errno(err, ENOMEM, "openssl: out of memory");
	int ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pkey) == 1 &&
		 EVP_DigestVerify(ctx, raw, 64, data, len) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		sp_usage(err, "Ed25519 signature of MANIFEST does not verify with the given public key");
	return ok ? 1 : 0;
}
