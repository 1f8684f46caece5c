/* What the bundle harnesses (fuzz_evidence_bundle.c, fuzz_a3s_bundle.c)
 * share: the input split into the files of a bundle directory, and the
 * verdict rendered in every format. */
#ifndef SP_FUZZ_BUNDLE_FILES_H
#define SP_FUZZ_BUNDLE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "evidence/evidence.h"

/* dir/name with the n bytes at p (aborts when it cannot be written) */
void sp_fuzz_put(const char *dir, const char *name, const uint8_t *p, size_t n);
/* the input split at lines "@@@@": the i-th part (with its newline) is
 * dir/names[i], empty when the input has fewer parts */
void sp_fuzz_split_files(const char *dir, const char *const *names, size_t nnames, const uint8_t *data, size_t size);
/* the verdict printed as JSON and as text (to /dev/null), then freed */
void sp_fuzz_print_verdict(sp_ev_verdict *v);

#endif
