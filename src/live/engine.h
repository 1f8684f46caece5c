/* Shared by the CLI engine adapters (podman.c, docker.c). */
#ifndef SP_LIVE_ENGINE_H
#define SP_LIVE_ENGINE_H

#include "live/live.h"

typedef struct sp_engine {
	const char *bin;
	const char *const *extra; /* flags every `run` gets */
	bool has_rootfs;          /* `run --rootfs DIR` exists (podman) */
	bool has_mask;            /* `--security-opt mask=A:B` exists (podman) */
	char image[160];          /* imported once per run */
} sp_engine;

/* the sp_runtime hooks of an engine adapter: the engine is l->rt->engine (rt->engine) */
void sp_engine_claims(sp_launch *l);
int sp_engine_prepare(sp_lane *l, sp_error *err);
int sp_engine_launch(sp_lane *l, sp_error *err);
void sp_engine_teardown(sp_lane *l);
int sp_engine_leftovers(sp_lane *l, char *what, size_t whatsz);
void sp_engine_finish(const sp_runtime *rt, const sp_live_cfg *cfg);
/* the rest of an engine adapter's sp_runtime initializer, after its name, summary and probe */
#define SP_ENGINE_HOOKS(E)                                                                                           \
	.removable = SP_PROT_ALL, .claims = sp_engine_claims, .prepare = sp_engine_prepare, .launch = sp_engine_launch, \
	.teardown = sp_engine_teardown, .leftovers = sp_engine_leftovers, .finish = sp_engine_finish, .engine = (E)

#endif
