/* Shared by the CLI engine adapters (podman.c, docker.c). */
#ifndef SP_LIVE_ENGINE_H
#define SP_LIVE_ENGINE_H

#include "live/live.h"

/* what one engine (one daemon) is, asked once per run and shared by its adapters */
typedef struct sp_live_engine_state {
	/* the image the lanes run from: the lane's rootfs imported once per run, or the doctor image
	 * (--image REF, or built once per run from the doctor with --doctor-image) */
	char image[256];
	char image_id[160];     /* its id, as the engine names it (images this run made) */
	bool image_ours;        /* this run imported or built it: removed, and proven gone, when the run ends */
	bool image_tried;       /* the doctor image was set up (below is its outcome, for every lane of the run) */
	int image_rc;
	sp_outcome image_why;
	char image_note[400];   /* how the lanes run from it, for their notes */
	char build_label[96];   /* org.sandprobe.live.run=VALUE on the image this run built */
	char build_ctx[600];    /* the build's context dir (removed right after the build) */
	char check_name[64];    /* the container that asked the image's doctor for its catalogue */
	char run_hex[16];       /* the run's suffix for what it makes in this engine */
	int root_mode;          /* the root directory a container of the image gets (-1: unmeasured) */
	unsigned root_uid;
	bool asked;             /* the engine answered `info` (below is valid) */
	int info_rc;            /* 0: it answered; else the probe's skip reason is in info_why */
	char info_why[1024];
	char version[64];       /* server version */
	char endpoint[300];     /* DOCKER_HOST, or the default socket */
	char runtimes_json[2048]; /* the engine's registered OCI runtimes ({"name": {"path", "runtimeArgs"}}) */
	/* capabilities the engine knows (asked with a create it refuses) */
	bool caps_asked;
	int caps_rc;
	sp_strv caps_known;
	char caps_why[512];
} sp_live_engine_state;

typedef struct sp_live_engine {
	const char *bin;
	const char *const *extra; /* flags every `run` gets */
	bool has_rootfs;          /* `run --rootfs DIR` exists (podman) */
	bool has_mask;            /* `--security-opt mask=A:B` exists (podman) */
	bool docker;              /* Docker: no `--pid private`, --cidfile, caps asked of the engine, containerd below */
	const char *want_runtime; /* an OCI runtime the lane asks for by its binary ("runsc"), NULL: the default */
	char runtime[64];         /* the name it is registered under (--runtime NAME) */
	char runtime_args[512];   /* its runtimeArgs, as the engine reports them (space-separated) */
	sp_live_engine_state *st;
} sp_live_engine;

/* the sp_live_runtime hooks of an engine adapter: the engine is l->rt->engine (rt->engine) */
void sp_engine_claims(sp_live_launch *l);
/* the doctor image (--image, --doctor-image): set up once per engine, and what its lanes cannot launch */
int sp_engine_plan(sp_live_lane *l, sp_outcome *o);
int sp_engine_prepare(sp_live_lane *l, sp_error *err);
int sp_engine_launch(sp_live_lane *l, sp_error *err);
void sp_engine_teardown(sp_live_lane *l);
int sp_engine_leftovers(sp_live_lane *l, char *what, size_t whatsz);
int sp_engine_finish(const sp_live_runtime *rt, const sp_live_cfg *cfg, char *what, size_t whatsz);
/* the rest of an engine adapter's sp_live_runtime initializer, after its name, summary and probe */
#define SP_ENGINE_HOOKS(E)                                                                                           \
	.removable = SP_PROT_ALL, .claims = sp_engine_claims, .plan = sp_engine_plan, .prepare = sp_engine_prepare, .launch = sp_engine_launch, \
	.teardown = sp_engine_teardown, .teardown_if_left = true, .leftovers = sp_engine_leftovers, .finish = sp_engine_finish, .engine = (E)

#endif
