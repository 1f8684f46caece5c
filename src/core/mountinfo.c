#include "core/mountinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* mountinfo escapes blanks as \040 etc. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
		    r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static int parse_mount_line(char *line, sp_mount *m)
{
	memset(m, 0, sizeof *m);
	char *fields[32];
	int n = 0;
	for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok && n < 32; tok = strtok_r(NULL, " ", &save))
		fields[n++] = tok;
	if (n < 10)
		return -1;
	int sep = -1;
	for (int i = 6; i < n; i++)
		if (!strcmp(fields[i], "-")) {
			sep = i;
			break;
		}
	if (sep < 0 || sep + 3 >= n + 1 || sep + 2 >= n)
		return -1;
	m->id = atoi(fields[0]);
	m->parent = atoi(fields[1]);
	snprintf(m->root, sizeof m->root, "%s", fields[3]);
	snprintf(m->mountpoint, sizeof m->mountpoint, "%s", fields[4]);
	snprintf(m->opts, sizeof m->opts, "%s", fields[5]);
	m->optional[0] = '\0';
	for (int i = 6; i < sep; i++) {
		size_t len = strlen(m->optional);
		snprintf(m->optional + len, sizeof m->optional - len, "%s%s", len ? " " : "", fields[i]);
	}
	snprintf(m->fstype, sizeof m->fstype, "%s", fields[sep + 1]);
	snprintf(m->source, sizeof m->source, "%s", fields[sep + 2]);
	if (sep + 3 < n)
		snprintf(m->super_opts, sizeof m->super_opts, "%s", fields[sep + 3]);
	unescape(m->root);
	unescape(m->mountpoint);
	unescape(m->source);
	return 0;
}

int sp_mountinfo_each(int (*fn)(const sp_mount *m, void *arg), void *arg)
{
	int e = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc("/proc/self/mountinfo", 64u << 20, NULL, &e);
	if (!buf)
		return -e;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp_mount m;
		if (parse_mount_line(line, &m) < 0)
			continue;
		if (fn(&m, arg))
			break;
	}
	return 0;
}

struct find_state {
	const char *path;
	size_t best;
	bool found;
	sp_mount *out;
};

static bool covers(const char *mountpoint, const char *path, size_t *len)
{
	size_t n = strlen(mountpoint);
	if (!strcmp(mountpoint, "/")) {
		*len = 1;
		return true;
	}
	if (strncmp(mountpoint, path, n) == 0 && (path[n] == '\0' || path[n] == '/')) {
		*len = n;
		return true;
	}
	return false;
}

static int find_cb(const sp_mount *m, void *arg)
{
	struct find_state *st = arg;
	size_t len;
	/* later entries at the same mount point are stacked on top */
	if (covers(m->mountpoint, st->path, &len) && len >= st->best) {
		st->best = len;
		*st->out = *m;
		st->found = true;
	}
	return 0;
}

int sp_mountinfo_find(const char *path, sp_mount *out)
{
	struct find_state st = {.path = path, .best = 0, .found = false, .out = out};
	int r = sp_mountinfo_each(find_cb, &st);
	if (r < 0)
		return r;
	return st.found ? 0 : -ENOENT;
}

bool sp_opt_has(const char *opts, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = opts; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, opt, n))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}
