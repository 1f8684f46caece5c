/* sandprobe's verify entry: tell a bundle's kind and judge it by its own
 * rules, sandprobe's (src/evidence/) or A3S Box's (src/a3s/). Above both:
 * neither knows the other. */
#ifndef SP_VERIFY_H
#define SP_VERIFY_H

#include "core/error.h"
#include "evidence/evidence.h"

/* Judge the bundle in dir (a sandprobe.evidence.v1 bundle, or an A3S Box
 * host or cluster bundle: o->input, auto-detected by default). Gate
 * failures are results, not errors: returns 0 (then v->nfail says the
 * verdict) or -1 with err for usage/internal errors (dir missing or not a
 * directory: a usage error). */
int sp_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err);

#endif
