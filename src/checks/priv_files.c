/* Privileges through files: setuid/setgid files and file capabilities
 * (priv.setuid_files, priv.file_caps) and passwordless privilege-raising
 * helpers (priv.sudo_helpers). Split from privileges.c. */

#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <poll.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/emul.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the reads of PATH and sudo configuration share one child */
static const sp_batch priv_reads = {
	.id = "priv.reads",
	.what = "file capabilities on PATH, setuid privilege-raising helpers and their configuration",
};

/* ---- setuid/setgid/file-capability files ---- */

/* Does exec of the file raise someone's privileges? An owner unmapped in
 * our user namespace is ignored by exec. A file of our own id raises
 * nothing for us, but the check judges what any user of the sandbox could
 * gain (the doctor often runs as root): a setuid file of our own uid that
 * another user may execute (others' x bit, or its group's when that group
 * is not ours) gives them our uid, so it counts. */
static bool effective_hit(const sp_scan_hit *h)
{
	if (h->fcap)
		return true;
	bool su = h->mode & S_ISUID, sg = (h->mode & S_ISGID) && (h->mode & S_IXGRP);
	bool others_exec = (h->mode & S_IXOTH) || ((h->mode & S_IXGRP) && h->gid != (unsigned)getegid());
	bool su_eff = su && sp_id_mapped(h->uid, false) && (h->uid != (unsigned)geteuid() || others_exec);
	bool sg_eff = sg && sp_id_mapped(h->gid, true) && (h->gid != (unsigned)getegid() || (h->mode & S_IXOTH));
	return su_eff || sg_eff;
}

static void run_setuid_files(const sp_ctx *ctx, sp_result *r)
{
	sp_strv allow, roots;
	sp_policy_list(ctx->policy, "priv.setuid_allow", &allow);
	sp_policy_list(ctx->policy, "priv.scan_roots", &roots);
	long long budget = sp_policy_int(ctx->policy, "priv.scan_budget_ms", 2000);
	bool nnp = sp_no_new_privs();
	bool under_nnp = sp_policy_bool(ctx->policy, "priv.scan_under_nnp", false);
	sp_expected(r, "no setuid/setgid/file-capability executable that exec would honour%s%s",
		    allow.n ? " beyond priv.setuid_allow" : "", "");
	if (nnp && !under_nnp) {
		sp_observed(r, "NoNewPrivs 1: exec ignores setuid/setgid bits and file capabilities; scan not needed");
		sp_pass(r, "NoNewPrivs set: no file can raise privileges");
		sp_strv_free(&allow);
		sp_strv_free(&roots);
		return;
	}
	sp_scan_opts o = {.roots = roots.v,
			  .nroots = roots.n,
			  .budget_ns = (uint64_t)budget * 1000000ull,
			  .threads = (unsigned)sp_policy_int(ctx->policy, "priv.scan_threads", 2),
			  .all_mounts = sp_policy_bool(ctx->policy, "priv.scan_all_mounts", false),
			  .fcaps = true};
	sp_scan_result *res = sp_xcalloc(1, sizeof *res);
	int rc = sp_suid_scan(&o, res);
	if (rc < 0) {
		sp_errorr(r, "cannot read mountinfo: %s", strerror(-rc));
		goto out;
	}
	sp_observed(r, "%llu files, %llu dirs in %.1f ms on %zu mount(s), %zu nosuid/pseudo mount(s) skipped%s; "
		       "setuid %zu, setgid %zu, file caps %zu",
		    (unsigned long long)res->files, (unsigned long long)res->dirs, (double)res->elapsed_ns / 1e6,
		    res->mounts_walked, res->mounts_skipped, nnp ? " (NoNewPrivs set)" : "", res->suid, res->sgid,
		    res->fcap);
	size_t eff = 0, shown = 0;
	char first[256] = "";
	for (size_t i = 0; i < res->nhits; i++) {
		const sp_scan_hit *h = &res->hits[i];
		if (sp_strv_contains(&allow, h->path))
			continue;
		bool e = effective_hit(h) && !nnp;
		eff += e;
		if (e && !first[0])
			snprintf(first, sizeof first, "%s", h->path);
		if (shown++ < 8)
			sp_observed_add(r, "%s %04o uid %u gid %u%s%s", h->path, h->mode & 07777, h->uid, h->gid,
					h->fcap ? " file-caps" : "",
					e ? "" : " (ineffective: unmapped owner, own id and no other user may run it, or NoNewPrivs)");
	}
	if (eff)
		sp_failr(r, "%zu privilege-raising file(s) on setuid-honouring mounts (first: %s)", eff, first);
	else if (res->over_budget)
		sp_warn(r, "scan over its %lld ms budget after %llu files and %llu dirs (at %s); none found so far",
			budget, (unsigned long long)res->files, (unsigned long long)res->dirs, res->last_dir);
	else
		sp_pass(r, "no effective setuid/setgid/file-capability file in %llu files",
			(unsigned long long)res->files);
out:
	free(res);
	sp_strv_free(&allow);
	sp_strv_free(&roots);
}

const sp_check sp_check_priv_setuid_files = {
	.id = SP_CKID(priv_setuid_files),
	.category = "privileges",
	.title = "no setuid/setgid or file-capability executables",
	.rationale = "a setuid-root or capability-bearing program is a ready-made privilege escalation",
	.techniques = "T1548.001,T1068",
	.policy_keys = "priv.setuid_allow:paths,priv.scan_roots:paths,priv.scan_budget_ms:int,priv.scan_threads:int,"
		       "priv.scan_all_mounts:bool,priv.scan_under_nnp:bool",
	.method = "action",
	.run = run_setuid_files,
	.timeout_ms = 15000,
};

/* is the mount a path lies on nosuid? */
static bool path_nosuid(const char *path)
{
	struct statvfs sv;
	return statvfs(path, &sv) == 0 && (sv.f_flag & ST_NOSUID);
}

static void run_file_caps(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "no program on PATH carries file capabilities that exec would grant");
	const char *path = getenv("PATH");
	sp_strv dirs;
	sp_strv_split(&dirs, path && *path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", ":");
	bool nnp = sp_no_new_privs();
	size_t files = 0, found = 0, eff = 0;
	sp_observed(r, "PATH %zu dirs%s", dirs.n, nnp ? ", NoNewPrivs set" : "");
	if (nnp) {
		sp_strv_free(&dirs);
		sp_observed_add(r, "exec under NoNewPrivs grants no file capability; not read");
		sp_pass(r, "NoNewPrivs set: file capabilities cannot raise privileges");
		return;
	}
	size_t unlisted = 0;
	for (size_t i = 0; i < dirs.n; i++) {
		DIR *d = opendir(dirs.v[i]);
		if (!d) {
			/* a PATH directory that exists but cannot be listed was not looked in */
			if (errno != ENOENT && errno != ENOTDIR && unlisted++ < 4)
				sp_observed_add(r, "%s: cannot be listed (%s)", dirs.v[i], sp_errname(errno));
			continue;
		}
		bool nosuid = path_nosuid(dirs.v[i]);
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
				continue;
			char p[4096];
			snprintf(p, sizeof p, "%s/%s", dirs.v[i], de->d_name);
			files++;
			unsigned char cap[64];
			if (lgetxattr(p, "security.capability", cap, sizeof cap) <= 0)
				continue;
			found++;
			bool e = !nosuid && !nnp;
			eff += e;
			if (found <= 8)
				sp_observed_add(r, "%s has file capabilities%s", p, e ? "" : " (ineffective: nosuid or NoNewPrivs)");
		}
		closedir(d);
	}
	sp_strv_free(&dirs);
	sp_observed_add(r, "%zu files examined", files);
	if (eff)
		sp_failr(r, "%zu program(s) on PATH gain capabilities on exec", eff);
	else if (unlisted)
		sp_warn(r, "none in what was listed, but %zu PATH director%s could not be listed", unlisted,
			unlisted == 1 ? "y" : "ies");
	else
		sp_pass(r, "no effective file capabilities on PATH (%zu found, %zu files)", found, files);
}

const sp_check sp_check_priv_file_caps = {
	.id = SP_CKID(priv_file_caps),
	.category = "privileges",
	.title = "no file capabilities on PATH",
	.rationale = "file capabilities (security.capability) grant privileges on exec like setuid does",
	.techniques = "T1548,T1068",
	.policy_keys = "",
	.method = "read",
	.run = run_file_caps,
	.batch = &priv_reads,
};

static void run_sudo_helpers(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	static const char *const helpers[] = {"sudo", "doas", "pkexec", "su", "sudoedit", "run0", "calife", "super"};
	static const char *const dirs[] = {"/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"};
	sp_expected(r, "no setuid privilege-raising helper that exec would honour, or none configured passwordless");
	bool nnp = sp_no_new_privs();
	size_t eff = 0;
	char list[300] = "";
	sp_observed(r, "NoNewPrivs %d", nnp);
	for (size_t i = 0; i < SP_ARRAY_SIZE(dirs); i++)
		for (size_t j = 0; j < SP_ARRAY_SIZE(helpers); j++) {
			char p[256];
			snprintf(p, sizeof p, "%s/%s", dirs[i], helpers[j]);
			struct stat st;
			if (stat(p, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_ISUID))
				continue;
			bool e = !nnp && !path_nosuid(p) && sp_id_mapped(st.st_uid, false) && st.st_uid != geteuid();
			sp_observed_add(r, "%s setuid uid %u%s", p, (unsigned)st.st_uid, e ? "" : " (ineffective)");
			if (e) {
				eff++;
				size_t l = strlen(list);
				snprintf(list + l, sizeof list - l, "%s%s", l ? "," : "", p);
			}
		}
	/* passwordless configuration: every file must be read whole, or the
	 * search looked in too few places */
	static const char *const confs[] = {"/etc/sudoers", "/etc/doas.conf"};
	bool nopass = false, conf_readable = false;
	size_t unread = 0;
	char unread_first[300] = "";
#define SUDO_UNREAD(path, why) \
	do { \
		if (!unread++) \
			snprintf(unread_first, sizeof unread_first, "%s", (path)); \
		sp_observed_add(r, "%s: %s", (path), (why)); \
	} while (0)
	for (size_t i = 0; i < SP_ARRAY_SIZE(confs); i++) {
		char buf[16384];
		ssize_t n = sp_read_file(confs[i], buf, sizeof buf);
		if (n == -ENOENT)
			continue;
		if (n < 0 || (size_t)n >= sizeof buf - 1) {
			SUDO_UNREAD(confs[i], n < 0 ? sp_errname((int)-n) : "too large to read whole");
			continue;
		}
		conf_readable = true;
		if (strstr(buf, "NOPASSWD") || strstr(buf, "nopass")) {
			nopass = true;
			sp_observed_add(r, "%s allows passwordless use", confs[i]);
		}
	}
	DIR *d = opendir("/etc/sudoers.d");
	if (!d && errno != ENOENT)
		SUDO_UNREAD("/etc/sudoers.d", sp_errname(errno));
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char p[512], buf[8192];
			snprintf(p, sizeof p, "/etc/sudoers.d/%s", de->d_name);
			ssize_t n = sp_read_file(p, buf, sizeof buf);
			if (n < 0 || (size_t)n >= sizeof buf - 1) {
				SUDO_UNREAD(p, n < 0 ? sp_errname((int)-n) : "too large to read whole");
				continue;
			}
			conf_readable = true;
			if (strstr(buf, "NOPASSWD")) {
				nopass = true;
				sp_observed_add(r, "%s allows passwordless use", p);
			}
		}
		closedir(d);
	}
#undef SUDO_UNREAD
	if (eff && nopass)
		sp_failr(r, "passwordless privilege raising through %s", list);
	else if (eff && !conf_readable)
		sp_warn(r, "setuid helper(s) %s usable; their configuration is unreadable", list);
	else if (eff && unread)
		sp_warn(r, "setuid helper(s) %s usable; %zu configuration file(s) could not be read (first: %s)", list, unread,
			unread_first);
	else if (eff)
		sp_pass(r, "setuid helper(s) %s present, none configured passwordless", list);
	else
		sp_pass(r, "no usable setuid privilege-raising helper");
}

const sp_check sp_check_priv_sudo_helpers = {
	.id = SP_CKID(priv_sudo_helpers),
	.category = "privileges",
	.title = "no passwordless privilege-raising helper",
	.rationale = "a passwordless sudo or doas turns any code execution into root",
	.techniques = "T1548",
	.policy_keys = "",
	.method = "read",
	.run = run_sudo_helpers,
	.batch = &priv_reads,
};
