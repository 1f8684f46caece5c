/* The resource sampler: one reading of owned and global resources, straight
 * from /proc, /sys/fs/cgroup and the state directory (no shelling out).
 * Ownership is proven, never guessed by name: a process is owned when it
 * descends from the runner, or its environment carries
 * SANDPROBE_SOAK_PREFIX=<run prefix>, or its cgroup path or command line
 * contains the run prefix (which includes the run's random id). */
#ifndef SP_SOAK_SAMPLER_H
#define SP_SOAK_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/fsutil.h" /* sp_count_dir */

#define SP_MAX_COUNTERS 32
#define SP_SOAK_ENV "SANDPROBE_SOAK_PREFIX"

typedef struct sp_soak_sample {
	double ts;
	char wall[32];
	char phase[12];
	long long owned_processes, owned_threads, owned_rss_bytes;
	double owned_cpu_seconds;
	long long owned_fds, owned_mounts, owned_sockets, owned_cgroups, disk_bytes;
	long long global_processes, global_mounts, runner_rss_bytes, runner_fds;
	long long extra[SP_MAX_COUNTERS];
	size_t nextra;
} sp_soak_sample;

typedef struct sp_soak_sampler sp_soak_sampler;

/* root: the runner's pid (its descendants are owned, it is not);
 * prefix: the run prefix; state_dir: mounts and disk bytes are counted under it. */
sp_soak_sampler *sp_sampler_new(pid_t root, const char *prefix, const char *state_dir);
void sp_sampler_free(sp_soak_sampler *s);
/* Fill everything but ts/wall/phase/extra. */
void sp_sampler_take(sp_soak_sampler *s, sp_soak_sample *out);

/* Why pid is owned: 0 not owned, else a bitmask of these. */
enum { SP_OWN_TREE = 1, SP_OWN_ENV = 2, SP_OWN_CGROUP = 4, SP_OWN_CMDLINE = 8 };
int sp_sampler_owner(sp_soak_sampler *s, pid_t pid);
/* pids owned by tree, environment or cgroup (the ones the runner may signal),
 * in a new array; *n set. */
pid_t *sp_sampler_signalable(sp_soak_sampler *s, size_t *n);
/* mount points under the state directory, deepest first (new strv-like array) */
char **sp_sampler_owned_mounts(sp_soak_sampler *s, size_t *n);

/* The descendants of pid in a fresh scan (children, their children ...),
 * with their start times (field 22 of /proc/PID/stat), in new arrays;
 * returns how many. */
size_t sp_sampler_descendants(sp_soak_sampler *s, pid_t pid, pid_t **pids, unsigned long long **starts);
/* a cgroup directory name not to count as owned (the run's own cgroup, in
 * which the runner itself lives) */
void sp_sampler_ignore_cgroup(sp_soak_sampler *s, const char *name);


#endif
