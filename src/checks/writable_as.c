/* fs.writable_as: paths that another user of the sandbox must be able to
 * write (apt's _apt in /var/cache/apt/archives/partial, a service account in
 * its spool directory). Proven by the write itself: the check's own child
 * process becomes that user (its /etc/passwd entry: uid and primary gid, no
 * supplementary groups) and creates, writes, reads back and removes a probe
 * file in each path. Without the right to become the user (no CAP_SETUID /
 * CAP_SETGID, or the ids are not mapped in the sandbox's user namespace) the
 * write was never tried: an error saying so, never a pass. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* USER:/PATH, a user name as useradd takes it and an absolute path */
static int user_path_parse(const char *s, sp_outcome *o)
{
	const char *colon = strchr(s, ':');
	if (!colon || colon == s) {
		sp_why(o, "'%.100s': expected USER:/PATH", s);
		return -1;
	}
	for (const char *p = s; p < colon; p++)
		if (!(*p == '_' || *p == '-' || *p == '.' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z'))) {
			sp_why(o, "'%.100s': '%.*s' is not a user name", s, (int)(colon - s), s);
			return -1;
		}
	if (colon - s > 32) {
		sp_why(o, "'%.100s': a user name is at most 32 characters", s);
		return -1;
	}
	if (colon[1] != '/') {
		sp_why(o, "'%.100s': '%.100s' is not an absolute path", s, colon + 1);
		return -1;
	}
	if (strlen(colon + 1) >= 1024) {
		sp_why(o, "'%.60s...': the path is longer than 1023 bytes", s);
		return -1;
	}
	return 0;
}

const sp_policy_type sp_ptype_user_paths = {
	.name = "user_paths", .what = "USER:/PATH pairs", .list = true, .parse = user_path_parse};

static const char passwd_bad[] = "/etc/passwd unreadable or malformed";

/* uid and primary gid of user from /etc/passwd: 0, or -1 with o (errnum
 * ENOENT: no entry, or no /etc/passwd) */
static int passwd_ids(const char *user, unsigned *uid, unsigned *gid, sp_outcome *o)
{
	int e = 0;
	_cleanup_free_ char *pw = sp_read_file_alloc("/etc/passwd", 4u << 20, NULL, &e);
	if (!pw)
		return sp_why_errno(o, e ? e : EIO, "%s", e == ENOENT ? "no /etc/passwd entry" : passwd_bad);
	size_t ul = strlen(user);
	for (char *line = pw, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, user, ul) || line[ul] != ':')
			continue;
		/* name:password:uid:gid:... */
		char *f = strchr(line + ul + 1, ':');
		if (!f)
			return sp_why_errno(o, EINVAL, "%s", passwd_bad);
		char *end;
		unsigned long u = strtoul(f + 1, &end, 10);
		if (end == f + 1 || *end != ':')
			return sp_why_errno(o, EINVAL, "%s", passwd_bad);
		unsigned long g = strtoul(end + 1, &end, 10);
		if (*end != ':' || u > 0xfffffffeul || g > 0xfffffffeul)
			return sp_why_errno(o, EINVAL, "%s", passwd_bad);
		*uid = (unsigned)u;
		*gid = (unsigned)g;
		return 0;
	}
	return sp_why_errno(o, ENOENT, "no /etc/passwd entry");
}

/* the outcome the child reports, one byte: */
enum { AS_OK = 'o', AS_NOSWITCH = 's', AS_REFUSED = 'r', AS_BROKEN = 'b', AS_LEFT = 'l' };

/* in a child: become uid/gid and probe dir; the outcome byte and the errno
 * go back on fd */
static void child_probe(int fd, unsigned uid, unsigned gid, const char *dir)
{
	int rep[2] = {AS_NOSWITCH, 0};
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
		rep[1] = errno;
		goto out;
	}
	if (geteuid() != uid || getegid() != gid) {
		rep[1] = EPERM;
		goto out;
	}
	char name[1200];
	sp_probe_name(name, sizeof name, dir);
	int f = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (f < 0) {
		rep[0] = AS_REFUSED;
		rep[1] = errno;
		goto out;
	}
	static const char data[] = "sandprobe fs.writable_as probe\n";
	char back[sizeof data];
	bool same = sp_write_all(f, data, sizeof data) == 0 && lseek(f, 0, SEEK_SET) == 0 &&
		    read(f, back, sizeof back) == (ssize_t)sizeof back && !memcmp(back, data, sizeof data);
	int werr = errno;
	close(f);
	struct stat st;
	bool gone = unlink(name) == 0 && lstat(name, &st) < 0 && errno == ENOENT;
	rep[0] = !gone ? AS_LEFT : same ? AS_OK : AS_BROKEN;
	rep[1] = same ? 0 : werr;
out:
	if (write(fd, rep, sizeof rep) != (ssize_t)sizeof rep)
		_exit(2);
	_exit(0);
}

/* one probe in a child of this check's process: the AS_* outcome, *err */
static int probe_as(unsigned uid, unsigned gid, const char *dir, int *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		*err = errno;
		return AS_BROKEN;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*err = errno;
		close(p[0]);
		close(p[1]);
		return AS_BROKEN;
	}
	if (pid == 0) {
		close(p[0]);
		child_probe(p[1], uid, gid, dir);
	}
	close(p[1]);
	int rep[2] = {AS_BROKEN, EIO};
	ssize_t n = read(p[0], rep, sizeof rep);
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof rep) {
		*err = EIO;
		return AS_BROKEN;
	}
	*err = rep[1];
	return rep[0];
}

static void run_writable_as(const sp_ctx *ctx, sp_result *r)
{
	sp_strv pairs;
	sp_policy_list(ctx->policy, "fs.writable_as", &pairs);
	if (!pairs.n) {
		sp_expected(r, "no USER:/PATH declared");
		sp_skip(r, "policy names no user and path (fs.writable_as)");
		sp_strv_free(&pairs);
		return;
	}
	sp_expected(r, "each user can create, write, read back and remove a file in its path: %s",
		    sp_policy_get(ctx->policy, "fs.writable_as"));
	size_t refused = 0, untried = 0, left = 0;
	for (size_t i = 0; i < pairs.n; i++) {
		char *user = pairs.v[i], *colon = strchr(user, ':');
		*colon = '\0';
		const char *dir = colon + 1;
		unsigned uid = 0, gid = 0;
		sp_outcome po = {0};
		if (passwd_ids(user, &uid, &gid, &po) < 0) {
			sp_observed_add(r, "%s: %s", user, po.why);
			untried++;
			continue;
		}
		int err = 0, o = probe_as(uid, gid, dir, &err);
		switch (o) {
		case AS_OK: sp_observed_add(r, "%s (uid %u, gid %u) in %s: create/write/read/delete ok", user, uid, gid, dir); break;
		case AS_REFUSED:
			sp_observed_add(r, "%s (uid %u, gid %u) in %s: create refused (%s)", user, uid, gid, dir,
					sp_errname(err));
			refused++;
			break;
		case AS_NOSWITCH:
			sp_observed_add(r, "%s: could not become uid %u gid %u (%s): the write was not tried", user, uid, gid,
					sp_errname(err));
			untried++;
			break;
		case AS_LEFT:
			sp_observed_add(r, "%s in %s: the probe file could not be removed", user, dir);
			left++;
			break;
		default:
			sp_observed_add(r, "%s in %s: write/read back failed (%s)", user, dir, sp_errname(err));
			refused++;
			break;
		}
	}
	size_t n = pairs.n;
	sp_strv_free(&pairs);
	if (left)
		sp_errorr(r, "%zu probe file(s) could not be removed", left);
	else if (refused)
		sp_failr(r, "%zu of %zu user path(s) refused that user's write", refused, n);
	else if (untried)
		sp_errorr(r, "%zu of %zu user path(s) not tried: the user is unknown or the doctor cannot become it", untried,
			  n);
	else
		sp_pass(r, "each of %zu user(s) wrote, read back and removed a file in its path", n);
}

const sp_check sp_check_fs_writable_as = {
	.id = SP_CKID(fs_writable_as),
	.category = "filesystem",
	.title = "paths other users of the sandbox must write",
	.rationale = "a tool that drops to its own user (apt's _apt, a service account) fails when its spool or cache "
		     "is writable only by root",
	.techniques = "",
	.policy_keys = "fs.writable_as:user_paths",
	.method = "action",
	.run = run_writable_as,
};
