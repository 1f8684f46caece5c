/* ws.*: a workspace shared into the sandbox from its host (a microVM's 9p or
 * virtiofs folder). ws.path names the mount inside. ws.mount: it is a mount
 * of a shared-folder filesystem type; ws.io: writes, a large file,
 * subdirectories, delete and recreate work and read back as written;
 * ws.confined: host paths outside the shared directory (ws.outside, which
 * whoever shares the folder places there) are not reachable through it,
 * neither as entries of the mount nor by `..` from it. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define WS_BLOCK 4096u
#define WS_LARGE_BLOCKS 2048u /* 8 MiB */
#define WS_WALK_MAX 20000

static const char *const ws_fstypes[] = {"9p", "virtiofs"};

/* the single absolute path of key (0), none (1), or several (-1) */
static int ws_one(const sp_ctx *ctx, const char *key, char *out, size_t outsz)
{
	sp_strv v;
	sp_policy_list(ctx->policy, key, &v);
	int rc = 0;
	if (v.n != 1)
		rc = v.n == 0 ? 1 : -1;
	if (rc == 0)
		snprintf(out, outsz, "%s", v.v[0]);
	sp_strv_free(&v);
	return rc;
}

static bool ws_declared(const sp_ctx *ctx, sp_outcome *o)
{
	char p[PATH_MAX];
	if (ws_one(ctx, "ws.path", p, sizeof p) == 1) {
		sp_why(o, "ws.path is unset: no shared workspace declared");
		return false;
	}
	return true;
}

/* ws.path, or an error result */
static bool ws_path(const sp_ctx *ctx, sp_result *r, char *p, size_t psz)
{
	if (ws_one(ctx, "ws.path", p, psz) != 0) {
		sp_errorr(r, "ws.path: give exactly one absolute path");
		return false;
	}
	return true;
}

static void run_ws_mount(const sp_ctx *ctx, sp_result *r)
{
	char p[PATH_MAX];
	sp_expected(r, "ws.path is a mount point of a shared-folder filesystem (9p or virtiofs)");
	if (!ws_path(ctx, r, p, sizeof p))
		return;
	sp_mount m;
	int e = sp_mountinfo_find(p, &m);
	if (e < 0 && e != -ENOENT) {
		sp_errorr(r, "/proc/self/mountinfo: %s", strerror(-e));
		return;
	}
	if (e < 0 || strcmp(m.mountpoint, p)) {
		sp_observed(r, "%s: not a mount point (inside the mount of %s)", p, e < 0 ? "?" : m.mountpoint);
		sp_failr(r, "the workspace is not mounted");
		return;
	}
	sp_observed(r, "%s: %s from '%s', %s", p, m.fstype, m.source, m.super_opts);
	for (size_t i = 0; i < SP_ARRAY_SIZE(ws_fstypes); i++)
		if (!strcmp(m.fstype, ws_fstypes[i])) {
			sp_pass(r, "%s is a %s mount", p, m.fstype);
			return;
		}
	sp_failr(r, "%s is a %s mount, not a shared folder (9p or virtiofs)", p, m.fstype);
}

/* ---- ws.io ---- */

static void ws_block(unsigned char *b, uint64_t k)
{
	for (unsigned i = 0; i < 8; i++)
		b[i] = (unsigned char)(k >> (8 * i));
	memset(b + 8, (int)(k & 0xff), WS_BLOCK - 8);
}

/* the reasons of ws_write and ws_equal are the call's strerror alone: the
 * caller names the file */
static int ws_errno(sp_outcome *o, int e)
{
	return sp_why_errno(o, e, "%s", strerror(e));
}

/* 0, or -1 with o */
static int ws_write(const char *path, const void *data, size_t len, bool excl, sp_outcome *o)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | (excl ? O_EXCL : 0), 0644);
	if (fd < 0)
		return ws_errno(o, errno);
	if (sp_write_all(fd, data, len) < 0 || fsync(fd) < 0)
		return ws_errno(o, errno);
	return 0;
}

/* does path hold exactly want (len bytes)? 1 yes, 0 no, -1 with o */
static int ws_equal(const char *path, const char *want, size_t len, sp_outcome *o)
{
	char buf[256];
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return ws_errno(o, errno);
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < 0)
		return ws_errno(o, errno);
	return (size_t)n == len && !memcmp(buf, want, len);
}

static ssize_t ws_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* the large file: written block by block, then read back and compared */
static int ws_large(const char *path, sp_outcome *o)
{
	unsigned char *b = sp_xcalloc(2, WS_BLOCK), *rb = b + WS_BLOCK;
	int rc = -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		sp_why_errno(o, errno, "create %s: %s", path, strerror(errno));
		goto out;
	}
	for (uint64_t k = 0; k < WS_LARGE_BLOCKS; k++) {
		ws_block(b, k);
		if (sp_write_all(fd, b, WS_BLOCK) < 0) {
			sp_why_errno(o, errno, "write %s block %llu: %s", path, (unsigned long long)k, strerror(errno));
			close(fd);
			goto out;
		}
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		sp_why_errno(o, errno, "fsync/close %s: %s", path, strerror(errno));
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		sp_why_errno(o, errno, "reopen %s: %s", path, strerror(errno));
		goto close_out;
	}
	if ((uint64_t)st.st_size != (uint64_t)WS_LARGE_BLOCKS * WS_BLOCK) {
		sp_why(o, "%s: size %lld after writing %u", path, (long long)st.st_size, WS_LARGE_BLOCKS * WS_BLOCK);
		goto close_out;
	}
	for (uint64_t k = 0; k < WS_LARGE_BLOCKS; k++) {
		ws_block(b, k);
		ssize_t n = ws_read_full(fd, rb, WS_BLOCK);
		if (n != (ssize_t)WS_BLOCK || memcmp(b, rb, WS_BLOCK)) {
			const char *how = n != (ssize_t)WS_BLOCK ? "short" : "different";
			sp_why(o, "%s: block %llu reads back %s", path, (unsigned long long)k, n < 0 ? strerror(errno) : how);
			goto close_out;
		}
	}
	rc = 0;
close_out:
	if (fd >= 0)
		close(fd);
out:
	free(b);
	return rc;
}

static int ws_rm_cb(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return (type == FTW_DP ? rmdir(p) : unlink(p)) < 0 ? -1 : 0;
}

static void run_ws_io(const sp_ctx *ctx, sp_result *r)
{
	char p[PATH_MAX], keep[PATH_MAX];
	sp_expected(r, "in ws.path: a write reads back, an %u MiB file reads back block for block, nested "
		       "subdirectories hold a file, a deleted file is gone and recreated with new content",
		    WS_LARGE_BLOCKS * WS_BLOCK >> 20);
	if (!ws_path(ctx, r, p, sizeof p))
		return;
	int kr = ws_one(ctx, "ws.proof", keep, sizeof keep);
	if (kr < 0) {
		sp_errorr(r, "ws.proof: give one absolute path");
		return;
	}
	size_t plen = strlen(p);
	if (kr == 0 && (strncmp(keep, p, plen) || keep[plen] != '/' || strstr(keep, "/.."))) {
		sp_errorr(r, "ws.proof %s is not a directory under ws.path %s", keep, p);
		return;
	}
	char dir[PATH_MAX];
	if (kr == 0)
		snprintf(dir, sizeof dir, "%s", keep);
	else
		sp_probe_name(dir, sizeof dir, p);
	if (mkdir(dir, 0755) < 0) {
		sp_observed(r, "mkdir %s: %s", dir, strerror(errno));
		sp_failr(r, "cannot make a directory in the workspace");
		return;
	}
	char f[PATH_MAX + 64], why[PATH_MAX + 128] = "";
	const char *step = "write";
	static const char small[] = "sandprobe ws.io small\n", first[] = "sandprobe ws.io first\n",
			  second[] = "sandprobe ws.io second, after delete\n", deep[] = "sandprobe ws.io nested\n";
	int e;
	sp_outcome o = {0};
	struct stat st;
	/* a small write read back */
	snprintf(f, sizeof f, "%s/small", dir);
	if ((e = ws_write(f, small, sizeof small - 1, true, &o)) < 0 ||
	    (e = ws_equal(f, small, sizeof small - 1, &o)) != 1) {
		snprintf(why, sizeof why, "%s: %s", f, e < 0 ? o.why : "reads back different");
		goto bad;
	}
	sp_observed_add(r, "small write read back");
	step = "large file";
	snprintf(f, sizeof f, "%s/large", dir);
	if (ws_large(f, &o) < 0) {
		snprintf(why, sizeof why, "%s", o.why);
		goto bad;
	}
	sp_observed_add(r, "%u MiB written and read back block for block", WS_LARGE_BLOCKS * WS_BLOCK >> 20);
	step = "subdirectories";
	snprintf(f, sizeof f, "%s/sub", dir);
	if (mkdir(f, 0755) < 0)
		goto bad_errno;
	snprintf(f, sizeof f, "%s/sub/a", dir);
	if (mkdir(f, 0755) < 0)
		goto bad_errno;
	snprintf(f, sizeof f, "%s/sub/a/b", dir);
	if (mkdir(f, 0755) < 0)
		goto bad_errno;
	snprintf(f, sizeof f, "%s/sub/a/b/file", dir);
	if ((e = ws_write(f, deep, sizeof deep - 1, true, &o)) < 0 || (e = ws_equal(f, deep, sizeof deep - 1, &o)) != 1) {
		snprintf(why, sizeof why, "%s: %s", f, e < 0 ? o.why : "reads back different");
		goto bad;
	}
	snprintf(f, sizeof f, "%s/sub/a/b", dir);
	if (stat(f, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof why, "%s: not a directory after mkdir", f);
		goto bad;
	}
	sp_observed_add(r, "sub/a/b/file written and read back");
	step = "delete and recreate";
	snprintf(f, sizeof f, "%s/recreated", dir);
	if (ws_write(f, first, sizeof first - 1, true, &o) < 0)
		goto bad_o;
	if (unlink(f) < 0)
		goto bad_errno;
	if (lstat(f, &st) == 0 || errno != ENOENT) {
		snprintf(why, sizeof why, "%s: still there after unlink", f);
		goto bad;
	}
	if ((e = ws_write(f, second, sizeof second - 1, true, &o)) < 0 ||
	    (e = ws_equal(f, second, sizeof second - 1, &o)) != 1) {
		snprintf(why, sizeof why, "%s: %s", f, e < 0 ? o.why : "reads back different after recreate");
		goto bad;
	}
	/* a deleted file stays deleted */
	snprintf(f, sizeof f, "%s/deleted", dir);
	if (ws_write(f, first, sizeof first - 1, true, &o) < 0)
		goto bad_o;
	if (unlink(f) < 0)
		goto bad_errno;
	if (lstat(f, &st) == 0 || errno != ENOENT) {
		snprintf(why, sizeof why, "%s: still there after unlink", f);
		goto bad;
	}
	sp_observed_add(r, "deleted, gone, recreated with new content");
	if (kr == 0) {
		sp_observed_add(r, "kept in %s (ws.proof)", dir);
	} else {
		if (nftw(dir, ws_rm_cb, 16, FTW_DEPTH | FTW_PHYS) != 0 || (lstat(dir, &st) == 0 || errno != ENOENT)) {
			sp_observed_add(r, "%s could not be removed", dir);
			sp_failr(r, "the workspace took the writes but not their removal");
			return;
		}
		sp_observed_add(r, "all removed, verified gone");
	}
	sp_pass(r, "writes, a large file, subdirectories, delete and recreate work in %s", p);
	return;
bad_errno:
	ws_errno(&o, errno);
bad_o:
	snprintf(why, sizeof why, "%s: %s", f, o.why);
bad:
	sp_observed_add(r, "%s: %s", step, why);
	if (kr != 0)
		nftw(dir, ws_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	sp_failr(r, "%s failed in the workspace", step);
}

/* ---- ws.confined ---- */

static struct {
	sp_strv names;
	size_t seen;
	char found[PATH_MAX];
} ws_walk;

static int ws_walk_cb(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	if (++ws_walk.seen > WS_WALK_MAX)
		return 2;
	for (size_t i = 0; i < ws_walk.names.n; i++)
		if (!strcmp(p + f->base, ws_walk.names.v[i])) {
			snprintf(ws_walk.found, sizeof ws_walk.found, "%s", p);
			return 1;
		}
	return 0;
}

static void run_ws_confined(const sp_ctx *ctx, sp_result *r)
{
	char p[PATH_MAX];
	sp_expected(r, "no host path outside the shared directory (ws.outside) is an entry of the workspace or "
		       "reachable by .. from it");
	if (!ws_path(ctx, r, p, sizeof p))
		return;
	sp_strv out;
	sp_policy_list(ctx->policy, "ws.outside", &out);
	if (out.n == 0) {
		sp_strv_free(&out);
		sp_skip(r, "ws.outside is empty: nothing declared outside the workspace");
		return;
	}
	sp_strv_split(&ws_walk.names, NULL, ",");
	for (size_t i = 0; i < out.n; i++) {
		const char *b = strrchr(out.v[i], '/');
		if (b && b[1])
			sp_strv_push(&ws_walk.names, b + 1);
	}
	sp_strv_free(&out);
	ws_walk.seen = 0;
	ws_walk.found[0] = '\0';
	struct stat st;
	_cleanup_close_ int dfd = -1;
	if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
		sp_errorr(r, "%s: %s", p, errno ? strerror(errno) : "not a directory");
		goto out;
	}
	int w = nftw(p, ws_walk_cb, 16, FTW_PHYS);
	if (w == 1) {
		sp_observed(r, "%s is in the workspace", ws_walk.found);
		sp_failr(r, "a host path outside the shared directory is reachable through the workspace");
		goto out;
	}
	if (w == 2) {
		sp_errorr(r, "the workspace has more than %d entries: the search for ws.outside stopped", WS_WALK_MAX);
		goto out;
	}
	if (w != 0) {
		sp_errorr(r, "walking %s: %s", p, strerror(errno));
		goto out;
	}
	sp_observed(r, "walked all %zu entries of %s: none is a ws.outside name", ws_walk.seen, p);
	/* .. from the mount's root, by path and relative to a descriptor of it */
	dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		sp_errorr(r, "open %s: %s", p, strerror(errno));
		goto out;
	}
	size_t reached = 0;
	for (size_t i = 0; i < ws_walk.names.n; i++) {
		char rel[PATH_MAX], abs[PATH_MAX * 2];
		for (int up = 1; up <= 2; up++) {
			snprintf(rel, sizeof rel, "%s%s", up == 1 ? "../" : "../../", ws_walk.names.v[i]);
			snprintf(abs, sizeof abs, "%s/%s", p, rel);
			if (fstatat(dfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 || lstat(abs, &st) == 0) {
				sp_observed_add(r, "%s reachable", abs);
				reached++;
			}
		}
	}
	if (reached) {
		sp_failr(r, "a host path outside the shared directory is reachable by .. from the workspace");
		goto out;
	}
	sp_observed_add(r, "../NAME and ../../NAME from it: not found");
	sp_pass(r, "nothing outside the shared directory is reachable through %s", p);
out:
	sp_strv_free(&ws_walk.names);
}

const sp_check sp_check_ws_mount = {
	.id = SP_CKID(ws_mount),
	.supported = ws_declared,
	.category = "filesystem",
	.title = "the workspace is a shared-folder mount (9p or virtiofs)",
	.rationale = "a VM sandbox shares the user's workspace over 9p or virtiofs: a missing or wrong mount is a broken volume",
	.techniques = "",
	.policy_keys = "ws.path:paths",
	.method = "read",
	.run = run_ws_mount,
};

const sp_check sp_check_ws_io = {
	.id = SP_CKID(ws_io),
	.supported = ws_declared,
	.category = "filesystem",
	.title = "the workspace takes writes, a large file, subdirectories, delete and recreate",
	.rationale = "shared folders break per platform: caching, large writes and recreated names are where they differ",
	.techniques = "",
	.policy_keys = "ws.path:paths,ws.proof:paths",
	.method = "action",
	.timeout_ms = 60000,
	.run = run_ws_io,
};

const sp_check sp_check_ws_confined = {
	.id = SP_CKID(ws_confined),
	.supported = ws_declared,
	.category = "filesystem",
	.title = "nothing outside the shared directory is reachable through the workspace",
	.rationale = "exporting more than the workspace (its parent, the home directory) hands the sandbox the host's files",
	.techniques = "",
	.policy_keys = "ws.path:paths,ws.outside:paths",
	.method = "action",
	.timeout_ms = 30000,
	.run = run_ws_confined,
};
