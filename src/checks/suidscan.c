/* The setuid/setgid/file-capability scan: one pass over every mount that
 * would honour setuid bits, bounded in time, on one or two threads. It reads
 * directories with getdents64, stats only regular files (d_type), and reads
 * security.capability only from executable regular files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/util.h"

static const char *const pseudo_fs[] = {
	"proc",	 "sysfs",   "devtmpfs",	  "cgroup",   "cgroup2",  "debugfs", "tracefs",	 "securityfs",
	"pstore", "bpf",	    "configfs",	  "fusectl",  "mqueue",   "hugetlbfs", "devpts", "binfmt_misc",
	"autofs", "efivarfs", "selinuxfs", "nsfs", "rpc_pipefs",
};

struct mnt {
	char *path;
	bool scan;
};

struct mtab {
	struct mnt *v;
	size_t n, cap;
	bool all;
};

static int mnt_cb(const sp_mount *m, void *arg)
{
	struct mtab *t = arg;
	bool scan = t->all || !sp_opt_has(m->opts, "nosuid");
	for (size_t i = 0; i < SP_ARRAY_SIZE(pseudo_fs) && scan; i++)
		if (!strcmp(m->fstype, pseudo_fs[i]))
			scan = false;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].path, m->mountpoint)) {
			t->v[i].scan = scan; /* a later mount at the same point is on top */
			return 0;
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = sp_xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n].path = sp_xstrdup(m->mountpoint);
	t->v[t->n].scan = scan;
	t->n++;
	return 0;
}

static int mnt_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mnt *)a)->path, ((const struct mnt *)b)->path);
}

static const struct mnt *mnt_lookup(const struct mtab *t, const char *path)
{
	struct mnt key = {.path = (char *)path};
	return bsearch(&key, t->v, t->n, sizeof *t->v, mnt_cmp);
}

/* the mount a path lies in: longest mountpoint prefix */
static const struct mnt *mnt_containing(const struct mtab *t, const char *path)
{
	const struct mnt *best = NULL;
	size_t bl = 0;
	for (size_t i = 0; i < t->n; i++) {
		const char *mp = t->v[i].path;
		size_t l = strlen(mp);
		bool c = !strcmp(mp, "/") || (!strncmp(mp, path, l) && (path[l] == '/' || path[l] == '\0'));
		if (c && (l >= bl || !best)) {
			best = &t->v[i];
			bl = l;
		}
	}
	return best;
}

static bool under(const char *path, const char *root)
{
	size_t l = strlen(root);
	if (!strcmp(root, "/"))
		return true;
	return !strncmp(path, root, l) && (path[l] == '/' || path[l] == '\0');
}

struct scan {
	const sp_scan_opts *o;
	sp_scan_result *res;
	struct mtab mt;
	char **stack;
	size_t n, cap, active;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	uint64_t deadline;
};

struct worker {
	struct scan *s;
	uint64_t files, dirs, errors;
	size_t suid, sgid, fcap;
};

static void push_locked(struct scan *s, char *p)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->stack = sp_xrealloc(s->stack, s->cap * sizeof *s->stack);
	}
	s->stack[s->n++] = p;
}

/* past the deadline: stop every worker, noting where this one was */
static void check_budget(struct scan *s, const char *dir)
{
	if (!s->deadline || sp_now_ns() <= s->deadline)
		return;
	pthread_mutex_lock(&s->mu);
	if (!s->stop) {
		s->stop = true;
		s->res->over_budget = true;
		snprintf(s->res->last_dir, sizeof s->res->last_dir, "%s", dir);
	}
	pthread_mutex_unlock(&s->mu);
}

static void record(struct worker *w, const char *path, const struct stat *st, bool fcap)
{
	struct scan *s = w->s;
	pthread_mutex_lock(&s->mu);
	sp_scan_result *r = s->res;
	if (r->nhits < SP_ARRAY_SIZE(r->hits)) {
		sp_scan_hit *h = &r->hits[r->nhits++];
		snprintf(h->path, sizeof h->path, "%s", path);
		h->mode = st->st_mode;
		h->uid = st->st_uid;
		h->gid = st->st_gid;
		h->fcap = fcap;
	}
	pthread_mutex_unlock(&s->mu);
}

/* getxattrat(2), Linux 6.13: fall back to lgetxattr on older kernels */
#define SYS_getxattrat_ 464
struct xattr_args_ {
	unsigned long long value;
	unsigned size, flags;
};
static bool have_getxattrat = true;

struct linux_dirent64_ {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void scan_dir(struct worker *w, const char *dir, char *buf, size_t bufsz)
{
	struct scan *s = w->s;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		w->errors++;
		return;
	}
	w->dirs++;
	size_t dl = strlen(dir);
	bool root = dl == 1;
	char **kids = NULL;
	size_t nk = 0, ck = 0;
	unsigned tick = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, bufsz);
		if (n <= 0) {
			if (n < 0)
				w->errors++;
			break;
		}
		for (long off = 0; off < n;) {
			struct linux_dirent64_ *d = (struct linux_dirent64_ *)(buf + off);
			off += d->d_reclen;
			const char *name = d->d_name;
			if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
				continue;
			unsigned char t = d->d_type;
			if (t != DT_DIR && t != DT_REG && t != DT_UNKNOWN)
				continue;
			struct stat st;
			if (t != DT_DIR) {
				if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
					w->errors++;
					continue;
				}
				if (S_ISDIR(st.st_mode))
					t = DT_DIR;
				else if (!S_ISREG(st.st_mode))
					continue;
			}
			char path[4096];
			size_t nl = strlen(name);
			if (dl + nl + 2 > sizeof path) {
				w->errors++;
				continue;
			}
			if (t == DT_DIR) {
				memcpy(path, dir, dl);
				size_t p = dl;
				if (!root)
					path[p++] = '/';
				memcpy(path + p, name, nl + 1);
				if (mnt_lookup(&s->mt, path))
					continue; /* another mount: walked on its own, or skipped */
				if (nk == ck) {
					ck = ck ? ck * 2 : 16;
					kids = sp_xrealloc(kids, ck * sizeof *kids);
				}
				kids[nk++] = sp_xstrdup(path);
				continue;
			}
			w->files++;
			bool su = st.st_mode & S_ISUID, sg = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP);
			bool fc = false;
			if (s->o->fcaps && (st.st_mode & 0111)) {
				long xr = -1;
				if (have_getxattrat) {
					/* relative to the open directory: no second path walk */
					struct xattr_args_ xa = {0, 0, 0};
					xr = syscall(SYS_getxattrat_, fd, name, AT_SYMLINK_NOFOLLOW, "security.capability", &xa,
						     sizeof xa);
					if (xr < 0 && errno == ENOSYS)
						have_getxattrat = false;
				}
				if (!have_getxattrat) {
					memcpy(path, dir, dl);
					size_t p = dl;
					if (!root)
						path[p++] = '/';
					memcpy(path + p, name, nl + 1);
					xr = lgetxattr(path, "security.capability", NULL, 0);
				}
				fc = xr > 0;
			}
			if (su || sg || fc) {
				memcpy(path, dir, dl);
				size_t p = dl;
				if (!root)
					path[p++] = '/';
				memcpy(path + p, name, nl + 1);
				w->suid += su;
				w->sgid += sg;
				w->fcap += fc;
				record(w, path, &st, fc);
			}
			if ((++tick & 127) == 0)
				check_budget(s, dir);
		}
		if (s->stop)
			break;
	}
	close(fd);
	if (nk) {
		pthread_mutex_lock(&s->mu);
		for (size_t i = 0; i < nk; i++)
			push_locked(s, kids[i]);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	free(kids);
	check_budget(s, dir);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct scan *s = w->s;
	size_t bufsz = 64 * 1024;
	char *buf = sp_xmalloc(bufsz);
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->n == 0 && s->active > 0 && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->n == 0 || s->stop) {
			pthread_cond_broadcast(&s->cv);
			pthread_mutex_unlock(&s->mu);
			break;
		}
		char *dir = s->stack[--s->n];
		s->active++;
		pthread_mutex_unlock(&s->mu);
		scan_dir(w, dir, buf, bufsz);
		free(dir);
		pthread_mutex_lock(&s->mu);
		s->active--;
		if (s->n == 0 && s->active == 0)
			pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	free(buf);
	return NULL;
}

int sp_suid_scan(const sp_scan_opts *o, sp_scan_result *res)
{
	memset(res, 0, sizeof *res);
	uint64_t t0 = sp_now_ns();
	struct scan s;
	memset(&s, 0, sizeof s);
	s.o = o;
	s.res = res;
	s.mt.all = o->all_mounts;
	int rc = sp_mountinfo_each(mnt_cb, &s.mt);
	if (rc < 0)
		return rc;
	qsort(s.mt.v, s.mt.n, sizeof *s.mt.v, mnt_cmp);
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	s.deadline = o->budget_ns ? t0 + o->budget_ns : 0;

	static char *const slash[] = {"/"};
	char *const *roots = o->nroots ? o->roots : slash;
	size_t nroots = o->nroots ? o->nroots : 1;
	for (size_t r = 0; r < nroots; r++) {
		const char *root = roots[r];
		/* the root itself, when the mount it lies in honours setuid */
		const struct mnt *c = mnt_containing(&s.mt, root);
		if (c && c->scan && !mnt_lookup(&s.mt, root))
			push_locked(&s, sp_xstrdup(root));
		/* and every mount at or below it */
		for (size_t i = 0; i < s.mt.n; i++) {
			if (!under(s.mt.v[i].path, root))
				continue;
			if (s.mt.v[i].scan) {
				push_locked(&s, sp_xstrdup(s.mt.v[i].path));
				res->mounts_walked++;
			} else {
				res->mounts_skipped++;
			}
		}
	}
	unsigned nt = o->threads >= 2 ? 2 : 1;
	struct worker w[2];
	memset(w, 0, sizeof w);
	pthread_t th;
	bool threaded = false;
	for (unsigned i = 0; i < nt; i++)
		w[i].s = &s;
	if (nt == 2 && pthread_create(&th, NULL, worker_main, &w[1]) == 0)
		threaded = true;
	worker_main(&w[0]);
	if (threaded)
		pthread_join(th, NULL);
	for (unsigned i = 0; i < 2; i++) {
		res->files += w[i].files;
		res->dirs += w[i].dirs;
		res->errors += w[i].errors;
		res->suid += w[i].suid;
		res->sgid += w[i].sgid;
		res->fcap += w[i].fcap;
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.stack[i]);
	free(s.stack);
	for (size_t i = 0; i < s.mt.n; i++)
		free(s.mt.v[i].path);
	free(s.mt.v);
	pthread_mutex_destroy(&s.mu);
	pthread_cond_destroy(&s.cv);
	res->elapsed_ns = sp_now_ns() - t0;
	return 0;
}
