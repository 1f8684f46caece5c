/* Host control paths a lane over the host's own filesystem (firejail) must
 * hide: a read-only view does not stop connect() on a unix socket, and the
 * engines' state holds what a socket would give. The fixed list names the
 * control sockets and state directories of docker, containerd, podman,
 * CRI-O, cri-dockerd, k3s, buildkit, LXD/Incus and the kubelet (as the
 * doctor's priv.runtime_sockets and fs.host_sensitive know them); a walk of
 * /run (as deep as the doctor walks it) and of each /run/user/UID adds any
 * other unix socket whose name says it is a runtime's. Only what exists is
 * named, once each (by its real path: /var/run is /run on Debian). */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "live/live.h"

static const char *const control_paths[] = {
	"/run/docker.sock",
	"/run/docker",
	"/var/lib/docker",
	"/run/containerd",
	"/var/lib/containerd",
	"/run/podman",
	"/var/lib/containers",
	"/run/crio",
	"/var/lib/crio",
	"/run/cri-dockerd.sock",
	"/run/dockershim.sock",
	"/run/k3s",
	"/var/lib/rancher",
	"/run/buildkit",
	"/var/lib/buildkit",
	"/var/lib/kubelet",
	"/etc/kubernetes",
	"/var/snap/lxd/common/lxd",
	"/var/lib/incus",
	"/var/lib/lxd",
	"/root/.kube",
	"/root/.docker",
	"/var/run/docker.sock",
	"/var/run/containerd",
	"/var/run/podman",
	"/var/run/crio",
	"/var/run/cri-dockerd.sock",
};

/* names the doctor counts as a runtime's socket */
static const char *const runtime_words[] = {"docker", "containerd", "podman", "crio", "cri-", "kubelet", "k3s",
					    "buildkit", "dockershim", "lxd", "incus"};

static bool under_one(const sp_strv *out, const char *p)
{
	for (size_t i = 0; i < out->n; i++) {
		size_t n = strlen(out->v[i]);
		if (!strncmp(p, out->v[i], n) && (p[n] == '\0' || p[n] == '/'))
			return true;
	}
	return false;
}

static void add(sp_strv *out, const char *path)
{
	char real[PATH_MAX];
	if (!realpath(path, real) || under_one(out, real))
		return;
	sp_strv_push(out, real);
}

static bool runtime_name(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(runtime_words); i++)
		if (strstr(name, runtime_words[i]))
			return true;
	return false;
}

static void walk(sp_strv *out, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char p[PATH_MAX];
		if (snprintf(p, sizeof p, "%s/%s", dir, de->d_name) >= (int)sizeof p)
			continue;
		/* firejail's own records stay: the sandbox is made from them */
		if (!strcmp(p, "/run/firejail"))
			continue;
		if (de->d_type == DT_SOCK && runtime_name(p))
			add(out, p);
		else if (de->d_type == DT_DIR && depth > 0)
			walk(out, p, depth - 1);
	}
	closedir(d);
}

void sp_host_control_paths(sp_strv *out)
{
	sp_strv_split(out, NULL, ",");
	for (size_t i = 0; i < SP_ARRAY_SIZE(control_paths); i++)
		add(out, control_paths[i]);
	walk(out, "/run", 3);
}
