/* Resource sampler (see sampler.h). One pass over /proc/[pid]/stat for every
 * process; environment and command line read once per process lifetime
 * (cached by pid and start time); fds and sockets only for owned processes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "soak/sampler.h"
#include "core/util.h"

struct pinfo {
	pid_t pid, ppid;
	unsigned long flags;
	long threads;
	unsigned long long utime, stime, starttime;
	long long rss_pages;
	char state; /* the state letter of /proc/PID/stat */
	int tree;   /* 0 unknown, 1 owned by descent, 2 not */
	int own;    /* SP_OWN_* bits */
	int ci;     /* index of its cache entry in the new table */
};

/* What the sampler remembers about a process between samples, keyed by pid
 * and start time: its ownership verdict, and for owned processes open
 * handles on /proc/PID/stat and /proc/PID/fd so that a sample costs one
 * pread and one fstat per owned process (Linux >= 6.2 reports the number of
 * open fds as the size of /proc/PID/fd). Foreign processes cost nothing
 * once judged; their cgroup is re-checked every SP_RECHECK samples. */
struct pcache {
	pid_t pid, ppid;
	unsigned long flags;
	unsigned long long starttime;
	int tree;          /* 1 descends from the runner, 2 does not */
	int bits;          /* SP_OWN_ENV | SP_OWN_CMDLINE | SP_OWN_CGROUP */
	int statfd, fdfd;  /* owned processes only, -1 otherwise */
	unsigned long seen_at; /* scan number of the last full judgement */
	int empties;       /* consecutive judgements that read an empty environ */
	bool own_mm;       /* seen with an address space of its own (for good) */
	long long fdcount; /* at the last socket scan */
	long long fdsize_now; /* this scan's fd count, read ahead (-1 unknown) */
	unsigned long long *socks;
	size_t nsocks;
};

#define SP_RECHECK 16
#define SP_BIG_BUF (256 * 1024)
#define SP_EMPTY_TRIES 3

struct sp_soak_sampler {
	pid_t root;
	char *prefix;
	char *env_marker; /* "SANDPROBE_SOAK_PREFIX=<prefix>" */
	char *state_dir;
	char *state_esc;  /* as written in mountinfo */
	int procfd;
	long page;
	long clk;
	pthread_mutex_t mu;
	struct pinfo *p;
	size_t np, capp;
	int *idx;          /* open addressing pid -> index into p, -1 empty */
	size_t idxcap;
	struct pcache *cache; /* open addressing by pid, pid 0 = empty */
	struct pcache *spare; /* the previous table, for the next scan */
	size_t sparecap;
	size_t cachecap;   /* power of two */
	unsigned long scan_no;
	long long cached_fds;
	unsigned long long *socks;
	size_t nsocks, capsocks;
	char *big; /* environ/cmdline buffer */
	char *ignore_cg; /* a cgroup name not counted */
	bool fd_size_works;
	struct pref *pref;
	size_t capref;
};

sp_soak_sampler *sp_sampler_new(pid_t root, const char *prefix, const char *state_dir)
{
	sp_soak_sampler *s = sp_xcalloc(1, sizeof *s);
	s->root = root;
	s->prefix = sp_xstrdup(prefix);
	s->env_marker = sp_xasprintf("%s=%s", SP_SOAK_ENV, prefix);
	s->state_dir = sp_xstrdup(state_dir);
	size_t len = strlen(state_dir), j = 0;
	s->state_esc = sp_xmalloc(len * 4 + 1);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)state_dir[i];
		if (c == ' ' || c == '\t' || c == '\n' || c == '\\')
			j += (size_t)snprintf(s->state_esc + j, 5, "\\%03o", c);
		else
			s->state_esc[j++] = (char)c;
	}
	s->state_esc[j] = '\0';
	while (j > 1 && s->state_esc[j - 1] == '/')
		s->state_esc[--j] = '\0';
	s->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->page = sysconf(_SC_PAGESIZE);
	s->clk = sysconf(_SC_CLK_TCK);
	pthread_mutex_init(&s->mu, NULL);
	struct stat st;
	s->fd_size_works = stat("/proc/self/fd", &st) == 0 && st.st_size > 0;
	/* the environ/cmdline buffer, resident from the start: touched page by
	 * page as ever larger environments are read, it made the runner's
	 * memory creep for as long as new processes appeared on the host */
	s->big = sp_xmalloc(SP_BIG_BUF);
	memset(s->big, 0, SP_BIG_BUF);
	return s;
}

void sp_sampler_free(sp_soak_sampler *s)
{
	if (!s)
		return;
	if (s->procfd >= 0)
		close(s->procfd);
	free(s->prefix);
	free(s->env_marker);
	free(s->state_dir);
	free(s->state_esc);
	free(s->p);
	free(s->idx);
	for (size_t i = 0; i < s->cachecap; i++)
		if (s->cache[i].pid > 0) {
			if (s->cache[i].statfd >= 0)
				close(s->cache[i].statfd);
			if (s->cache[i].fdfd >= 0)
				close(s->cache[i].fdfd);
			free(s->cache[i].socks);
		}
	free(s->cache);
	free(s->spare);
	free(s->socks);
	free(s->big);
	free(s->ignore_cg);
	free(s->pref);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* read a small /proc file relative to procfd; returns length or -1 */
static ssize_t read_at(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static bool parse_stat(const char *buf, struct pinfo *pi)
{
	const char *c = strrchr(buf, ')');
	if (!c || c[1] != ' ')
		return false;
	c += 2; /* field 3: state */
	pi->state = *c;
	unsigned long long v[24] = {0};
	/* fields 4..24 as numbers (3 is the state letter) */
	c = strchr(c, ' ');
	for (int f = 4; f <= 24 && c; f++) {
		char *end;
		c++;
		if (*c == '-') {
			v[f - 1] = 0;
			strtoll(c, &end, 10);
		} else {
			v[f - 1] = strtoull(c, &end, 10);
		}
		if (end == c)
			return false;
		c = end;
		if (*c != ' ' && f < 24)
			return false;
	}
	pi->ppid = (pid_t)v[3];
	pi->flags = (unsigned long)v[8];
	pi->utime = v[13];
	pi->stime = v[14];
	pi->threads = (long)v[19];
	pi->starttime = v[21];
	pi->rss_pages = (long long)v[23];
	return true;
}

/* /proc/PID/stat of a known process again, through its open handle when it
 * has one; false when it is gone (or its pid is another process's now) */
static bool reread_stat(sp_soak_sampler *s, const struct pcache *ce, struct pinfo *pi)
{
	char buf[1024], path[64];
	ssize_t n;
	if (ce->statfd >= 0) {
		n = pread(ce->statfd, buf, sizeof buf - 1, 0);
	} else {
		snprintf(path, sizeof path, "%d/stat", (int)pi->pid);
		n = read_at(s->procfd, path, buf, sizeof buf);
	}
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return parse_stat(buf, pi) && pi->starttime == ce->starttime;
}

static void idx_build(sp_soak_sampler *s)
{
	size_t cap = 64;
	while (cap < s->np * 2)
		cap *= 2;
	if (cap != s->idxcap) {
		free(s->idx);
		s->idx = sp_xmalloc(cap * sizeof(int));
		s->idxcap = cap;
	}
	memset(s->idx, 0xff, cap * sizeof(int));
	for (size_t i = 0; i < s->np; i++) {
		size_t h = ((size_t)s->p[i].pid * 2654435761u) & (cap - 1);
		while (s->idx[h] >= 0)
			h = (h + 1) & (cap - 1);
		s->idx[h] = (int)i;
	}
}

static int idx_find(const sp_soak_sampler *s, pid_t pid)
{
	size_t h = ((size_t)pid * 2654435761u) & (s->idxcap - 1);
	while (s->idx[h] >= 0) {
		if (s->p[s->idx[h]].pid == pid)
			return s->idx[h];
		h = (h + 1) & (s->idxcap - 1);
	}
	return -1;
}

static struct pcache *cache_slot(struct pcache *tab, size_t cap, pid_t pid)
{
	size_t h = ((size_t)pid * 2654435761u) & (cap - 1);
	while (tab[h].pid && tab[h].pid != pid)
		h = (h + 1) & (cap - 1);
	return &tab[h];
}

static void cache_drop(sp_soak_sampler *s, struct pcache *ce)
{
	if (ce->statfd >= 0) {
		close(ce->statfd);
		s->cached_fds--;
	}
	if (ce->fdfd >= 0) {
		close(ce->fdfd);
		s->cached_fds--;
	}
	free(ce->socks);
	ce->socks = NULL;
	ce->statfd = ce->fdfd = -1;
}

/* does the NUL-separated block contain needle (as an entry or a substring)? */
static bool block_has(const char *buf, size_t len, const char *needle, bool whole_entry)
{
	size_t nl = strlen(needle);
	if (nl == 0 || len < nl)
		return false;
	if (whole_entry) {
		for (size_t i = 0; i < len;) {
			size_t el = strnlen(buf + i, len - i);
			if (el == nl && !memcmp(buf + i, needle, nl))
				return true;
			i += el + 1;
		}
		return false;
	}
	return memmem(buf, len, needle, nl) != NULL;
}

/* The env and cmdline markers of pid. *unsure is set when the environment
 * reads empty: the process may be in the middle of execve (the old image is
 * being torn down, or the new one has no environment area yet), so a
 * "foreign" verdict must not be kept for long. */
static int marker_bits(sp_soak_sampler *s, pid_t pid, bool *unsure)
{
	char path[64];
	const size_t bigsz = SP_BIG_BUF;
	int bits = 0;
	char *big = s->big;
	snprintf(path, sizeof path, "%d/environ", (int)pid);
	ssize_t n = read_at(s->procfd, path, big, bigsz);
	*unsure = n == 0;
	if (n > 0 && block_has(big, (size_t)n, s->env_marker, true))
		bits |= SP_OWN_ENV;
	snprintf(path, sizeof path, "%d/cmdline", (int)pid);
	n = read_at(s->procfd, path, big, bigsz);
	if (n > 0 && block_has(big, (size_t)n, s->prefix, false))
		bits |= SP_OWN_CMDLINE;
	return bits;
}

static bool cgroup_has_prefix(sp_soak_sampler *s, pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof path, "%d/cgroup", (int)pid);
	ssize_t n = read_at(s->procfd, path, buf, sizeof buf);
	return n > 0 && strstr(buf, s->prefix) != NULL;
}

#define PF_KTHREAD_ 0x00200000UL

/* Read-ahead of owned processes with open handles: one pread of
 * /proc/PID/stat and one fstat of /proc/PID/fd each. With many owned
 * processes the work is split with a second thread. */
struct pref {
	struct pcache *old; /* the entry in the previous table, NULL: not read ahead */
	struct pinfo pi;
	long long fdsize;
	int state;          /* 1 read and still the same process, 2 gone */
};

struct pref_job {
	struct pref *v;
	size_t lo, hi;
};

static void *pref_run(void *arg)
{
	struct pref_job *j = arg;
	char buf[1024];
	for (size_t k = j->lo; k < j->hi; k++) {
		struct pref *r = &j->v[k];
		if (!r->old)
			continue;
		ssize_t n = pread(r->old->statfd, buf, sizeof buf - 1, 0);
		r->state = 2;
		if (n > 0) {
			buf[n] = '\0';
			r->pi.pid = r->old->pid;
			if (parse_stat(buf, &r->pi) && r->pi.starttime == r->old->starttime)
				r->state = 1;
		}
		struct stat st;
		r->fdsize = r->state == 1 && r->old->fdfd >= 0 && fstat(r->old->fdfd, &st) == 0 && st.st_size > 0
				    ? (long long)st.st_size
				    : -1;
	}
	return NULL;
}

#define SP_PARALLEL_MIN 256

static void prefetch(sp_soak_sampler *s, const pid_t *pids, size_t npids, struct pref *v)
{
	size_t n = 0;
	for (size_t k = 0; k < npids; k++) {
		v[k].old = NULL;
		v[k].state = 0;
		if (!s->cache)
			continue;
		struct pcache *o = cache_slot(s->cache, s->cachecap, pids[k]);
		if (o->pid == pids[k] && o->statfd >= 0 && (o->tree == 1 || o->bits > 0)) {
			v[k].old = o;
			n++;
		}
	}
	struct pref_job all = {v, 0, npids};
	if (n < SP_PARALLEL_MIN || !s->fd_size_works) {
		pref_run(&all);
		return;
	}
	/* split the candidates, not the pids, in two halves */
	size_t half = 0, seen = 0;
	for (size_t k = 0; k < npids; k++)
		if (v[k].old && ++seen == n / 2) {
			half = k + 1;
			break;
		}
	struct pref_job a = {v, 0, half}, b = {v, half, npids};
	pthread_t t;
	if (pthread_create(&t, NULL, pref_run, &b) != 0) {
		pref_run(&all);
		return;
	}
	pref_run(&a);
	pthread_join(t, NULL);
}

/* the pids /proc lists, in a new array; -1 when /proc cannot be read */
static int list_pids(sp_soak_sampler *s, pid_t **out, size_t *nout)
{
	int dfd = dup(s->procfd);
	if (dfd < 0)
		return -1;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return -1;
	}
	rewinddir(d);
	struct dirent *de;
	pid_t *pids = NULL;
	size_t npids = 0, cappids = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (npids == cappids) {
			cappids = cappids ? cappids * 2 : 1024;
			pids = sp_xrealloc(pids, cappids * sizeof(pid_t));
		}
		pids[npids++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	*out = pids;
	*nout = npids;
	return 0;
}

/* descent from the runner, memoised (known verdicts are kept) */
static void mark_descent(sp_soak_sampler *s)
{
	int stack[4096];
	for (size_t i = 0; i < s->np; i++) {
		size_t depth = 0;
		int cur = (int)i, verdict = 2;
		while (cur >= 0 && depth < SP_ARRAY_SIZE(stack)) {
			struct pinfo *c = &s->p[cur];
			if (c->tree) {
				verdict = c->tree;
				break;
			}
			stack[depth++] = cur;
			if (c->pid == s->root) {
				verdict = 1;
				break;
			}
			if (c->ppid <= 1) {
				verdict = 2;
				break;
			}
			cur = idx_find(s, c->ppid);
		}
		for (size_t k = 0; k < depth; k++)
			s->p[stack[k]].tree = verdict;
	}
}

/* markers of processes judged this scan; handles only for owned ones,
 * within an fd budget (beyond it they are re-read by path) */
static void judge_markers(sp_soak_sampler *s)
{
	char path[64];
	struct rlimit rl;
	long long budget = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long long)rl.rlim_cur - 256 : 4096;
	for (size_t i = 0; i < s->np; i++) {
		struct pinfo *pi = &s->p[i];
		struct pcache *ce = &s->cache[pi->ci];
		ce->tree = pi->tree;
		if (ce->seen_at == s->scan_no) { /* judged now: read its markers */
			int bits = 0;
			bool unsure = false;
			bool kthread = (pi->flags & PF_KTHREAD_) || pi->pid == 2 || pi->ppid == 2;
			if (!kthread && pi->pid != s->root) {
				bits = marker_bits(s, pi->pid, &unsure);
				if (!bits && pi->tree != 1 && cgroup_has_prefix(s, pi->pid))
					bits |= SP_OWN_CGROUP;
			}
			ce->bits = bits;
			/* An empty environment from a live process that is not ours:
			 * perhaps caught mid-execve. Judge it again on the next scans
			 * rather than keep "foreign" for SP_RECHECK scans; a process
			 * whose environment really is empty (env -i) is accepted as
			 * foreign after SP_EMPTY_TRIES such judgements. */
			if (unsure && !bits && pi->tree != 1 && pi->state != 'Z' && pi->state != 'X' &&
			    ce->empties < SP_EMPTY_TRIES) {
				ce->empties++;
				ce->seen_at = s->scan_no - SP_RECHECK;
			} else if (!unsure) {
				ce->empties = 0;
			}
		}
		pi->own = pi->pid == s->root ? 0 : (pi->tree == 1 ? SP_OWN_TREE : 0) | ce->bits;
		bool keep = pi->tree == 1 || ce->bits > 0;
		if (keep && s->cached_fds >= budget && ce->seen_at == s->scan_no && ce->statfd >= 0) {
			close(ce->statfd);
			ce->statfd = -1;
			s->cached_fds--;
		}
		if (!keep && ce->statfd >= 0) {
			close(ce->statfd);
			ce->statfd = -1;
			s->cached_fds--;
		}
		if (pi->own && ce->fdfd < 0 && s->fd_size_works && s->cached_fds < budget) {
			snprintf(path, sizeof path, "%d/fd", (int)pi->pid);
			ce->fdfd = openat(s->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (ce->fdfd >= 0)
				s->cached_fds++;
		}
	}
}

/* Scan every process; fill s->p with ownership decided (see struct pcache). */
static void scan_procs(sp_soak_sampler *s)
{
	char buf[1024], path[64];
	s->np = 0;
	s->scan_no++;
	size_t ccap = 64;
	/* a generous table: the old one's live entries move over */
	size_t want = s->cachecap ? s->cachecap : 64;
	pid_t *pids = NULL;
	size_t npids = 0;
	if (list_pids(s, &pids, &npids) < 0)
		return;
	/* the table only grows, and the previous one is reused: a sample
	 * allocates nothing once the host's process count has peaked */
	while (ccap < npids * 2 || ccap < want)
		ccap *= 2;
	struct pcache *nc;
	if (s->spare && s->sparecap == ccap) {
		nc = s->spare;
		memset(nc, 0, ccap * sizeof *nc);
	} else {
		free(s->spare);
		nc = sp_xcalloc(ccap, sizeof *nc);
	}
	s->spare = NULL;
	if (s->capp < npids) {
		s->capp = npids + 64;
		s->p = sp_xrealloc(s->p, s->capp * sizeof *s->p);
	}
	if (s->capref < npids) {
		s->capref = npids + 64;
		s->pref = sp_xrealloc(s->pref, s->capref * sizeof *s->pref);
	}
	prefetch(s, pids, npids, s->pref);
	for (size_t k = 0; k < npids; k++) {
		pid_t pid = pids[k];
		struct pref *pr = &s->pref[k];
		struct pcache *old = pr->old ? pr->old : s->cache ? cache_slot(s->cache, s->cachecap, pid) : NULL;
		struct pinfo pi = {.pid = pid};
		struct pcache ce = {.pid = pid, .statfd = -1, .fdfd = -1};
		bool have = false;
		if (old && old->pid == pid) {
			ce = *old;
			old->pid = -1; /* moved (a tombstone keeps the probe chain intact) */
			old->socks = NULL;
			ce.fdsize_now = -1;
			bool owned = ce.tree == 1 || ce.bits > 0;
			if (owned) {
				/* re-read: ahead of the scan, or now through reread_stat */
				if (pr->old) {
					if (pr->state == 1) {
						pi = pr->pi;
						have = true;
						ce.fdsize_now = pr->fdsize;
					}
				} else {
					have = reread_stat(s, &ce, &pi);
				}
				if (!have) { /* that process is gone; a new one has its pid */
					cache_drop(s, &ce);
					ce = (struct pcache){.pid = pid, .statfd = -1, .fdfd = -1};
				}
			} else if (s->scan_no - ce.seen_at < SP_RECHECK) {
				/* foreign and judged recently: its record stands */
				pi.ppid = ce.ppid;
				pi.flags = ce.flags;
				pi.starttime = ce.starttime;
				pi.tree = ce.tree;
				struct pcache *slot = cache_slot(nc, ccap, pid);
				*slot = ce;
				pi.ci = (int)(slot - nc);
				s->p[s->np++] = pi;
				continue;
			} else {
				/* periodic re-check; an unsure verdict's count carries over */
				unsigned long long st = ce.starttime;
				int empties = ce.empties;
				cache_drop(s, &ce);
				ce = (struct pcache){.pid = pid, .statfd = -1, .fdfd = -1, .starttime = st, .empties = empties};
			}
		}
		if (!have) { /* first sight (or a periodic re-check): full judgement */
			ce.fdsize_now = -1;
			snprintf(path, sizeof path, "%d/stat", (int)pid);
			int fd = openat(s->procfd, path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			ssize_t n = read(fd, buf, sizeof buf - 1);
			if (n <= 0) {
				close(fd);
				continue;
			}
			buf[n] = '\0';
			if (!parse_stat(buf, &pi)) {
				close(fd);
				continue;
			}
			ce.statfd = fd; /* kept if the process turns out owned */
			s->cached_fds++;
			ce.ppid = pi.ppid;
			ce.flags = pi.flags;
			if (ce.starttime != pi.starttime)
				ce.empties = 0; /* another process */
			ce.starttime = pi.starttime;
			ce.tree = 0;
			ce.bits = -1; /* markers to be read */
			ce.seen_at = s->scan_no;
		} else {
			pi.tree = ce.tree;
		}
		struct pcache *slot = cache_slot(nc, ccap, pid);
		*slot = ce;
		pi.ci = (int)(slot - nc);
		s->p[s->np++] = pi;
	}
	free(pids);
	/* processes that vanished */
	for (size_t i = 0; i < s->cachecap; i++)
		if (s->cache[i].pid > 0)
			cache_drop(s, &s->cache[i]);
	s->spare = s->cache; /* its live entries moved over, the rest dropped */
	s->sparecap = s->cachecap;
	s->cache = nc;
	s->cachecap = ccap;
	idx_build(s);
	mark_descent(s);
	judge_markers(s);
}

static void add_sock(sp_soak_sampler *s, unsigned long long ino)
{
	if (s->nsocks == s->capsocks) {
		s->capsocks = s->capsocks ? s->capsocks * 2 : 64;
		s->socks = sp_xrealloc(s->socks, s->capsocks * sizeof *s->socks);
	}
	s->socks[s->nsocks++] = ino;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

/* distinct socket inodes (a socket shared by parent and child counts once) */
static long long unique_socks(sp_soak_sampler *s)
{
	if (s->nsocks == 0)
		return 0;
	qsort(s->socks, s->nsocks, sizeof *s->socks, cmp_ull);
	long long n = 1;
	for (size_t i = 1; i < s->nsocks; i++)
		n += s->socks[i] != s->socks[i - 1];
	return n;
}

/* scan the fd links of one process: count, and its socket inodes */
static long long scan_fd_links(sp_soak_sampler *s, struct pcache *ce, pid_t pid)
{
	char path[64];
	int fd;
	if (ce->fdfd >= 0) {
		fd = openat(ce->fdfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		snprintf(path, sizeof path, "%d/fd", (int)pid);
		fd = openat(s->procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	long long n = 0;
	size_t cap = 0;
	ce->nsocks = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		char link[64];
		ssize_t l = readlinkat(dirfd(d), de->d_name, link, sizeof link - 1);
		if (l > 8 && !memcmp(link, "socket:[", 8)) {
			link[l] = '\0';
			if (ce->nsocks == cap) {
				cap = cap ? cap * 2 : 8;
				ce->socks = sp_xrealloc(ce->socks, cap * sizeof *ce->socks);
			}
			ce->socks[ce->nsocks++] = strtoull(link + 8, NULL, 10);
		}
	}
	closedir(d);
	return n;
}

/* fds of an owned process: one fstat of its /proc/PID/fd handle; the links
 * (for sockets) are read again only when that count changed, or every
 * SP_RECHECK samples */
static long long count_fds(sp_soak_sampler *s, struct pcache *ce, pid_t pid)
{
	struct stat st;
	long long n = -1;
	if (ce->fdsize_now >= 0)
		n = ce->fdsize_now; /* read ahead this scan */
	else if (ce->fdfd >= 0 && fstat(ce->fdfd, &st) == 0 && st.st_size > 0)
		n = (long long)st.st_size;
	if (n < 0 || n != ce->fdcount || (s->scan_no % SP_RECHECK) == 0 || ce->seen_at == s->scan_no) {
		long long m = scan_fd_links(s, ce, pid);
		if (n < 0)
			n = m;
	}
	ce->fdcount = n;
	for (size_t i = 0; i < ce->nsocks; i++)
		add_sock(s, ce->socks[i]);
	return n;
}

static long long fd_count_self(void)
{
	struct stat st;
	if (stat("/proc/self/fd", &st) == 0 && st.st_size > 0)
		return (long long)st.st_size; /* Linux >= 6.2 */
	return sp_count_dir("/proc/self/fd");
}

/* mountinfo: total lines and lines whose mount point is under the state dir */
static void count_mounts(sp_soak_sampler *s, long long *global, long long *owned, char ***list, size_t *nlist)
{
	size_t len = 0;
	int e;
	_cleanup_free_ char *mi = sp_read_file_alloc("/proc/self/mountinfo", 64 << 20, &len, &e);
	size_t sl = strlen(s->state_esc);
	*global = *owned = 0;
	if (!mi)
		return;
	for (char *line = mi; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		(*global)++;
		/* field 5 is the mount point */
		char *f = line;
		for (int i = 0; i < 4 && f; i++) {
			f = strchr(f, ' ');
			if (f)
				f++;
		}
		if (f) {
			char *end = strchr(f, ' ');
			size_t fl = end ? (size_t)(end - f) : strlen(f);
			if (fl >= sl && !memcmp(f, s->state_esc, sl) && (fl == sl || f[sl] == '/')) {
				(*owned)++;
				if (list) {
					*list = sp_xrealloc(*list, (*nlist + 1) * sizeof(char *));
					(*list)[(*nlist)++] = sp_xstrndup(f, fl);
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

static long long count_cgroups(int dfd, const char *prefix, const char *ignore, int depth)
{
	long long n = 0;
	int fd = dup(dfd);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (strstr(de->d_name, prefix) && !(ignore && !strcmp(de->d_name, ignore)))
			n++;
		if (depth < 3) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (sub >= 0) {
				n += count_cgroups(sub, prefix, ignore, depth + 1);
				close(sub);
			}
		}
	}
	closedir(d);
	return n;
}

struct du_state {
	dev_t dev;
	long long bytes;
	struct {
		dev_t dev;
		ino_t ino;
	} *seen;
	size_t nseen, capseen;
};

static void du_walk(int dfd, struct du_state *st, int depth)
{
	int fd = dup(dfd);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		struct stat sb;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || sb.st_dev != st->dev)
			continue;
		if (sb.st_nlink > 1 && !S_ISDIR(sb.st_mode)) {
			bool dup_ = false;
			for (size_t i = 0; i < st->nseen && !dup_; i++)
				dup_ = st->seen[i].dev == sb.st_dev && st->seen[i].ino == sb.st_ino;
			if (dup_)
				continue;
			if (st->nseen == st->capseen) {
				st->capseen = st->capseen ? st->capseen * 2 : 64;
				st->seen = sp_xrealloc(st->seen, st->capseen * sizeof *st->seen);
			}
			st->seen[st->nseen].dev = sb.st_dev;
			st->seen[st->nseen++].ino = sb.st_ino;
		}
		st->bytes += (long long)sb.st_blocks * 512;
		if (S_ISDIR(sb.st_mode) && depth < 64) {
			int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (sub >= 0) {
				du_walk(sub, st, depth + 1);
				close(sub);
			}
		}
	}
	closedir(d);
}

static long long disk_bytes(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat sb;
	struct du_state st = {0};
	if (fstat(fd, &sb) == 0) {
		st.dev = sb.st_dev;
		st.bytes = (long long)sb.st_blocks * 512;
		du_walk(fd, &st, 0);
	}
	close(fd);
	free(st.seen);
	return st.bytes;
}

/* The runner's own RSS, exact: /proc/PID/stat (and statm) give the
 * kernel's per-CPU batched counters, off by up to 32 pages per CPU, which
 * over a short run looks like a slope. smaps_rollup walks the page tables
 * (cheap for one small process). */
static long long exact_rss(sp_soak_sampler *s, pid_t pid, long long fallback)
{
	char path[64], buf[2048];
	snprintf(path, sizeof path, "%d/smaps_rollup", (int)pid);
	if (read_at(s->procfd, path, buf, sizeof buf) <= 0)
		return fallback;
	const char *l = strstr(buf, "\nRss:");
	if (!l)
		return fallback;
	long long kib = strtoll(l + 5, NULL, 10);
	return kib > 0 ? kib * 1024 : fallback;
}

/* The RSS of an owned process, not counting memory that is its parent's.
 * A child between vfork (or clone(CLONE_VM)) and exec, as every spawn of the
 * runner is for a moment, shares its parent's address space, and its /proc
 * RSS is the parent's: counting it counted the runner's whole RSS again as
 * one short-lived process, a leak slope out of nothing. kcmp tells whether
 * the two share it. A process seen with an address space of its own never
 * shares again (exec only makes a new one), so that answer is kept, and its
 * RSS is read again after the answer: the scan's figure may predate its
 * exec. One that is gone by then holds nothing; if kcmp cannot tell, the
 * scan's figure counts (more, never less). *shared: it still shares its
 * parent's (or is gone), so its descriptors are not its own either (below). */
static long long own_rss_pages(sp_soak_sampler *s, struct pcache *ce, const struct pinfo *pi, bool *shared)
{
	*shared = false;
	if (ce->own_mm || pi->ppid <= 0)
		return pi->rss_pages;
	long r = syscall(SYS_kcmp, pi->pid, pi->ppid, KCMP_VM, 0, 0);
	if (r == 0 || (r < 0 && errno == ESRCH)) {
		*shared = true;
		return 0;
	}
	if (r < 0)
		return pi->rss_pages;
	ce->own_mm = true;
	struct pinfo now = {.pid = pi->pid};
	return reread_stat(s, ce, &now) ? now.rss_pages : 0;
}

void sp_sampler_take(sp_soak_sampler *s, sp_soak_sample *o)
{
	pthread_mutex_lock(&s->mu);
	scan_procs(s);
	o->global_processes = (long long)s->np;
	o->owned_processes = o->owned_threads = o->owned_rss_bytes = o->owned_fds = 0;
	unsigned long long ticks = 0;
	s->nsocks = 0;
	for (size_t i = 0; i < s->np; i++) {
		struct pinfo *pi = &s->p[i];
		if (pi->pid == s->root) {
			o->runner_rss_bytes = exact_rss(s, pi->pid, pi->rss_pages * s->page);
			continue;
		}
		if (!pi->own)
			continue;
		o->owned_processes++;
		o->owned_threads += pi->threads;
		bool shared;
		o->owned_rss_bytes += own_rss_pages(s, &s->cache[pi->ci], pi, &shared) * s->page;
		ticks += pi->utime + pi->stime;
		/* a child between vfork and exec holds, for that moment, copies
		 * of the runner's descriptors (and sockets), which exec closes:
		 * counted, they made an fd growth out of nothing under load */
		if (!shared)
			o->owned_fds += count_fds(s, &s->cache[pi->ci], pi->pid);
	}
	o->owned_cpu_seconds = (double)ticks / (double)s->clk;
	o->owned_sockets = unique_socks(s);
	pthread_mutex_unlock(&s->mu);
	/* the runner's own fds, not counting the sampler's /proc handles */
	pthread_mutex_lock(&s->mu);
	o->runner_fds = fd_count_self() - s->cached_fds;
	pthread_mutex_unlock(&s->mu);
	count_mounts(s, &o->global_mounts, &o->owned_mounts, NULL, NULL);
	int cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o->owned_cgroups = 0;
	if (cg >= 0) {
		o->owned_cgroups = count_cgroups(cg, s->prefix, s->ignore_cg, 0);
		close(cg);
	}
	o->disk_bytes = disk_bytes(s->state_dir);
}

int sp_sampler_owner(sp_soak_sampler *s, pid_t pid)
{
	int own = 0;
	pthread_mutex_lock(&s->mu);
	scan_procs(s);
	int i = s->idxcap ? idx_find(s, pid) : -1;
	if (i >= 0)
		own = s->p[i].own;
	pthread_mutex_unlock(&s->mu);
	return own;
}

pid_t *sp_sampler_signalable(sp_soak_sampler *s, size_t *n)
{
	pthread_mutex_lock(&s->mu);
	scan_procs(s);
	pid_t *out = sp_xcalloc(s->np + 1, sizeof(pid_t));
	*n = 0;
	for (size_t i = 0; i < s->np; i++) /* a zombie is dead already: its parent reaps it, or init */
		if ((s->p[i].own & (SP_OWN_TREE | SP_OWN_ENV | SP_OWN_CGROUP)) && s->p[i].state != 'Z')
			out[(*n)++] = s->p[i].pid;
	pthread_mutex_unlock(&s->mu);
	return out;
}

static int deeper_first(const void *a, const void *b)
{
	return (int)(strlen(*(char *const *)b) - strlen(*(char *const *)a));
}

char **sp_sampler_owned_mounts(sp_soak_sampler *s, size_t *n)
{
	long long g, o;
	char **list = NULL;
	*n = 0;
	count_mounts(s, &g, &o, &list, n);
	if (*n)
		qsort(list, *n, sizeof(char *), deeper_first);
	/* undo mountinfo's octal escapes */
	for (size_t i = 0; i < *n; i++) {
		char *r = list[i], *w = list[i];
		while (*r) {
			if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
				*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
				r += 4;
			} else {
				*w++ = *r++;
			}
		}
		*w = '\0';
	}
	return list;
}

void sp_sampler_ignore_cgroup(sp_soak_sampler *s, const char *name)
{
	free(s->ignore_cg);
	s->ignore_cg = name ? sp_xstrdup(name) : NULL;
}

size_t sp_sampler_descendants(sp_soak_sampler *s, pid_t pid, pid_t **pids, unsigned long long **starts)
{
	pthread_mutex_lock(&s->mu);
	scan_procs(s);
	*pids = sp_xcalloc(s->np + 1, sizeof(pid_t));
	*starts = sp_xcalloc(s->np + 1, sizeof(unsigned long long));
	size_t n = 0;
	for (size_t i = 0; i < s->np; i++) {
		if (s->p[i].pid == pid)
			continue;
		int cur = (int)i;
		for (int depth = 0; cur >= 0 && depth < 4096; depth++) {
			pid_t pp = s->p[cur].ppid;
			if (pp == pid) {
				(*pids)[n] = s->p[i].pid;
				(*starts)[n++] = s->p[i].starttime;
				break;
			}
			if (pp <= 1)
				break;
			cur = idx_find(s, pp);
		}
	}
	pthread_mutex_unlock(&s->mu);
	return n;
}
