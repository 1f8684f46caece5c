/* Workflow checks (src/checks/workflows.c). */
#ifndef SP_WORKFLOWS_H
#define SP_WORKFLOWS_H

#include <stddef.h>
#include <stdint.h>

/* the round-trip digest of the static doctor (no libcrypto): a 64-bit
 * multiply-rotate chain over 8-byte words; split-dependent (see workflows.c) */
void sp_wf_digest_init(uint64_t *h);
void sp_wf_digest_update(uint64_t *h, const void *buf, size_t len);

#endif
