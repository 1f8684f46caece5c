/* Filesystems and mounts. Every write probe uses an exclusive-create unique
 * name, removes what it made and proves the removal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/util.h"

static void run_rootfs_readonly(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "fs.rootfs_readonly", true);
	sp_expected(r, "%s", must ? "a create at / fails with EROFS, and / is mounted ro" : "any (not required by policy)");
	sp_mount m;
	int mr = sp_mountinfo_find("/", &m);
	bool flag_ro = mr == 0 && (sp_opt_has(m.opts, "ro") || sp_opt_has(m.super_opts, "ro"));
	char name[256];
	sp_probe_name(name, sizeof name, "/");
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	int e = errno;
	if (fd >= 0) {
		close(fd);
		int u = unlink(name);
		struct stat st;
		bool gone = lstat(name, &st) < 0 && errno == ENOENT;
		sp_observed(r, "created %s (%s); mountinfo / %s%s", name,
			    u == 0 && gone ? "removed, verified gone" : "COULD NOT REMOVE", mr == 0 ? m.opts : "unreadable",
			    mr == 0 ? "" : "");
		if (u != 0 || !gone) {
			sp_errorr(r, "root is writable and the probe file %s could not be removed", name);
			return;
		}
		if (must)
			sp_failr(r, "the root filesystem accepted a new file");
		else
			sp_pass(r, "root writable, not required by policy");
		return;
	}
	sp_observed(r, "create at / failed with %s; mountinfo / %s (%s)", strerrorname_np(e) ? strerrorname_np(e) : "?",
		    mr == 0 ? m.opts : "unreadable", mr == 0 ? m.fstype : "-");
	if (mr != 0) {
		sp_errorr(r, "cannot read /proc/self/mountinfo to cross-check: %s", strerror(-mr));
		return;
	}
	if (e == EROFS) {
		if (flag_ro)
			sp_pass(r, "write refused with EROFS, / mounted ro");
		else
			sp_pass(r, "write refused with EROFS (mountinfo shows rw on a read-only superblock)");
	} else if (e == EACCES || e == EPERM) {
		if (flag_ro)
			sp_pass(r, "write refused with %s, / mounted ro", strerrorname_np(e));
		else if (must)
			sp_warn(r, "write refused by permissions only: / is mounted rw, a more privileged user could write");
		else
			sp_pass(r, "write refused by permissions, not required by policy");
	} else {
		sp_errorr(r, "unexpected error from the write probe: %s", strerror(e));
	}
}

/* create, write, read back, delete, and prove the deletion */
static int probe_dir(const char *dir, char *why, size_t whysz)
{
	char name[512];
	sp_probe_name(name, sizeof name, dir);
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(why, whysz, "create: %s", strerror(errno));
		return -1;
	}
	char pattern[4096], back[4096];
	for (size_t i = 0; i < sizeof pattern; i++)
		pattern[i] = (char)('a' + (i * 7 + (size_t)fd) % 26);
	int ok = sp_write_all(fd, pattern, sizeof pattern) == 0 && lseek(fd, 0, SEEK_SET) == 0;
	ssize_t got = ok ? read(fd, back, sizeof back) : -1;
	int rerr = errno;
	close(fd);
	int u = unlink(name);
	struct stat st;
	bool gone = lstat(name, &st) < 0 && errno == ENOENT;
	if (!ok || got != (ssize_t)sizeof back || memcmp(pattern, back, sizeof back) != 0) {
		snprintf(why, whysz, "write/read back failed: %s", got < 0 ? strerror(rerr) : "content differs");
		return -1;
	}
	if (u != 0 || !gone) {
		snprintf(why, whysz, "probe %s could not be removed", name);
		return -2;
	}
	snprintf(why, whysz, "create/write/read/delete ok");
	return 0;
}

static void run_writable_paths(const sp_ctx *ctx, sp_result *r)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.writable", &paths);
	if (paths.n == 0) {
		sp_expected(r, "no writable paths declared");
		sp_skip(r, "policy declares no writable paths (fs.writable)");
		sp_strv_free(&paths);
		return;
	}
	sp_expected(r, "create/read/delete works in %s", sp_policy_get(ctx->policy, "fs.writable"));
	size_t bad = 0, leaked = 0;
	for (size_t i = 0; i < paths.n; i++) {
		char why[600];
		int pr = probe_dir(paths.v[i], why, sizeof why);
		sp_observed_add(r, "%s: %s", paths.v[i], why);
		bad += pr < 0;
		leaked += pr == -2;
	}
	if (leaked)
		sp_errorr(r, "a probe file could not be removed");
	else if (bad)
		sp_failr(r, "%zu of %zu writable paths refused create/read/delete", bad, paths.n);
	else
		sp_pass(r, "all %zu writable paths accept create/read/delete (probes removed)", paths.n);
	sp_strv_free(&paths);
}

const sp_check sp_check_fs_rootfs_readonly = {
	.id = "fs.rootfs_readonly",
	.category = "filesystem",
	.title = "root filesystem read-only",
	.rationale = "a writable root lets a compromised workload persist and tamper with its own tools",
	.techniques = "T1554,T1611",
	.policy_keys = "fs.rootfs_readonly:bool",
	.method = "action",
	.run = run_rootfs_readonly,
};

const sp_check sp_check_fs_writable_paths = {
	.id = "fs.writable_paths",
	.category = "filesystem",
	.title = "declared writable paths usable",
	.rationale = "a sandbox must stay usable: its scratch and workspace paths must accept files",
	.techniques = "",
	.policy_keys = "fs.writable:list",
	.method = "action",
	.run = run_writable_paths,
};
