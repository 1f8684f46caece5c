/* The writing side of a bundle, shared by soak (MANIFEST.sig, --sign-key)
 * and keygen: SHA-256 as hex, Ed25519 signing, PEM private keys in and out.
 * The MANIFEST text itself is sp_ev_manifest_build (ev_integrity.c), the
 * same code verify reads it back with. */
#include "evidence/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

int sp_ev_sign(void *pkey, const void *data, size_t len, char sig_b64[90], size_t *siglen)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[64];
	size_t sl = sizeof sig;
	int r = -1;
	if (ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, pkey) == 1 &&
	    EVP_DigestSign(ctx, sig, &sl, data, len) == 1 && sl == 64) {
		int bl = EVP_EncodeBlock((unsigned char *)sig_b64, sig, 64); /* 88 */
		sig_b64[bl] = '\n';
		sig_b64[bl + 1] = '\0';
		*siglen = (size_t)bl + 1;
		r = 0;
	}
	EVP_MD_CTX_free(ctx);
	return r;
}

void *sp_ev_keygen(void)
{
	return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
}

/* -1 with o: errnum e, why strerror(e) */
static int pem_why(sp_outcome *o, int e)
{
	return sp_why_errno(o, e, "%s", strerror(e));
}

int sp_ev_pem_write(const char *path, unsigned mode, void *pkey, bool private_key, sp_outcome *o)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
	if (fd < 0)
		return pem_why(o, errno);
	if (fchmod(fd, (mode_t)mode) < 0) { /* whatever the umask */
		int e = errno;
		close(fd);
		unlink(path);
		return pem_why(o, e);
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		unlink(path);
		return pem_why(o, e);
	}
	int ok = private_key ? PEM_write_PKCS8PrivateKey(f, pkey, NULL, NULL, 0, NULL, NULL) : PEM_write_PUBKEY(f, pkey);
	if (fclose(f) != 0 || !ok) {
		unlink(path);
		return pem_why(o, EIO);
	}
	return 0;
}
