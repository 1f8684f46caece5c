/* sandprobe live: launch a sandbox with a real runtime, run the static doctor
 * inside it, check the same properties from the host side and judge both.
 *
 * A lane is one (runtime, variant) pair. The runtime's strict launch is what
 * the lane *claims*; a negative-control variant launches with one or more
 * protections removed but keeps the strict claims, so every check that covers
 * a removed protection must FAIL (a control that passes is a tool defect).
 * The doctor's expectations are derived from the claims (--set overrides),
 * never hard-coded per runtime.
 *
 * Every runtime adapter (src/live/<runtime>.c) fills one sp_live_runtime: probe
 * (can it run here? else the exact reason), claims (its strict launch),
 * prepare (rootfs/bundle/image), launch (start the sandbox running
 * lane->inside with stdin/stdout piped to us), host_pid (default: find the
 * sandbox's shell by its nonce), teardown and leftovers (prove that nothing
 * is left). */
#ifndef SP_LIVE_H
#define SP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "catalog/catalog.h"
#include "core/check.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/outcome.h"
#include "core/spawn.h"
#include "core/util.h"
#include "live/result.h"

/* namespaces a launch creates */
enum {
	SP_NS_PID = 1u << 0,
	SP_NS_NET = 1u << 1,
	SP_NS_MNT = 1u << 2,
	SP_NS_UTS = 1u << 3,
	SP_NS_IPC = 1u << 4,
	SP_NS_USER = 1u << 5,
	SP_NS_CGROUP = 1u << 6,
	SP_NS_ALL = (1u << 7) - 1,
};
extern const char *const sp_ns_names[7]; /* "pid", "net", ... in bit order */

/* protections a negative control may remove (live/list_prots.h): SP_PROT_PIDNS ... */
enum {
#define SP_PR(sym, table, name) SP_PROT_IDX_##sym,
#include "live/list_prots.h"
#undef SP_PR
	SP_PROT_COUNT
};
enum {
#define SP_PR(sym, table, name) SP_PROT_##sym = 1u << SP_PROT_IDX_##sym,
#include "live/list_prots.h"
#undef SP_PR
	SP_PROT_LAST = 1u << (SP_PROT_COUNT - 1),
	SP_PROT_ALL = (1u << SP_PROT_COUNT) - 1, /* every one: the runtime can launch every variant */
};

/* What a launch gives the sandbox. */
typedef struct sp_live_launch {
	unsigned ns;      /* SP_NS_* */
	bool ro_root;     /* root refuses writes */
	bool drop_caps;   /* cap-drop ALL: effective and bounding sets empty */
	bool seccomp;     /* a seccomp filter */
	bool nnp;         /* no_new_privs */
	bool min_dev;     /* only the harmless device nodes */
	bool tmp;         /* a writable tmpfs at /tmp */
	bool own_cgroup;  /* the runtime puts the sandbox in a cgroup of its own */
	bool privileged;  /* the runtime's "privileged" mode */
	bool masked;      /* sensitive /proc and /sys paths masked (the profile's fs.masked) */
	bool root_is_host_root; /* uid 0 inside is uid 0 of the host */
	bool chroot;      /* the root is a chroot, not a mount of its own */
	bool host_fs_root; /* the root is the host's own filesystem (a read-only view of it: firejail without chroot) */
	bool vm;          /* a virtual machine: the boundary is the hypervisor */
	bool user_kernel; /* a user-space kernel (gVisor): the workload's kernel is the Sentry, a host process */
} sp_live_launch;

typedef struct sp_live_variant {
	const char *name;
	unsigned removes;     /* SP_PROT_* */
	const char *property; /* "host pid namespace" ... (NULL for strict) */
} sp_live_variant;
extern const sp_live_variant sp_variants[];
extern const size_t sp_variants_count;
const sp_live_variant *sp_variant_find(const char *name);
/* check-id globs that must FAIL when the protection is removed */
const char *const *sp_prot_checks(unsigned prot);
/* check-id globs that may also fail when it is removed (finer probes of the same property) */
const char *const *sp_prot_may_fail(unsigned prot);
const char *sp_prot_name(unsigned prot);

typedef struct sp_live_lane sp_live_lane;

/* settings for a whole run */
typedef struct sp_live_cfg {
	char doctor[4096];  /* static sandprobe-doctor */
	char busybox[4096]; /* static busybox (the sandbox's shell) */
	char kernel[4096];  /* qemu: kernel image ("" = newest /boot/vmlinuz-*) */
	const char *profile;
	unsigned timeout_ms;    /* per lane (containers) */
	unsigned vm_timeout_ms; /* per lane (qemu) */
	const char *accel;      /* qemu: "auto", "kvm" or "tcg" */
	char workspace[4096];   /* qemu: host directory shared into the guest over 9p at /workspace ("" none) */
	bool ws_parent;         /* qemu, negative control: export the workspace's parent instead (too much) */
	bool strict;            /* a skipped lane is a failure */
	bool keep;              /* debugging: keep the lane's temp dir */
	char tmpbase[256];      /* where lane dirs go: a tmpfs when one allows exec, else /tmp */
	char containerd[512];   /* --containerd-address ("" : $CONTAINERD_ADDRESS, the default socket, or our own) */
	/* the engine lanes (docker, docker-runsc, podman) from the doctor image instead of the rootfs:
	 * --image REF (a local image with the doctor at /sandprobe-doctor), or --doctor-image (built per engine
	 * for the run from doctor, FROM scratch, and removed at its end) */
	char image[256];
	bool doctor_image;
	char *catalogue;        /* the doctor's `--list --format json --profile P`: an image's doctor must give the same */
	/* catalogue of the doctor (from --list --format json) */
	sp_strv ids;        /* check ids */
	sp_strv run_ids;    /* ids the profile does not turn off: each must be in a report */
	sp_strv keys;       /* policy keys that some check reads */
	sp_strv seccomp_deny; /* the profile's seccomp.deny: the lanes' filters refuse these too */
	sp_strv masked;       /* the profile's fs.masked: the lanes mask these too */
	/* ids whose property a separate kernel satisfies when the doctor's policy
	 * accepts it (--list: separate_kernel_satisfies), per kind */
	sp_strv sat_user_space, sat_guest;
	sp_strv sets;         /* --set KEY=VALUE for the doctor, after the launch-derived ones */
	/* progress: NULL, or told the time since the lane started at the end of each of its phases
	 * (cmd/live.c prints them under SP_LIVE_TIMING=1, for tuning the lane) */
	void (*on_phase)(void *arg, const sp_live_lane *l, const char *what, double ms);
	void *phase_arg;
} sp_live_cfg;

typedef struct sp_live_runtime sp_live_runtime;

struct sp_live_runtime {
	const char *name;
	const char *summary;
	unsigned removable; /* SP_PROT_* its variants may remove */
	/* 0: usable here; -1: skip, with the exact reason in why */
	int (*probe)(const sp_live_cfg *cfg, sp_outcome *o);
	void (*claims)(sp_live_launch *l);
	/* NULL, or: refine l->claim from the engine's effective configuration
	 * (notes into l->notes); -1 when this host or engine cannot launch the
	 * lane's variant: a launch limitation (skip) with the reason in why */
	int (*plan)(sp_live_lane *l, sp_outcome *o);
	const char *doctor_at; /* the doctor's path inside (NULL: /sandprobe-doctor) */
	int (*prepare)(sp_live_lane *l, sp_error *err);  /* NULL: the plain rootfs is enough */
	int (*launch)(sp_live_lane *l, sp_error *err);
	/* NULL, or: the seccomp filter (struct sock_fprog, freed by the caller) its launch loads on the runtime
	 * process before it execs; `sandprobe live --exec-under-filter` replays a command line under it */
	void *(*prefilter)(const sp_live_cfg *cfg, sp_error *err);
	int (*host_pid)(sp_live_lane *l, sp_error *err); /* NULL: find the shell by its nonce */
	void (*teardown)(sp_live_lane *l);               /* after the sandbox was told to stop */
	bool teardown_if_left; /* the runtime removes its container when it ends by itself: tear down only what the proof finds */
	/* 0: nothing left; 1: something is left (named in what) */
	int (*leftovers)(sp_live_lane *l, char *what, size_t whatsz);
	/* end of run: remove the run's shared state (images, namespaces) and prove it gone: -1 the run made none,
	 * 0 removed and proven gone, 1 something is left; what says which */
	int (*finish)(const sp_live_runtime *rt, const sp_live_cfg *cfg, char *what, size_t whatsz);
	/* VMs: ms to wait for the guest's first output (0: no watchdog), and a relaunch under a fallback */
	unsigned (*boot_watchdog_ms)(sp_live_lane *l);
	int (*fallback)(sp_live_lane *l, sp_error *err);
	struct sp_live_engine *engine; /* CLI engines (engine.c): the engine's binary, flags and image; else NULL */
	void (*lane_free)(sp_live_lane *l); /* free what the adapter hung on l->priv */
	/* NULL, or: add to msg->msg what the runtime said elsewhere (its logs) about a launch that failed */
	void (*launch_message)(sp_live_lane *l, sp_error *msg);
	const char *handler;      /* containerd lanes: the runtime handler (RuntimeClass .handler) */
	const char *runtime_type; /* containerd lanes: the runtime type (io.containerd.runc.v2) */
};

/* the runtimes (live/list_runtimes.h): sp_rt_<symbol>, by enum id SP_RTID_<symbol> in sp_runtimes */
#define SP_RT(sym) extern const sp_live_runtime sp_rt_##sym;
#include "live/list_runtimes.h"
#undef SP_RT
typedef enum sp_live_runtime_id {
#define SP_RT(sym) SP_RTID_##sym,
#include "live/list_runtimes.h"
#undef SP_RT
	SP_RTID_COUNT
} sp_live_runtime_id;
extern const sp_live_runtime *const sp_runtimes[SP_RTID_COUNT];
extern const size_t sp_runtimes_count;
const sp_live_runtime *sp_runtime_find(const char *name);

struct sp_live_lane {
	const sp_live_runtime *rt;
	const sp_live_variant *variant;
	const sp_live_cfg *cfg;
	sp_live_launch claim;  /* the strict launch: what the lane claims */
	sp_live_launch actual; /* what is launched */
	char dir[256];    /* lane temp dir */
	char rootfs[512];
	char nonce[40];   /* "sp-live-<hex>": $0 of the sandbox's shell */
	char name[64];    /* container/machine name: "sandprobe-<hex>" */
	sp_strv inside;   /* argv run inside the sandbox */
	sp_strv doctor_args; /* the doctor's arguments (for VMs: baked into init) */
	sp_child proc;    /* the runtime process (stdin piped, stdout bounded at 8 MiB) */
	pid_t host_pid;   /* the sandbox's shell as the host sees it */
	char rtinfo[512]; /* what the adapter wants reported (accel, image ...) */
	char notes[768];  /* how the adapter launched, where the host needed it (crun on hybrid cgroups ...) */
	char *command;    /* the runtime command line that was run (the sandbox's own command cut off) */
	char cid[80];     /* engines: the container's id as the engine knows it */
	char spec[600];   /* the OCI config the runtime was given, as the engine holds it ("" unknown) */
	void *priv;       /* the adapter's own lane state */
	const sp_strv *caps_known; /* OCI bundles: keep only these capabilities (those the runtime knows); NULL: all */
	bool limited;     /* skipped: a launch limitation of this host or engine */
	unsigned kept;    /* SP_PROT_* the variant asks to remove but this runtime keeps (said in notes) */
	bool launch_failed; /* skipped: the runtime ended before the sandbox started */
	char vm_kernel[128];   /* VM lanes: release of the kernel image booted */
	char vm_accel[256];    /* VM lanes: "kvm" or "tcg (why)" */
	char doctor_kernel[128]; /* the kernel the doctor reported (environment.kernel) */
	char boundary[16];       /* environment.kernel_boundary.kind: host, user-space, guest ("" none) */
	bool boundary_accepted;  /* ... .accepted: the doctor's policy lets that kernel satisfy what it provides */
	double doctor_ms;        /* the doctor's own duration_ms (as it reports it) */
	int seccomp_fd;
	void *prefilter; /* NULL, or a seccomp filter (struct sock_fprog) the runtime process starts under */
	/* outcome */
	sp_status status; /* pass fail skip error */
	char reason[1024];
	sp_live_results results;
	sp_strv expected_fail, missed, collateral;
	sp_strv also_failed; /* failed, and allowed to (sp_prot_may_fail) */
	/* the doctor's checks of a removed protection that its policy judges against
	 * a separate kernel it accepts (gVisor's, a VM's): not demanded to fail */
	sp_strv by_boundary;
	bool defect;
	double ms;
	int doctor_rc;
	char *doctor_json;  /* the doctor's report (untrusted) */
	char *stderr_tail;
	void *json_extra; /* NULL, or a json_t object: its members are added to the lane's JSON (fleet collect's cell) */
};

/* ---- lane.c ---- */
void sp_lane_init(sp_live_lane *l, const sp_live_runtime *rt, const sp_live_variant *v, const sp_live_cfg *cfg);
/* Run one lane start to end; never fails: problems are results/reason. */
void sp_lane_run(sp_live_lane *l);
/* judge a lane from its results: a strict lane passes when nothing failed; a
 * negative control must fail every check that covers what it removed */
void sp_lane_judge(sp_live_lane *l);
/* would the doctor's policy judge check id against the lane's kernel boundary?
 * Only a boundary the host's side confirms counts (gVisor's kernel on a gVisor
 * lane, a guest kernel on a VM lane): a doctor cannot talk its way out */
bool sp_lane_by_boundary(const sp_live_lane *l, const char *id);
/* append to l->notes, "; " between notes, cut at its size */
void sp_lane_note(sp_live_lane *l, const char *fmt, ...) SP_PRINTF(2, 3);
void sp_lane_free(sp_live_lane *l);
/* derive the doctor's --set overrides from a claimed launch (keys the doctor knows) */
void sp_live_derive_sets(const sp_live_launch *claim, const sp_live_cfg *cfg, sp_strv *sets);
/* apply a variant's removals to a launch */
void sp_launch_remove(sp_live_launch *l, unsigned removes);
/* load the doctor's catalogue (ids and policy keys) into cfg */
int sp_live_load_catalogue(sp_live_cfg *cfg, sp_error *err);
/* does the doctor binary exist, run, and is it static? */
int sp_live_check_static(const char *path, sp_error *err);

/* ---- proc.c ---- */
/* spawn argv as the lane's runtime process: stdin piped, stdout (8 MiB) and stderr captured */
int sp_lane_proc_spawn(sp_live_lane *l, char *const argv[], sp_error *err);
/* the line of a runtime's output that says what went wrong (first error line, else the last line) */
void sp_runtime_message(const char *text, char *out, size_t outsz);
/* a wrapper command's launch: push "--" and the lane's inside command onto
 * argv, spawn it as the lane's process, free argv */
int sp_lane_spawn(sp_live_lane *l, sp_strv *argv, sp_error *err);
/* /proc/PID/cmdline (NUL-separated) into buf; its length, or -1 */
ssize_t sp_cmdline(pid_t pid, char *buf, size_t size);
/* the value of FLAG in a NUL-separated command line: "FLAG=V" or "FLAG" "V" */
bool sp_cmdline_arg(const char *cl, size_t n, const char *flag, char *out, size_t outsz);
/* processes (not this one) whose command line contains needle: their number, the first max in pids */
size_t sp_procs_with(const char *needle, pid_t *pids, size_t max);
/* wait up to timeout_ms until no process carries needle; false (what says which) when some still do */
bool sp_wait_procs_gone(const char *needle, unsigned timeout_ms, char *what, size_t whatsz);
/* the containerd shim serving container id: its pid (0 when none), -address, -namespace and cwd (the bundle) */
pid_t sp_find_shim(const char *id, char *addr, size_t addrsz, char *ns, size_t nssz, char *bundle, size_t bundlesz);
/* proc.c: a stream connection to the unix socket at path (an engine's API), non-blocking when asked
 * (an engine whose backlog is full then answers EAGAIN at once): the fd, or -1 (o: strerror of errnum) */
int sp_unix_connect(const char *path, bool nonblock, sp_outcome *o);
/* gvisor.c: pid is runsc's sandbox (the Sentry) of container id: l->host_pid, l->spec (its bundle's
 * config.json) and its --root; else -1 with err */
int sp_gvisor_sandbox(sp_live_lane *l, pid_t pid, const char *id, char *root, size_t rootsz, sp_error *err);
/* the claims, plan and launch message of a gVisor lane on an OCI bundle (runsc, containerd-runsc) */
void sp_gvisor_claims(sp_live_launch *l);
int sp_gvisor_plan(sp_live_lane *l, sp_outcome *o);
/* the no-nnp control on gVisor: a launch limitation (-1, the reason in why) */
int sp_gvisor_nnp_limit(sp_outcome *o);
void sp_gvisor_launch_message(sp_live_lane *l, sp_error *msg);
/* keep only the capabilities this runsc knows in the lane's bundle (asked once per run) */
int sp_gvisor_known_caps(sp_live_lane *l, sp_error *err);
/* does this runsc have --oci-seccomp? */
bool sp_gvisor_oci_seccomp(void);
/* run n commands at once, each to completion within timeout_ms: rcs[i] as sp_run_cmd gives it,
 * outs[i] / errs[i] new strings (either array may be NULL) */
void sp_run_cmds(char **const argvs[], size_t n, int *rcs, char **outs, char **errs, unsigned timeout_ms);
/* find PATH in $PATH (or "" when absent) */
bool sp_which(const char *name, char *out, size_t outsz);
/* the one process whose argv is {"/bin/sh", "-c", _, nonce, ...}, or {doctor, "--live-lane", nonce, ...} (the
 * doctor image: the doctor holds the sandbox open itself; a copy of either between fork and exec does not count):
 * its pid, 0 if none, -1 if several */
pid_t sp_find_nonce_pid(const char *nonce);
/* the last line of text that is not empty, trimmed, into out */
void sp_last_line(const char *text, char *out, size_t outsz);
/* probe helpers for the adapters: 0 when the condition holds, else -1 with
 * the skip reason (printf-style, or the command's failure) in why */
int sp_probe_root(sp_outcome *o, const char *fmt, ...) SP_PRINTF(2, 3);
int sp_probe_tool(const char *bin, sp_outcome *o, const char *fmt, ...) SP_PRINTF(3, 4);
/* argv runs and exits 0 (and, with want_out, prints something): else why is
 * "ARGV0 ARGV1 fails (exit N): <last stderr line, or if_silent>" */
int sp_probe_cmd(char *const argv[], bool want_out, unsigned timeout_ms, const char *if_silent, sp_outcome *o);

/* ---- oci.c ---- */
/* the capabilities in the host's bounding set, as "CAP_CHOWN" ... */
void sp_host_caps(sp_strv *out);

/* ---- rootfs.c ---- */
/* lane dir + rootfs: the static doctor at /sandprobe-doctor, busybox at /bin/busybox (+ sh) */
int sp_rootfs_prepare(sp_live_lane *l, sp_error *err);
int sp_copy_file(const char *from, const char *to, mode_t mode, sp_error *err);

/* ---- host.c ---- */
/* device nodes under a /dev, walked recursively without following links */
typedef struct sp_live_dev_scan {
	size_t nodes, extra, blocks, entries;
	bool own_pts;   /* its pts is a devpts instance other than the host's: its terminals are allowed */
	bool truncated; /* cut short at its bounds (depth 8, 65536 entries) */
	char list[512]; /* the first extra nodes: "net/tun (10:200),..." */
} sp_live_dev_scan;
/* 0, or -1 (o: strerror of errnum) when dev cannot be opened */
int sp_dev_walk(const char *dev, sp_live_dev_scan *sc, sp_outcome *o);
void sp_host_checks(sp_live_lane *l);
/* validate the doctor's report (schema sandprobe.doctor.v1); adds its results to the lane */
void sp_doctor_ingest(sp_live_lane *l, const char *json, size_t len, int rc);

/* ---- seccomp.c ---- */
/* the syscalls a strict lane denies (EPERM) */
extern const char *const sp_live_denied_syscalls[];
/* the syscalls to refuse outright (base list and the profile's seccomp.deny, but clone/clone3) */
void sp_seccomp_deny_list(const sp_live_cfg *cfg, sp_strv *out);
/* that list as one runtime argument: PREFIX then the names joined by SEP (a new string) */
char *sp_seccomp_deny_arg(const sp_live_cfg *cfg, const char *prefix, const char *sep);
/* the lane's filter as a struct sock_fprog (free()), for loading on a runtime before it execs: the deny
 * list but the syscalls in keep (NULL-terminated: what the runtime itself needs), clone refused with
 * CLONE_NEWUSER, clone3 with ENOSYS, other ABIs refused; NULL with err filled */
void *sp_seccomp_prefilter(const sp_live_cfg *cfg, const char *const *keep, sp_error *err);

/* ---- hide.c ---- */
/* the host's control paths that exist here (runtime sockets, engine and kubelet state), by real path, each once */
void sp_host_control_paths(sp_strv *out);
/* BPF program for bwrap --seccomp FD: a memfd positioned at 0, or -1 */
int sp_seccomp_bpf_fd(const sp_live_cfg *cfg, sp_error *err);
/* OCI linux.seccomp object (json_t *) */
void *sp_seccomp_oci(const sp_live_cfg *cfg);

/* ---- cpio.c ---- */
typedef struct sp_live_cpio sp_live_cpio;
sp_live_cpio *sp_cpio_open(const char *path, sp_error *err);
int sp_cpio_dir(sp_live_cpio *c, const char *name, unsigned mode);
int sp_cpio_file(sp_live_cpio *c, const char *name, unsigned mode, const void *data, size_t len);
int sp_cpio_file_from(sp_live_cpio *c, const char *name, unsigned mode, const char *hostpath, sp_error *err);
int sp_cpio_symlink(sp_live_cpio *c, const char *name, const char *target);
int sp_cpio_node(sp_live_cpio *c, const char *name, unsigned mode, unsigned major, unsigned minor);
int sp_cpio_close(sp_live_cpio *c, sp_error *err); /* writes the trailer */

/* ---- platform.c ---- */
typedef struct sp_live_platform {
	char kernel[128], arch[32];
	char host_kind[32];  /* linux, wsl2, colima, orbstack, docker-desktop, lima */
	char virt[64];       /* hypervisor the host runs under, if any */
	char cgroup[16];     /* v1, hybrid, v2 */
	bool kvm_present, kvm_usable, kvm_probed;
	char kvm_reason[256];
	char notes[1024];    /* what this means for the lanes */
} sp_live_platform;
/* probe_kvm: run the KVM probe (a VM with one instruction; only when a qemu lane runs) */
void sp_platform_detect(sp_live_platform *p, bool probe_kvm);
/* KVM: can we create a VM and run one instruction? (cached) */
bool sp_kvm_usable(sp_outcome *o);

/* ---- report.c ---- */
/* what a runtime's finish removed at the end of the run, and its proof */
typedef struct sp_live_run_teardown {
	const sp_live_runtime *rt;
	bool ok;
	char what[1536];
} sp_live_run_teardown;

typedef struct sp_live_run {
	sp_live_platform platform;
	sp_live_lane *lanes;
	size_t n;
	sp_live_run_teardown *teardown; /* one per runtime whose finish had something to remove */
	size_t nteardown;
	sp_strv defects;
	bool matrix;
	bool strict;
	/* NULL: a run of sandprobe live. Else the matrix is another verb's (fleet collect), from reports it read:
	 * origin says whose (the text's first line and the page's heading instead of the platform), the JUnit
	 * suites are named SUITE.RUNTIME.VARIANT, and a lane carries no launch claims (nothing launched it here) */
	const char *origin;
	const char *suite;
} sp_live_run;
void sp_live_judge(sp_live_run *run);
bool sp_live_failed(const sp_live_run *run);
void sp_live_write_text(FILE *f, const sp_live_run *run, bool verbose);
int sp_live_write_json(FILE *f, const sp_live_run *run);
void sp_live_write_html(FILE *f, const sp_live_run *run);

#endif
