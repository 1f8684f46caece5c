/* Capability names and masks (shared by policy validation and checks). */
#ifndef SP_CAPS_H
#define SP_CAPS_H

#include <stddef.h>
#include <stdint.h>

/* capability number -> "cap_sys_admin" (NULL beyond the known table) */
const char *sp_cap_name(unsigned cap);
/* name ("CAP_SYS_ADMIN", "sys_admin", "cap_sys_admin") -> number, or -1 */
int sp_cap_from_name(const char *name);
/* the highest capability number the kernel knows (/proc/sys/kernel/cap_last_cap) */
unsigned sp_cap_last(void);
/* format the names of the bits of mask into buf ("none" when empty) */
void sp_caps_format(uint64_t mask, char *buf, size_t size);
/* parse a hex mask as in /proc/self/status CapEff */
int sp_caps_parse(const char *hex, uint64_t *out);
/* mask of a list of names ("ALL" means every known capability); -1 and the
 * offending name in *bad when a name is unknown */
int sp_caps_mask(char *const *names, size_t n, uint64_t *out, const char **bad);

#endif
